// The hand viewer: a record is checked by the server (/api/replay), then stepped through
// trick by trick here.  Step 0 is the deal with its shows; step k is after trick k.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const POSITIONS = ["bottom", "right", "top", "left"]; // seat 1 plays after seat 0, as at a table
  let data = null;
  let hand = null;
  let step = 0;

  async function open(text) {
    $("error").textContent = "";
    const response = await fetch("/api/replay", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: text,
    });
    const answer = await response.json();
    if (!response.ok) {
      $("error").textContent = answer.message;
      $("view").hidden = true;
      return;
    }
    data = answer;
    const select = $("hand-select");
    select.replaceChildren();
    data.hands.forEach((_, i) => {
      const o = document.createElement("option");
      o.value = i;
      o.textContent = `${i + 1} of ${data.hands.length}`;
      select.append(o);
    });
    $("hand-pick").hidden = data.kind !== "match";
    pick(0);
  }

  function pick(index) {
    hand = data.hands[index];
    // the seed is a decimal string: a 64-bit seed does not fit JavaScript's numbers
    $("rules").textContent = hand.rules + (hand.seed === null ? "" : ` · seed ${hand.seed}`);
    $("view").hidden = false;
    go(0);
  }

  function last() {
    return hand.tricks.length + (hand.current_trick.length ? 1 : 0);
  }

  function go(to) {
    step = Math.max(0, Math.min(last(), to));
    draw();
  }

  /** Each seat's cards after `k` tricks: the deal minus the cards played. */
  function held(k) {
    const holdings = hand.dealt.map((cards) => [...cards]);
    const plays = hand.tricks.slice(0, k).flatMap((t) => t.plays);
    if (k > hand.tricks.length) plays.push(...hand.current_trick);
    for (const play of plays) {
      for (const c of play.cards) holdings[play.seat].splice(holdings[play.seat].indexOf(c), 1);
    }
    return holdings;
  }

  function draw() {
    const n = hand.tricks.length;
    const unfinished = step > n;
    $("step").textContent = step === 0 ? `the deal (${n} tricks)` : unfinished ? "the trick under way" : `trick ${step} of ${n}`;
    $("first").disabled = $("prev").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === last();

    const trick = $("trick");
    trick.replaceChildren();
    const shown = step === 0 ? null : unfinished ? { plays: hand.current_trick } : hand.tricks[step - 1];
    if (shown) {
      for (const play of shown.plays) {
        const spot = document.createElement("div");
        spot.className = `played pos-${POSITIONS[play.seat]}` + (play.seat === shown.winner ? " winner" : "");
        spot.dataset.seat = play.seat;
        for (const c of play.cards) spot.append(GZ.card(c));
        trick.append(spot);
      }
    }
    const note = document.createElement("div");
    note.className = "note";
    if (step === 0) note.textContent = `seat ${hand.leader} leads`;
    else if (!unfinished) {
      note.textContent = `seat ${shown.winner} wins` + (shown.taker !== shown.winner ? `; seat ${shown.taker} takes the points` : "");
    }
    trick.append(note);

    const seats = $("seats");
    seats.replaceChildren();
    const holdings = held(step);
    for (let seat = 0; seat < 4; seat++) {
      const box = document.createElement("section");
      box.className = "seat";
      box.dataset.seat = seat;
      const name = document.createElement("div");
      name.className = "name";
      const won = hand.tricks.slice(0, step).filter((t) => t.winner === seat).length;
      name.textContent = `seat ${seat} · ${won} trick${won === 1 ? "" : "s"} won`;
      const cards = document.createElement("div");
      cards.className = "cards";
      for (const c of GZ.sorted(holdings[seat])) cards.append(GZ.card(c, { small: true }));
      box.append(name, cards, GZ.shows(hand.shows, seat));
      seats.append(box);
    }
    const sheet = $("sheet");
    sheet.replaceChildren();
    if (step === last() && hand.sheet) sheet.append(GZ.sheet(hand.sheet));
  }

  $("file").addEventListener("change", async () => {
    const file = $("file").files[0];
    if (file) open(await file.text());
  });
  $("load-paste").addEventListener("click", () => open($("paste").value));
  $("hand-select").addEventListener("change", () => pick(Number($("hand-select").value)));
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(step - 1);
  $("next").onclick = () => go(step + 1);
  $("last").onclick = () => go(last());
  document.addEventListener("keydown", (event) => {
    if (!hand || event.target.tagName === "TEXTAREA") return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last() };
    if (event.key in moves) {
      go(moves[event.key]);
      event.preventDefault();
    }
  });

  // ?record=URL opens a record of this server only (a table's record link), never another host's
  const source = new URLSearchParams(location.search).get("record");
  if (source) {
    let url = null;
    try {
      url = new URL(source, location.href);
    } catch (err) {
      url = null;
    }
    if (!url || url.origin !== location.origin) {
      $("error").textContent = "the viewer opens records of this server only: download the record and open the file";
    } else {
      fetch(url, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${r.status} ${r.statusText}`))))
        .then(open)
        .catch((err) => ($("error").textContent = "cannot load the record: " + err.message));
    }
  }
})();
