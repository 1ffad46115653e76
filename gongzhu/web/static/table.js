// The table page: one seat's view of the hand, kept in step over a websocket.
// The server sends a full "state" message after every action; this page only draws it
// and sends the seat's actions (docs/web.rst describes the messages).
"use strict";

(() => {
  const token = decodeURIComponent(location.pathname.split("/").pop());
  const $ = (id) => document.getElementById(id);
  const POSITIONS = ["bottom", "right", "top", "left"];

  let socket = null;
  let state = null;
  let retry = 0;
  let retryTimer = null;
  let stopped = false; // refused or taken over: do not reconnect by ourselves
  let typed = "";
  // This page's id: a page that reconnects while its old socket still holds the seat (a
  // network change the server has not noticed yet) takes the seat back without asking.
  const pageId = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  const FATAL = ["seat-taken", "taken-over", "unknown-seat", "bot-seat", "table-closed"];
  const FATAL_CLOSE = [4001, 4403, 4404, 4409, 4410];

  // -- the connection ---------------------------------------------------------------------

  function connect(takeover = false) {
    stopped = false;
    clearTimeout(retryTimer);
    retryTimer = null;
    if (socket) {
      const old = socket;
      socket = null;
      old.onclose = old.onmessage = old.onopen = null;
      old.close();
    }
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const query = `?client=${pageId}` + (takeover ? "&takeover=1" : "");
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(token)}${query}`);
    socket = ws;
    setConnection("connecting…");
    ws.onopen = () => {
      retry = 0;
      setConnection("connected");
    };
    ws.onmessage = (event) => {
      if (ws === socket) receive(JSON.parse(event.data));
    };
    ws.onclose = (event) => {
      if (ws !== socket) return; // an old socket, replaced
      socket = null;
      if (FATAL_CLOSE.includes(event.code)) stopped = true;
      setConnection(stopped ? "disconnected" : "reconnecting…");
      if (!stopped) {
        const wait = Math.min(10000, 500 * 2 ** retry++);
        retryTimer = setTimeout(() => connect(), wait);
      }
    };
  }

  // back on the network, or back to the tab: try at once rather than at the next retry
  function reconnectNow() {
    if (!stopped && !socket) connect();
  }
  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") reconnectNow();
  });

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
    } else {
      showError("not connected: the message was not sent (reconnecting…)");
    }
  }

  function act(action) {
    showError("");
    send({ type: "action", action, hand: state ? state.number : undefined });
  }

  function setConnection(text) {
    $("connection").textContent = text;
    document.body.dataset.connection = text;
  }

  function receive(message) {
    if (message.type === "state") {
      state = message;
      draw();
      document.body.dataset.states = Number(document.body.dataset.states || 0) + 1;
    } else if (message.type === "error") {
      if (FATAL.includes(message.code)) stopped = true;
      showError(message.message, message.code);
    }
  }

  function showError(text, code) {
    const box = $("error");
    box.textContent = text;
    box.dataset.code = code || "";
    if (code === "seat-taken" || code === "taken-over") {
      const button = document.createElement("button");
      button.textContent = "Take over this seat here";
      button.onclick = () => {
        showError("");
        connect(true);
      };
      box.append(button);
    }
  }

  // -- drawing ------------------------------------------------------------------------------

  function seatName(seat) {
    const info = state.seats[seat];
    if (seat === state.seat) return `seat ${seat} · you`;
    return `seat ${seat} · ` + (info.player === "bot" ? `${info.bot} bot` : "person");
  }

  function legalPlays() {
    return state.legal.filter((a) => a.startsWith("play "));
  }

  function draw() {
    const me = state.seat;
    $("rules").textContent = state.rules;
    const m = state.match;
    let info = `table ${state.table} · hand ${state.number}`;
    if (m.max_hands) info += ` of ${m.max_hands}`;
    if (m.target) info += ` · match to ±${m.target}`;
    if (state.format === "2v2") info += " · 2 against 2, your partner opposite";
    info += ` · totals ${m.totals.join(" / ")}`;
    $("hand-info").textContent = info;

    for (let r = 1; r < 4; r++) drawSeat((me + r) % 4, POSITIONS[r]);
    drawTrick();
    drawMe();
    drawAfter();
  }

  function drawSeat(seat, position) {
    const box = $("seat-" + position);
    const info = state.seats[seat];
    box.replaceChildren();
    box.className = `seat ${position}` + (state.to_move === seat ? " turn" : "") + (info.connected ? "" : " offline");
    box.dataset.seat = seat;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = seatName(seat);
    const meta = document.createElement("div");
    meta.className = "meta";
    const taken = state.tricks.filter((t) => t.winner === seat).length;
    meta.textContent = `${state.holding_sizes[seat]} cards · ${taken} trick${taken === 1 ? "" : "s"} won`;
    box.append(name, meta, GZ.backs(state.holding_sizes[seat]), GZ.shows(state.shows, seat));
  }

  function drawTrick() {
    const box = $("trick");
    box.replaceChildren();
    let plays = state.current_trick;
    let winner = null;
    let note = "";
    const last = state.tricks[state.tricks.length - 1];
    box.classList.toggle("last-trick", plays.length === 0 && !!last);
    if (plays.length === 0 && last) {
      plays = last.plays;
      winner = last.winner;
      note = `trick ${state.tricks.length}: seat ${last.winner} wins` + (last.taker !== last.winner ? `; seat ${last.taker} takes the points (垫牌)` : "");
    } else if (state.phase === "play") {
      note = `trick ${state.tricks.length + 1}`;
    } else {
      note = { "first-show": "首明", show: "亮牌: showing", over: "" }[state.phase] || "";
    }
    for (const play of plays) {
      const spot = document.createElement("div");
      const r = (play.seat - state.seat + 4) % 4;
      spot.className = `played pos-${POSITIONS[r]}` + (play.seat === winner ? " winner" : "");
      spot.dataset.seat = play.seat;
      for (const c of play.cards) spot.append(GZ.card(c));
      box.append(spot);
    }
    const text = document.createElement("div");
    text.className = "note";
    text.textContent = note;
    box.append(text);
  }

  function statusText() {
    if (state.phase === "over") return state.match.over ? "The match is over." : "The hand is over.";
    const who = state.to_move;
    if (who !== state.seat) {
      const waiting = state.seats[who].connected ? "" : " (offline: the table waits)";
      return `Waiting for ${seatName(who)}${waiting}.`;
    }
    if (state.phase === "play") return "Your turn: play a highlighted card.";
    if (state.phase === "first-show") return "Your turn (首明): first-show your first card?";
    return "Your turn (亮牌): show cards, or nothing.";
  }

  function drawMe() {
    const me = state.seat;
    const myTurn = state.to_move === me;
    $("me").classList.toggle("turn", myTurn);
    $("status").textContent = statusText();
    $("my-shows").replaceChildren(GZ.shows(state.shows, me));

    // the show phases (and pairs in two-deck play): the legal actions as buttons
    const actions = $("actions");
    actions.replaceChildren();
    const buttons = state.phase === "play" ? legalPlays().filter((a) => a.split(" ").length > 2) : state.legal;
    buttons.forEach((action, index) => {
      const b = document.createElement("button");
      b.dataset.action = action;
      b.title = action;
      if (state.phase !== "play" && index < 9) b.append(`${index + 1}. `);
      const [verb, ...cards] = action.split(" ");
      if (cards[0] === "-") {
        b.append(verb === "first-show" ? "no 首明" : verb === "sell" ? "sell nothing" : "show nothing");
      } else {
        b.append({ show: "show ", "first-show": "首明 ", sell: "暗卖 sell ", play: "play " }[verb] || verb + " ");
        for (const c of cards) b.append(GZ.card(c, { small: true }));
      }
      b.onclick = () => act(action);
      actions.append(b);
    });

    const plays = legalPlays();
    const holding = document.createElement("div");
    holding.className = "cards";
    for (const c of GZ.sorted(state.holding)) {
      const b = GZ.card(c, { tag: "button" });
      const mine = plays.filter((a) => a.split(" ").includes(c));
      if (myTurn && state.phase === "play") b.classList.add(mine.length ? "legal" : "illegal");
      b.onclick = () => clickCard(c, mine);
      holding.append(b);
    }
    $("holding").replaceChildren(holding);
  }

  function clickCard(text, candidates) {
    if (state.phase !== "play") return;
    if (state.to_move !== state.seat) {
      act("play " + text); // the server explains whose turn it is
      return;
    }
    const single = candidates.find((a) => a === "play " + text);
    if (single) return act(single);
    if (candidates.length === 1) return act(candidates[0]);
    if (candidates.length === 0) return act("play " + text); // the engine says why not
    for (const b of $("actions").querySelectorAll("button")) {
      b.classList.toggle("selected", candidates.includes(b.dataset.action));
    }
  }

  function drawAfter() {
    const after = $("after");
    after.replaceChildren();
    if (state.sheet) {
      const names = [0, 1, 2, 3].map(seatName);
      after.append(GZ.sheet(state.sheet, { names, totals: state.match.totals }));
    }
    const bar = document.createElement("div");
    bar.className = "actions";
    if (state.can_deal) {
      const next = document.createElement("button");
      next.id = "next-hand";
      next.textContent = "Deal the next hand";
      next.onclick = () => send({ type: "next" });
      bar.append(next);
    }
    if (state.match.over && state.match.losers) {
      const p = document.createElement("p");
      p.textContent = `Match over: the losers (当猪) are seat ${state.match.losers.join(", seat ")}.`;
      after.append(p);
    }
    for (let n = 1; n <= state.records; n++) {
      const url = `/record/${encodeURIComponent(token)}/${n}.json`;
      const link = document.createElement("a");
      link.href = url;
      link.download = `gongzhu-${state.table}-hand-${n}.json`;
      link.textContent = `hand ${n} record`;
      const view = document.createElement("a");
      view.href = "/viewer?record=" + encodeURIComponent(url);
      view.target = "_blank";
      view.textContent = "(view)";
      const span = document.createElement("span");
      span.append(link, " ", view);
      bar.append(span);
    }
    if (state.records > 1) {
      const link = document.createElement("a");
      link.href = `/record/${encodeURIComponent(token)}/match.json`;
      link.download = `gongzhu-${state.table}-match.json`;
      link.textContent = "match record";
      bar.append(link);
    }
    after.append(bar);
  }

  // -- the keyboard -------------------------------------------------------------------------

  function holdingButtons() {
    return [...$("holding").querySelectorAll("button.card")];
  }

  document.addEventListener("keydown", (event) => {
    if (!state || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key === "ArrowLeft" || key === "ArrowRight") {
      const cards = holdingButtons();
      const legal = cards.filter((b) => b.classList.contains("legal"));
      const pool = legal.length ? legal : cards;
      if (!pool.length) return;
      const at = pool.indexOf(document.activeElement);
      const step = key === "ArrowRight" ? 1 : -1;
      const next = at < 0 ? (step > 0 ? 0 : pool.length - 1) : (at + step + pool.length) % pool.length;
      pool[next].focus();
      event.preventDefault();
      return;
    }
    if (key === "n" && state.can_deal) {
      send({ type: "next" });
      return;
    }
    if (state.phase !== "play" && /^[1-9]$/.test(key)) {
      const b = $("actions").querySelectorAll("button")[Number(key) - 1];
      if (b) b.click();
      return;
    }
    if (state.phase === "play" && /^[0-9tjqkashdc]$/i.test(key)) {
      typed = (typed + key.toUpperCase()).slice(-3);
      const m = typed.match(/(10|[2-9TJQKA])([SHDC])$/);
      if (m) {
        typed = "";
        const card = (m[1] === "10" ? "T" : m[1]) + m[2];
        const b = holdingButtons().find((x) => x.dataset.card === card);
        if (b) b.click();
        else showError(`you do not hold ${GZ.symbol(card)}`);
      }
    }
  });

  connect();
})();
