// The lobby: choose a ruleset and the players, open a table, hand out the seat links.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function option(value, text) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    return o;
  }

  async function load() {
    const info = await (await fetch("/api/info")).json();
    for (const v of info.variants.filter((v) => v.base)) {
      $("base").append(option(v.name, `${v.name} ${v.title}`));
    }
    for (const v of info.variants.filter((v) => !v.base)) {
      const label = document.createElement("label");
      label.title = v.summary;
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "modifier";
      box.value = v.name;
      label.append(box, ` ${v.name} ${v.title}`);
      $("modifiers").append(label);
    }
    for (let seat = 0; seat < 4; seat++) {
      const label = document.createElement("label");
      const select = document.createElement("select");
      select.id = "seat-" + seat;
      select.append(option(info.person, "a person"));
      for (const bot of info.bots) select.append(option(bot, `${bot} bot`));
      select.value = seat === 0 ? info.person : info.bots.includes("heuristic") ? "heuristic" : info.bots[0];
      label.append(`seat ${seat}: `, select);
      $("seats").append(label);
    }
  }

  async function submit(event) {
    event.preventDefault();
    $("error").textContent = "";
    const length = document.querySelector("input[name=length]:checked").value;
    const modifiers = [...document.querySelectorAll("input[name=modifier]:checked")].map((b) => b.value);
    const request = {
      rules: [$("base").value, ...modifiers],
      seats: [0, 1, 2, 3].map((s) => $("seat-" + s).value),
      format: $("format").value,
      hands: length === "hands" ? Number($("hands").value) : null,
      target: length === "target" ? Number($("target").value) : null,
      // as text: a 64-bit seed does not fit JavaScript's numbers
      seed: $("seed").value.trim() === "" ? null : $("seed").value.trim(),
    };
    const response = await fetch("/api/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    const answer = await response.json();
    if (!response.ok) {
      $("error").textContent = answer.message;
      return;
    }
    const list = $("link-list");
    list.replaceChildren();
    for (const seat of answer.seats) {
      const li = document.createElement("li");
      if (seat.link) {
        const a = document.createElement("a");
        a.href = seat.link;
        a.textContent = new URL(seat.link, location.href).href;
        a.className = "seat-link";
        li.append(`seat ${seat.seat}: `, a);
      } else {
        li.textContent = `seat ${seat.seat}: ${seat.player} bot`;
      }
      list.append(li);
    }
    $("links").hidden = false;
  }

  $("new-table").addEventListener("submit", submit);
  load().catch((err) => ($("error").textContent = "cannot reach the server: " + err));
})();
