// The web table's generic part: start page, API calls, bot pacing, move log, legal-move list.
// Each game's table is drawn by APP.tables[game] (scout.js, sly.js): render(root, table, ctx).
"use strict";

const APP = {
  tables: {},
  setup: null,
  table: null,       // the last table (GET /api/games/{id}) received
  shown: null,       // the table currently drawn (during bot replays: an older view)
  busy: false,       // a request or a replay is running: no clicks are taken
  skip: false,
  COLORS: ["#c0392b", "#2e6fd0", "#2f9a47", "#9b59b6", "#d68910"],

  $(id) { return document.getElementById(id); },

  // parent.append(...children) without the null/undefined ones (optional parts of a table).
  put(parent, ...children) {
    parent.append(...children.flat().filter(c => c !== null && c !== undefined && c !== false));
  },

  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  },

  async api(method, path, body) {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: `HTTP ${res.status}` }; }
    if (!res.ok) {
      const err = new Error(data.error || `HTTP ${res.status}`);
      err.status = res.status;
      err.data = data;
      throw err;
    }
    return data;
  },

  showError(msg) {
    const box = APP.$("error");
    box.textContent = msg || "";
    box.hidden = !msg;
  },

  pace() { return Number(localStorage.getItem("sly-scout-pace") ?? 700); },

  // -- routing ---------------------------------------------------------------------------
  async boot() {
    const pace = APP.$("pace");
    pace.value = APP.pace();
    const label = () => { APP.$("pace-label").textContent = `${(pace.value / 1000).toFixed(1)} s`; };
    label();
    pace.addEventListener("input", () => { localStorage.setItem("sly-scout-pace", pace.value); label(); });
    APP.$("skip-btn").addEventListener("click", () => { APP.skip = true; });
    APP.$("new-btn").addEventListener("click", () => { location.hash = ""; });
    APP.$("rematch-btn").addEventListener("click", APP.rematch);
    APP.$("move-filter").addEventListener("input", () => APP.drawMoves(APP.shown));
    APP.$("upload").addEventListener("change", APP.upload);
    APP.$("setup-form").addEventListener("submit", APP.start);
    window.addEventListener("hashchange", APP.route);
    try {
      APP.setup = await APP.api("GET", "/api/setup");
    } catch (e) { APP.showError(`The server did not answer: ${e.message}`); return; }
    APP.drawSetup();
    await APP.route();
  },

  gameId() {
    const m = location.hash.match(/^#game=([A-Za-z0-9_-]+)$/);
    return m ? m[1] : null;
  },

  async route() {
    APP.showError("");
    const id = APP.gameId();
    APP.$("start-page").hidden = !!id;
    APP.$("table-page").hidden = !id;
    if (!id) {
      APP.table = APP.shown = null;
      APP.$("header-info").textContent = "";
      await APP.drawGameList();
      return;
    }
    try {
      APP.table = await APP.api("GET", `/api/games/${id}`);
    } catch (e) {
      APP.showError(e.message);
      APP.$("table-page").hidden = true;
      APP.$("start-page").hidden = false;
      await APP.drawGameList();
      return;
    }
    APP.draw(APP.table);
  },

  // -- start page --------------------------------------------------------------------------
  gameSpec(name) { return APP.setup.games.find(g => g.name === name); },

  drawSetup() {
    const choice = APP.$("game-choice");
    choice.replaceChildren();
    APP.setup.games.forEach((g, i) => {
      choice.append(APP.el("label", {},
        APP.el("input", { type: "radio", name: "game", value: g.name, checked: i === 0, onchange: APP.drawSetupGame }),
        ` ${g.title} (${g.player_counts[0]}–${g.player_counts[g.player_counts.length - 1]} players)`));
    });
    APP.$("players").addEventListener("change", APP.drawSeats);
    APP.drawSetupGame();
  },

  selectedGame() { return document.querySelector("input[name=game]:checked").value; },

  drawSetupGame() {
    const g = APP.gameSpec(APP.selectedGame());
    const players = APP.$("players");
    players.replaceChildren(...g.player_counts.map(n =>
      APP.el("option", { value: n, selected: n === g.default_players, text: String(n) })));
    const opts = APP.$("options");
    opts.replaceChildren();
    for (const o of g.options) {
      let input;
      if (o.choices) {
        input = APP.el("select", { id: `opt-${o.name}`, "data-option": o.name },
          o.choices.map(c => APP.el("option", { value: JSON.stringify(c), selected: c === o.default,
            text: `${c === null ? "official (None)" : c}${c === o.default ? " (default)" : ""}` })));
      } else {
        input = APP.el("input", { id: `opt-${o.name}`, "data-option": o.name, type: "number", min: 1, max: 100,
          placeholder: `default: ${o.default === null ? "official" : o.default}` });
      }
      opts.append(APP.el("div", { class: "option" },
        APP.el("label", { for: `opt-${o.name}` }, APP.el("code", { text: o.name }), " "), input,
        APP.el("div", { class: "help", text: o.help })));
    }
    APP.drawSeats();
  },

  drawSeats() {
    const g = APP.gameSpec(APP.selectedGame());
    const n = Number(APP.$("players").value);
    const seat = APP.$("seat");
    const old = Number(seat.value || 0);
    seat.replaceChildren(...Array.from({ length: n }, (_, s) =>
      APP.el("option", { value: s, selected: s === Math.min(old, n - 1), text: `seat ${s}` })));
    seat.onchange = APP.drawBots;
    APP.drawBots();
  },

  drawBots() {
    const g = APP.gameSpec(APP.selectedGame());
    const n = Number(APP.$("players").value);
    const me = Number(APP.$("seat").value);
    const box = APP.$("bots");
    const prev = Array.from(box.querySelectorAll("select")).map(s => s.value);
    box.replaceChildren();
    let k = 0;
    for (let s = 0; s < n; s++) {
      if (s === me) continue;
      const select = APP.el("select", { id: `bot-${s}`, "data-seat": s },
        g.bots.map(b => APP.el("option", { value: b.spec, text: b.name })));
      select.value = prev[k] || (g.bots.find(b => b.spec === "greedy") || g.bots[0]).spec;
      const help = APP.el("div", { class: "help" });
      const params = APP.el("span", {});
      const update = () => {
        const b = g.bots.find(x => x.spec === select.value);
        help.textContent = b.description;
        params.replaceChildren(...Object.entries(b.params).map(([key, [lo, hi]]) =>
          APP.el("label", {}, `${key} `, APP.el("input", { type: "number", "data-param": key, min: lo, max: hi,
            step: Number.isInteger(lo) ? 1 : "any", placeholder: "default", size: 6 }))));
      };
      select.addEventListener("change", update);
      update();
      box.append(APP.el("div", { class: "option" },
        APP.el("label", { for: `bot-${s}` }, `seat ${s}: `), select, " ", params, help));
      k++;
    }
  },

  setupBody() {
    const game = APP.selectedGame();
    const g = APP.gameSpec(game);
    const body = { game, players: Number(APP.$("players").value), seat: Number(APP.$("seat").value),
                   bots: [], options: {} };
    for (const div of APP.$("bots").children) {
      const select = div.querySelector("select");
      let spec = select.value;
      for (const inp of div.querySelectorAll("input[data-param]")) {
        if (inp.value !== "") spec += `:${inp.dataset.param}=${inp.value}`;
      }
      body.bots.push(spec);
    }
    for (const o of g.options) {
      const inp = APP.$(`opt-${o.name}`);
      if (o.choices) body.options[o.name] = JSON.parse(inp.value);
      else if (inp.value !== "") body.options[o.name] = Number(inp.value);
    }
    const seed = APP.$("seed").value;
    if (seed !== "") body.seed = Number(seed);
    return body;
  },

  async start(ev) {
    ev.preventDefault();
    APP.showError("");
    APP.$("start-btn").disabled = true;
    try {
      const t = await APP.api("POST", "/api/games", APP.setupBody());
      APP.openTable(t);
    } catch (e) { APP.showError(e.message); }
    finally { APP.$("start-btn").disabled = false; }
  },

  openTable(t) {
    APP.table = t;
    APP.replayed = t.log.length;
    history.pushState(null, "", `#game=${t.id}`);
    APP.$("start-page").hidden = true;
    APP.$("table-page").hidden = false;
    APP.draw(t);
  },

  async drawGameList() {
    const ul = APP.$("game-list");
    let list = [];
    try { list = (await APP.api("GET", "/api/games")).games; } catch (e) { APP.showError(e.message); }
    ul.replaceChildren(...list.map(g => APP.el("li", {},
      APP.el("a", { href: `#game=${g.id}`, text: `${g.game}, ${g.players} players vs ${g.opponents.join(", ")}` }),
      ` — ${g.over ? "finished" : `${g.moves_played} moves played`} `,
      APP.el("button", { type: "button", "aria-label": `delete game ${g.id}`, text: "Delete",
        onclick: async () => { await APP.api("DELETE", `/api/games/${g.id}`); APP.drawGameList(); } }))));
    if (!list.length) ul.append(APP.el("li", { class: "help", text: "No games yet." }));
  },

  async upload(ev) {
    const file = ev.target.files[0];
    if (!file) return;
    APP.showError("");
    try {
      const t = await APP.api("POST", "/api/games/upload", await file.text());
      APP.openTable(t);
    } catch (e) { APP.showError(`Upload refused: ${e.message}`); }
    ev.target.value = "";
  },

  async rematch() {
    try {
      APP.openTable(await APP.api("POST", `/api/games/${APP.table.id}/rematch`));
    } catch (e) { APP.showError(e.message); }
  },

  // -- the table -----------------------------------------------------------------------------
  who(t, s) {
    const seat = t.seating[s];
    return s === t.seat ? `player_${s} (you)` : `player_${s} (${seat.name})`;
  },

  draw(t) {
    APP.shown = t;
    APP.$("header-info").textContent = `${t.title}, ${t.players} players, seed ${t.seed}`;
    const table = APP.tables[t.game];
    const root = APP.$("board");
    root.replaceChildren();
    table.render(root, t, APP.ctx(t));
    APP.drawStatus(t);
    APP.drawMoves(t);
    APP.drawLog(t);
    APP.drawResult(t);
    APP.$("download-link").href = `/api/games/${t.id}/save`;
    APP.$("download-link").setAttribute("download", `sly-scout-${t.game}-${t.id}.json`);
    APP.$("rematch-btn").hidden = !t.over;
  },

  ctx(t) {
    return {
      play: APP.play,
      legal: t.your_turn && !APP.busy ? t.legal : [],
      who: s => APP.who(t, s),
      color: s => APP.COLORS[s % APP.COLORS.length],
      el: APP.el,
      redraw: () => APP.draw(APP.shown),
    };
  },

  drawStatus(t) {
    const st = APP.$("status");
    st.classList.toggle("thinking", APP.busy && !t.over);
    if (t.over) st.textContent = "The match is over.";
    else if (APP.busy) st.textContent = t.to_act === t.seat ? "Playing your move" : `${APP.who(t, t.to_act)} is thinking`;
    else if (t.your_turn) st.textContent = "Your turn.";
    else {  // a bot's turn with nothing running: a bot failed earlier
      st.textContent = `${APP.who(t, t.to_act)} to act. `;
      st.append(APP.el("button", { type: "button", id: "bots-go-on", text: "Let the bots go on", onclick: () => APP.play(null) }));
    }
  },

  drawMoves(t) {
    const ol = APP.$("move-list");
    if (!t) return;
    const want = APP.$("move-filter").value.trim().toLowerCase();
    const legal = t.your_turn && !APP.busy ? t.legal : [];
    ol.replaceChildren(...legal.filter(m => m.text.toLowerCase().includes(want)).map(m => APP.el("li", {},
      APP.el("button", { type: "button", "data-action": m.id, text: m.text, onclick: () => APP.play(m.id) }))));
    if (!legal.length) ol.append(APP.el("li", { class: "help", text: t.over ? "No moves: the match is over." : "Not your turn." }));
  },

  drawLog(t) {
    const ol = APP.$("log");
    const n = APP.replaying ? APP.replayed : t.log.length;
    ol.replaceChildren(...t.log.slice(0, n).map(e => APP.el("li", { class: e.seat === t.seat ? "mine" : null },
      e.lines[0], e.lines.length > 1 ? APP.el("span", { class: "detail", text: e.lines.slice(1).map(l => l.trim()).join("\n") }) : null)));
    ol.scrollTop = ol.scrollHeight;
  },

  drawResult(t) {
    const box = APP.$("result");
    box.hidden = !t.over;
    if (!t.over) { box.replaceChildren(); return; }
    const r = t.result;
    const order = [...r.scores.keys()].sort((a, b) => r.scores[b] - r.scores[a]);
    const win = r.winners.includes(t.seat)
      ? (r.winners.length === 1 ? "You win!" : "You share the win.")
      : `Winner${r.winners.length > 1 ? "s" : ""}: ${r.winners.map(s => APP.who(t, s)).join(", ")}.`;
    box.replaceChildren(APP.el("h2", { id: "final-scores", text: "Final scores" }),
      APP.el("table", {}, order.map(s => APP.el("tr", {}, APP.el("th", { text: APP.who(t, s) }),
        APP.el("td", { text: (r.scores[s] > 0 ? "+" : "") + r.scores[s] })))),
      APP.el("p", { id: "winner", text: win }));
  },

  sleep(ms) {
    return new Promise(resolve => {
      const t0 = performance.now();
      const tick = () => (APP.skip || performance.now() - t0 >= ms) ? resolve() : setTimeout(tick, 30);
      tick();
    });
  },

  // Play action ``id``, then replay the bots' answers one by one at the chosen pace.
  async play(id) {
    if (APP.busy || !APP.table) return;
    const before = APP.table;
    APP.busy = true;
    APP.skip = false;
    APP.showError("");
    APP.draw(before);
    let res;
    try {
      res = await APP.api("POST", `/api/games/${before.id}/moves`, { action: id, turn: before.moves_played });
    } catch (e) {
      APP.busy = false;
      APP.showError(`That move was refused: ${e.message}`);
      if (e.status === 404 || (e.data && e.data.field === "turn")) { await APP.route(); return; }
      if (e.data && e.data.table) APP.table = e.data.table;  // a bot failed: the game as it stands
      APP.draw(APP.table);
      return;
    }
    APP.replaying = true;
    APP.replayed = before.log.length;
    const final = res.table;
    for (let i = 0; i < res.events.length; i++) {
      const ev = res.events[i];
      APP.replayed += 1;
      const step = Object.assign({}, final, { view: ev.view, to_act: ev.to_act, your_turn: false,
        over: i === res.events.length - 1 ? final.over : false, legal: [] });
      APP.draw(step);
      if (ev.seat !== before.seat && i < res.events.length - 1) await APP.sleep(APP.pace());
    }
    APP.replaying = false;
    APP.busy = false;
    APP.table = final;
    APP.draw(final);
  },
};
window.APP = APP;
