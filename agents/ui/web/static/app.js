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
      else if (k === "style") e.style.cssText = v;  // through the CSSOM: the CSP refuses style attributes
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  },

  async api(method, path, body) {
    const opts = { method, headers: {} };
    // Every request that changes something is JSON (the server refuses anything else).
    if (method !== "GET") opts.headers["Content-Type"] = "application/json";
    if (body !== undefined) opts.body = typeof body === "string" ? body : JSON.stringify(body);
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
    APP.$("last-round-btn").addEventListener("click", APP.showLastRound);
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
    APP.review = null;
    if (APP.paused) APP.resume();  // a replay waiting between rounds of the game left: it stops there
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
          o.choices.map((c, i) => APP.el("option", { value: JSON.stringify(c), selected: c === o.default,
            text: o.choice_labels[i] })));
      } else {
        input = APP.el("input", { id: `opt-${o.name}`, "data-option": o.name, type: "number", min: 1, max: 100,
          placeholder: o.default === null ? "official" : String(o.default) });
      }
      opts.append(APP.el("div", { class: "option" },
        APP.el("label", { for: `opt-${o.name}`, text: `${o.label} ` }), input,
        APP.el("div", { class: "help", text: o.words })));
    }
    APP.drawSeats();
  },

  drawSeats() {
    const n = Number(APP.$("players").value);
    const seat = APP.$("seat");
    const old = Number(seat.value || 0);
    seat.replaceChildren(...Array.from({ length: n }, (_, s) =>
      APP.el("option", { value: s, selected: s === Math.min(old, n - 1),
        text: `Seat ${s + 1}${s === 0 ? " (plays first)" : ""}` })));
    seat.onchange = APP.drawBots;
    APP.drawBots();
  },

  // The opponents a seat may get: the levels first (Easy, Medium, Hard), then every bot by name.
  choicesFor(g, n) {
    const out = [];
    for (const lv of g.levels) {
      if (!lv.players.includes(n)) continue;
      // A level may play another bot at some tables (Hard: the strongest measured there).
      const spec = lv.specs[String(n)];
      const bot = g.bots.find(b => b.spec === spec.split(":")[0]);
      let label = `${lv.level}: ${lv.bots[String(n)]}`;
      let note = "";
      if (lv.seconds && lv.seconds[String(n)]) {
        const [med, top] = lv.seconds[String(n)];
        note = ` About ${med.toFixed(2)} s per move with ${n} players (up to ${top.toFixed(2)} s), `
          + "measured on a 2-core machine.";
        label += ` (about ${med.toFixed(2)} s a move)`;
      }
      out.push({ value: `level:${lv.level}`, spec, label, group: "Levels", params: {},
                 description: `${lv.level}: ${bot ? bot.description : lv.bots[String(n)]}.${note}` });
    }
    for (const b of g.bots) {
      if (b.players && !b.players.includes(n)) continue;
      out.push({ value: b.spec, spec: b.spec, label: b.label || b.name, group: "Bots", params: b.params,
                 description: b.description });
    }
    return out;
  },

  drawBots() {
    const g = APP.gameSpec(APP.selectedGame());
    const n = Number(APP.$("players").value);
    const me = Number(APP.$("seat").value);
    const box = APP.$("bots");
    const prev = Array.from(box.querySelectorAll("select")).map(s => s.value);
    const choices = APP.choicesFor(g, n);
    box.replaceChildren();
    let k = 0;
    for (let s = 0; s < n; s++) {
      if (s === me) continue;
      const groups = ["Levels", "Bots"].map(name => APP.el("optgroup", { label: name },
        choices.filter(c => c.group === name).map(c => APP.el("option", { value: c.value, text: c.label }))));
      const select = APP.el("select", { id: `bot-${s}`, "data-seat": s }, groups);
      const keep = prev[k] && choices.some(c => c.value === prev[k]);
      select.value = keep ? prev[k] : "level:Easy";
      const help = APP.el("div", { class: "help" });
      const params = APP.el("span", {});
      const update = () => {
        const b = choices.find(x => x.value === select.value);
        help.textContent = b.description;
        params.replaceChildren(...Object.entries(b.params).map(([key, [lo, hi]]) =>
          APP.el("label", {}, `${key.replace("_", " ")} `, APP.el("input", { type: "number", "data-param": key,
            min: lo, max: hi, step: Number.isInteger(lo) ? 1 : "any", placeholder: "default", size: 6 }))));
      };
      select.addEventListener("change", update);
      update();
      box.append(APP.el("div", { class: "option" },
        APP.el("label", { for: `bot-${s}`, text: `Seat ${s + 1}: ` }), select, " ", params, help));
      k++;
    }
  },

  setupBody() {
    const game = APP.selectedGame();
    const g = APP.gameSpec(game);
    const body = { game, players: Number(APP.$("players").value), seat: Number(APP.$("seat").value),
                   bots: [], options: {} };
    const choices = APP.choicesFor(g, body.players);
    for (const div of APP.$("bots").children) {
      const select = div.querySelector("select");
      let spec = choices.find(c => c.value === select.value).spec;
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
    // The seed stays a string: seeds go up to 2^63 - 1, and a JavaScript number holds
    // integers exactly only up to 2^53 (the server takes and answers seeds as strings).
    const seed = APP.$("seed").value.trim();
    if (seed !== "") body.seed = seed;
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

  when(t) {
    return new Date(t * 1000).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric",
                                                           hour: "2-digit", minute: "2-digit" });
  },

  async drawGameList() {
    const ul = APP.$("game-list");
    let list = [];
    try { list = (await APP.api("GET", "/api/games")).games; } catch (e) { APP.showError(e.message); }
    ul.replaceChildren(...list.map(g => APP.el("li", {},
      APP.el("a", { href: `#game=${g.id}`,
        text: `${g.title}, ${g.players} players, against ${g.opponent_labels.join(", ")}` }),
      ` — ${g.over ? "finished" : `${APP.plural(g.moves_played, "move")} played`}; started ${APP.when(g.created)}, `
        + `last move ${APP.when(g.updated)} `,
      APP.el("button", { type: "button", "aria-label": `delete the game started ${APP.when(g.created)}`,
        text: "Delete",
        onclick: async () => { await APP.api("DELETE", `/api/games/${g.id}`); APP.drawGameList(); } }))));
    if (!list.length) ul.append(APP.el("li", { class: "help", text: "No games yet." }));
    const skipped = (APP.setup && APP.setup.skipped_saves) || [];
    APP.$("skipped").hidden = !skipped.length;
    APP.$("skipped").textContent = skipped.length
      ? `${APP.plural(skipped.length, "file")} in the server's game folder could not be loaded; `
        + "they were moved to its set-aside folder (the server's log names them)." : "";
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
  plural(n, one, many) { return `${n} ${n === 1 ? one : (many || one + "s")}`; },
  signed(x) { return x > 0 ? `+${x}` : x < 0 ? `\u2212${-x}` : "0"; },

  who(t, s) { return t.seating[s].name; },
  whose(t, s) { return s === t.seat ? "your" : `${t.seating[s].name}'s`; },

  draw(t) {
    APP.shown = t;
    APP.$("header-info").textContent = `${t.title}, ${t.players} players, seed ${t.seed}`;
    const table = APP.tables[t.game];
    const root = APP.$("board");
    root.replaceChildren();
    const paused = APP.paused && APP.paused.summary;
    if (paused) {  // between rounds: the summary alone (the next deal is not shown before the button)
      APP.drawSummary(root, t, paused, true);
    } else {
      const review = APP.review || (t.over ? t.round_end : null);
      if (review) APP.drawSummary(root, t, review, false);
      table.render(root, t, APP.ctx(t));
    }
    APP.drawStatus(t);
    APP.drawMoves(t);
    APP.drawLog(t);
    APP.drawResult(t);
    APP.$("download-link").href = `/api/games/${t.id}/save`;
    APP.$("download-link").setAttribute("download", `sly-scout-${t.game}-${t.id}.json`);
    APP.$("rematch-btn").hidden = !t.over;
    const last = APP.$("last-round-btn");
    last.hidden = !(t.round_end && !t.over && !APP.busy && !APP.review);
  },

  ctx(t) {
    return {
      play: APP.play,
      legal: t.your_turn && !APP.busy ? t.legal : [],
      who: s => APP.who(t, s),
      whose: s => APP.whose(t, s),
      color: s => APP.COLORS[s % APP.COLORS.length],
      el: APP.el,
      plural: APP.plural,
      redraw: () => APP.draw(APP.shown),
    };
  },

  // A round's (or the match's) end, like at a real table: every hand face up, how each score came about.
  drawSummary(root, t, sum, paused) {
    const el = APP.el, who = s => APP.who(t, s);
    const box = el("section", { id: "round-end", class: "summary", "aria-live": "polite" });
    let title;
    if (sum.game === "sly") title = "The final flip: the game is over";
    else if (sum.last) title = `Round ${sum.round + 1} of ${sum.rounds} is over: the match is over`;
    else title = `Round ${sum.round + 1} of ${sum.rounds} is over`;
    APP.put(box, el("h2", { text: title }), el("p", { class: "why", id: "round-end-why", text: APP.why(t, sum) }));
    if (sum.game === "sly") APP.put(box, APP.slySummaryTable(t, sum));
    else APP.put(box, APP.scoutSummaryTable(t, sum));
    if (sum.hidden) APP.put(box, el("p", { class: "help", text: `Not shown: ${sum.hidden}.` }));
    if (paused) {
      APP.put(box, el("button", { type: "button", id: "btn-next-round", class: "primary",
        text: `Deal round ${sum.round + 2}`, onclick: () => APP.resume() }));
    } else if (APP.review) {
      APP.put(box, el("button", { type: "button", id: "btn-close-summary", text: "Close",
        onclick: () => { APP.review = null; APP.draw(APP.shown); } }));
    }
    root.append(box);
  },

  why(t, sum) {
    const who = s => APP.who(t, s), me = t.seat;
    if (sum.game === "sly") {
      return sum.reason === "hand"
        ? `${who(sum.ender)} had to play holding at most one card, so the game ended: every face-down card was `
          + "turned face up (the final flip) and scored."
        : "Every space holds a Safe Hen, so the game ended and was scored.";
    }
    const owner = sum.ender, yours = owner === me;
    if (sum.reason === "i") {
      return `${who(owner)} ${yours ? "emptied your" : "emptied their"} hand, which ends the round. `
        + "Everyone else loses a point for every card left in hand.";
    }
    const kept = `${yours ? "Your" : `${who(owner)}'s`} set was never beaten, so ${yours ? "your" : "their"} `
      + "cards in hand cost nothing.";
    if (sum.players === 2) {
      const other = 1 - owner;
      return `${who(other)} could neither beat the active set nor Scout, which ends the round. ${kept}`;
    }
    return `The turn came back to ${who(owner)}, which ends the round. ${kept}`;
  },

  // One row per seat; numbers right-aligned in their own columns, so the table lines up.
  scoutSummaryTable(t, sum) {
    const el = APP.el, who = s => APP.who(t, s);
    const head = ["Player", "Cards left in hand", "Collected", "Chips", "Left in hand", "Round", "Total"];
    const rows = sum.seats.map(p => {
      const hand = p.hand === null
        ? el("span", { class: "help", text: `hidden (${APP.plural(p.hand_count, "card")})` })
        : el("div", { class: "cards mini" }, p.hand.length ? p.hand.map(c => el("div", { class: "card small",
          title: `${c[0]} in play, ${c[1]} below` }, el("span", { class: "up", text: String(c[0]) }),
          el("span", { class: "down", text: String(c[1]) }))) : el("span", { class: "help", text: "none" }));
      const chips = sum.chips_count ? APP.signed(p.chips_scored)
        : `0 (${APP.plural(p.chips, "chip")} held, not scored)`;
      const inHand = p.hand_counted ? APP.signed(-p.hand_count) : `0 (${APP.plural(p.hand_count, "card")} free)`;
      return el("tr", { "data-seat": p.seat, class: p.seat === t.seat ? "mine" : null },
        el("th", { text: who(p.seat) }), el("td", { class: "hand" }, hand),
        el("td", { class: "num", text: APP.signed(p.collected) }), el("td", { class: "num", text: chips }),
        el("td", { class: "num", text: inHand }), el("td", { class: "num score", text: APP.signed(p.score) }),
        el("td", { class: "num total", text: APP.signed(p.total) }));
    });
    return el("table", { class: "score-table", id: "summary-table" },
      el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { class: i > 1 ? "num" : null, text: h })))),
      el("tbody", {}, rows),
      el("caption", { text: "Round score = collected cards + scored chips \u2212 cards left in hand." }));
  },

  slySummaryTable(t, sum) {
    const el = APP.el, who = s => APP.who(t, s), NAME = c => (c === 0 ? "Fox" : `Hen ${c}`);
    const head = ["Player", "Hand left", "Safe Hens", "Gobbled", "Captured Foxes", "Total"];
    const rows = sum.seats.map(p => el("tr", { "data-seat": p.seat, class: p.seat === t.seat ? "mine" : null },
      el("th", { text: who(p.seat) }),
      el("td", { class: "hand" }, p.hand.length ? el("div", { class: "cards mini" }, p.hand.map(c =>
        el("div", { class: "sly-card small", style: `border-color:${APP.COLORS[p.seat % APP.COLORS.length]}`,
          text: NAME(c) }))) : el("span", { class: "help", text: "none" })),
      el("td", { class: "num", text: APP.signed(p.safe) }), el("td", { class: "num", text: APP.signed(p.gobbled) }),
      el("td", { class: "num", text: `${APP.signed(p.captured)} (${APP.plural(p.captured_foxes, "Fox", "Foxes")})` }),
      el("td", { class: "num total", text: APP.signed(p.score) })));
    return el("table", { class: "score-table", id: "summary-table" },
      el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { class: i > 1 ? "num" : null, text: h })))),
      el("tbody", {}, rows),
      el("caption", { text: `Total = Safe Hens on your spaces (their values) + Hens your Fox gobbled (others' add, `
        + `your own subtract) + ${sum.players} for every Fox you captured.` }));
  },

  drawStatus(t) {
    const st = APP.$("status");
    st.classList.toggle("thinking", APP.busy && !t.over && !APP.paused);
    if (APP.paused) st.textContent = "The round is over. Deal the next round when you are ready.";
    else if (t.over) st.textContent = "The match is over.";
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
      APP.el("table", { class: "score-table" }, order.map(s => APP.el("tr", {}, APP.el("th", { text: APP.who(t, s) }),
        APP.el("td", { class: "num", text: APP.signed(r.scores[s]) })))),
      APP.el("p", { id: "winner", text: win }));
  },

  sleep(ms) {
    return new Promise(resolve => {
      const t0 = performance.now();
      const tick = () => (APP.skip || performance.now() - t0 >= ms) ? resolve() : setTimeout(tick, 30);
      tick();
    });
  },

  // Between rounds the replay waits for the "Deal round N" button.
  waitForNextRound(summary, step) {
    return new Promise(resolve => {
      APP.paused = { summary, resolve };
      APP.draw(step);
      const btn = APP.$("btn-next-round");
      if (btn) btn.focus();
    });
  },

  resume() {
    const p = APP.paused;
    APP.paused = null;
    if (p) p.resolve();
  },

  showLastRound() {
    if (!APP.shown || !APP.shown.round_end) return;
    APP.review = APP.shown.round_end;
    APP.draw(APP.shown);
    APP.$("round-end").scrollIntoView({ block: "nearest" });
  },

  // Play action ``id``, then replay the bots' answers one by one at the chosen pace.
  async play(id) {
    if (APP.busy || !APP.table) return;
    const before = APP.table;
    APP.busy = true;
    APP.skip = false;
    APP.review = null;
    APP.showError("");
    APP.draw(before);
    let res;
    try {
      res = await APP.api("POST", `/api/games/${before.id}/moves`, { action: id, turn: before.moves_played });
    } catch (e) {
      APP.busy = false;
      let msg = `That move was refused: ${e.message}`;
      if (e.data && e.data.field === "turn") {
        msg = "That move was refused: the game had moved on (it was played in another tab or window). "
          + "The table now shows the game as it stands; make your move again.";
      }
      if (e.status === 404 || (e.data && e.data.field === "turn")) {
        await APP.route();  // the game as it stands (route clears the error box: the message is shown after)
        APP.showError(msg);
        return;
      }
      APP.showError(msg);
      if (e.data && e.data.table) APP.table = e.data.table;  // a bot failed: the game as it stands
      APP.draw(APP.table);
      return;
    }
    APP.replaying = true;
    APP.replayed = before.log.length;
    const final = res.table;
    for (let i = 0; i < res.events.length; i++) {
      const ev = res.events[i];
      // A bot's move waits for the pace first, so the move before it (yours, or another
      // bot's) stays on the table that long.
      if (ev.seat !== before.seat && i > 0) await APP.sleep(APP.pace());
      APP.replayed += 1;
      const step = Object.assign({}, final, { view: ev.view, to_act: ev.to_act, your_turn: false,
        over: i === res.events.length - 1 ? final.over : false, legal: [],
        round_end: ev.round_end || null });
      APP.draw(step);
      if (ev.round_end && !ev.round_end.last) {
        await APP.waitForNextRound(ev.round_end, step);
        if (APP.gameId() !== before.id) { APP.replaying = false; APP.busy = false; return; }  // the page moved on
      }
    }
    APP.replaying = false;
    APP.busy = false;
    APP.table = final;
    APP.draw(final);
  },
};
window.APP = APP;
