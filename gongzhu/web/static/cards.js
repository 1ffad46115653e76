// Cards as people see them, shared by the table page and the viewer.  Plain JavaScript.
"use strict";

const GZ = (() => {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_ORDER = "SHDC";
  const RANKS = "23456789TJQKA";
  const KINDS = { open: "亮 shows", first: "首明 first-shows", secret: "暗卖 sells" };

  /** "QS" -> {rank: "Q", suit: "♠", red: false} */
  function parts(text) {
    const rank = text[0] === "T" ? "10" : text[0];
    const letter = text[1];
    return { rank, suit: SUITS[letter], red: letter === "H" || letter === "D" };
  }

  /** "QS" -> "♠Q" (how the engine's messages write cards). */
  function symbol(text) {
    const p = parts(text);
    return p.suit + p.rank;
  }

  /** A card element; tag "button" for a card that can be played. */
  function card(text, { tag = "span", small = false } = {}) {
    const p = parts(text);
    const el = document.createElement(tag);
    el.className = "card" + (p.red ? " red" : "") + (small ? " small" : "");
    el.dataset.card = text;
    el.setAttribute("aria-label", symbol(text));
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = p.rank;
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = p.suit;
    el.append(rank, suit);
    return el;
  }

  /** Face-down cards: n backs, overlapping. */
  function backs(n) {
    const el = document.createElement("div");
    el.className = "backs";
    el.setAttribute("aria-label", n + " cards");
    for (let i = 0; i < Math.min(n, 13); i++) {
      const back = document.createElement("span");
      back.className = "card back small";
      el.append(back);
    }
    return el;
  }

  /** Cards as held: by suit ♠ ♥ ♦ ♣, high to low. */
  function sorted(cards) {
    const key = (c) => SUIT_ORDER.indexOf(c[1]) * 20 - RANKS.indexOf(c[0]);
    return [...cards].sort((a, b) => key(a) - key(b));
  }

  /** "play QS AH" -> "play ♠Q ♥A"; "show -" -> "show nothing". */
  function describeAction(text) {
    const [verb, ...rest] = text.split(" ");
    if (rest.length === 0 || rest[0] === "-") return verb + " nothing";
    return verb + " " + rest.map(symbol).join(" ");
  }

  /** A line of card elements with a label in front. */
  function labelled(label, cards, opts) {
    const el = document.createElement("div");
    el.append(label + " ");
    for (const c of cards) el.append(card(c, opts), " ");
    return el;
  }

  /** The shows of one seat, as an element (a secret sale by someone else shows its size). */
  function shows(list, seat) {
    const el = document.createElement("div");
    el.className = "shows";
    for (const show of list.filter((s) => s.seat === seat)) {
      const line = document.createElement("div");
      const word = KINDS[show.kind] || show.kind;
      if (show.cards === null) {
        line.className = "secret";
        line.textContent = `${word} ${show.count} card${show.count === 1 ? "" : "s"}`;
      } else {
        line.append(word + (show.forced ? " (forced) " : " "));
        for (const c of show.cards) line.append(card(c, { small: true }));
      }
      el.append(line);
    }
    return el;
  }

  /** The explained score sheet: seat, raw, final, how. */
  function sheet(data, { names, totals } = {}) {
    const box = document.createElement("section");
    box.className = "sheet";
    box.setAttribute("aria-label", "score sheet");
    const title = document.createElement("h2");
    title.textContent = "Score sheet";
    title.style.margin = "0 0 0.3rem";
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    const columns = ["Seat", "Raw", "Final", "How"];
    if (totals) columns.push("Match total");
    for (const h of columns) {
      const th = document.createElement("th");
      th.textContent = h;
      head.append(th);
    }
    const body = table.createTBody();
    for (let seat = 0; seat < data.raw.length; seat++) {
      const row = body.insertRow();
      row.insertCell().textContent = names ? names[seat] : "seat " + seat;
      const raw = row.insertCell();
      raw.className = "num";
      raw.textContent = data.raw[seat];
      const fin = row.insertCell();
      fin.className = "num";
      fin.textContent = data.final[seat];
      const how = document.createElement("ul");
      for (const line of data.explain[seat]) {
        const li = document.createElement("li");
        // "final +1404 (how results follow from raw scores)": the note below says how
        li.textContent = line.startsWith("final ") ? line.replace(/ \(.*\)$/, "") : line;
        how.append(li);
      }
      row.insertCell().append(how);
      if (totals) {
        const t = row.insertCell();
        t.className = "num";
        t.textContent = totals[seat];
      }
    }
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = data.normalisation;
    box.append(title, table, note);
    return box;
  }

  return { SUITS, RANKS, parts, symbol, card, backs, sorted, describeAction, labelled, shows, sheet };
})();
