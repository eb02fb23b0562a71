// The Sly table: Hen Houses with valued spaces, face-down cards in their owners' colours,
// Safe Hens, gobbled and captured piles. Lay = a card then a space; Expose = click an
// opponent's face-down card; Reveal = the house's button (or "Reveal all").
"use strict";

(function () {
  let S = { key: null, card: null };
  const NAME = c => (c === 0 ? "Fox" : `Hen ${c}`);

  function slyCard(el, card, owner, ctx, extra) {
    const style = `border-color:${ctx.color(owner)}`;
    if (card === null || card === undefined) {
      return el("div", Object.assign({ class: "sly-card down", style: `${style};background:${ctx.color(owner)}`,
        title: `${ctx.who(owner)}'s face-down card` }, extra || {}), "?");
    }
    return el("div", Object.assign({ class: "sly-card", style, title: `${ctx.who(owner)}'s ${NAME(card)}` }, extra || {}),
      NAME(card));
  }

  function render(root, t, ctx) {
    const el = ctx.el, v = t.view, me = t.seat, legal = ctx.legal, n = t.players;
    const key = `${t.id}:${t.moves_played}:${legal.length}`;
    if (S.key !== key) S = { key, card: null };
    const lays = legal.filter(m => m.move.type === "lay");
    const exposes = legal.filter(m => m.move.type === "expose");
    const reveals = legal.filter(m => m.move.type === "reveal");

    // -- players -----------------------------------------------------------------------------
    const seats = el("div", { class: "seats" });
    for (let s = 0; s < n; s++) {
      const gob = v.gobbled[s].map(g => `${g.owner === s ? "own" : `player_${g.owner}'s`} ${NAME(g.card)}`);
      const cap = v.captured[s].map(o => `player_${o}'s Fox`);
      const known = s === me ? [] : v.hands[s].filter(c => c !== null);
      APP.put(seats, el("div", { class: `seat-box${!v.game_over && v.current_player === s ? " to-act" : ""}`, "data-seat": s },
        el("div", {}, el("span", { class: "swatch", style: `background:${ctx.color(s)}` }), el("b", { text: ctx.who(s) }),
          el("span", { class: "tag", text: `score ${v.scores[s]}` })),
        el("div", { class: "pile", text: `${v.hand_sizes[s]} cards in hand` + (known.length ? ` (known: ${known.map(NAME).join(", ")})` : "") }),
        el("div", { class: "pile", text: `gobbled: ${gob.length ? gob.join(", ") : "none"}` }),
        el("div", { class: "pile", text: `captured: ${cap.length ? cap.join(", ") : "none"}` })));
    }
    APP.put(root, seats);

    // -- the Hen Houses ---------------------------------------------------------------------------
    const houses = el("div", { class: "houses" });
    for (let h = 0; h < v.hen_houses; h++) {
      const rev = reveals.find(m => m.move.house === h);
      const spaces = el("div", { class: "spaces" });
      for (let k = 0; k < 4; k++) {
        const i = 4 * h + k, sp = v.spaces[i];
        const lay = S.card !== null ? lays.find(m => m.move.card === S.card && m.move.space === i) : null;
        const exp = exposes.find(m => m.move.space === i);
        let content = el("span", { class: "help", text: "empty" });
        if (sp) {
          const face = sp.safe || v.game_over ? sp.card : (sp.owner === me ? "mine" : null);
          if (face === "mine") {
            content = el("div", { class: "sly-card mine-down", style: `border-color:${ctx.color(me)};background:${ctx.color(me)}`,
              title: `your face-down ${NAME(sp.card)}` }, `your ${NAME(sp.card)}`);
          } else {
            content = slyCard(el, face, sp.owner, ctx);
          }
          if (sp.safe) content.classList.add("safe");
        }
        const attrs = { class: `space${lay ? " target" : ""}${exp ? " exposable" : ""}`, "data-space": i,
          title: `space ${i}, value ${k + 1}` };
        const m = lay || exp;
        if (m) {
          attrs.role = "button";
          attrs.tabindex = 0;
          attrs["aria-label"] = m.text;
          attrs.onclick = () => ctx.play(m.id);
          attrs.onkeydown = e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ctx.play(m.id); } };
        }
        APP.put(spaces, el("div", attrs, el("span", { class: "value", text: `value ${k + 1}` }), content,
          sp && sp.safe ? el("span", { class: "value", text: "Safe" }) : el("span", {})));
      }
      APP.put(houses, el("div", { class: "house", "data-house": h },
        el("h3", {}, `Hen House ${h}`, rev ? el("button", { type: "button", "data-reveal": h, text: "Reveal",
          title: rev.text, onclick: () => ctx.play(rev.id) }) : null), spaces));
    }
    const all = reveals.find(m => m.move.house === null);
    APP.put(root, houses);
    if (all) APP.put(root, el("div", { class: "actions" }, el("button", { type: "button", id: "btn-reveal-all",
      text: "Reveal all face-down cards", onclick: () => ctx.play(all.id) })));

    // -- my hand -------------------------------------------------------------------------------------
    const hand = el("div", { class: "cards", id: "hand" });
    for (const c of v.hands[me]) {
      const can = lays.some(m => m.move.card === c);
      const attrs = { "data-hand-card": c, class: `sly-card${can ? " clickable" : ""}${S.card === c ? " selected" : ""}` };
      if (can) {
        attrs.role = "button";
        attrs.tabindex = 0;
        attrs["aria-pressed"] = S.card === c ? "true" : "false";
        attrs.onclick = () => { S.card = S.card === c ? null : c; ctx.redraw(); };
        attrs.onkeydown = e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); attrs.onclick(); } };
      }
      APP.put(hand, slyCard(el, c, me, ctx, attrs));
    }
    let hint = "";
    if (legal.length) {
      hint = S.card !== null ? `Now click an empty space to lay your ${NAME(S.card)} face down.`
        : "Lay: click a card, then a space." + (exposes.length ? " Expose: click an opponent's face-down card." : "")
          + (reveals.length ? " Reveal: a house's button" + (all ? " or Reveal all." : ".") : "");
    }
    APP.put(root, el("div", { class: "hand-area" }, el("b", { text: "Your hand" }), hand,
      hint ? el("div", { class: "banner", id: "sly-hint", text: hint }) : null));

    // -- the end: the final flip and the scoring ------------------------------------------------------
    if (v.game_over) {
      const why = v.end_reason === "hand" ? "a player to act held at most one card: final flip, every face-down card turned"
        : "every space holds a Safe Hen";
      const rows = [];
      for (let s = 0; s < n; s++) {
        let safe = 0;
        v.spaces.forEach((sp, i) => { if (sp && sp.owner === s && sp.card > 0) safe += (i % 4) + 1; });
        const gob = v.gobbled[s].reduce((a, g) => a + (g.owner === s ? -g.card : g.card), 0);
        const cap = v.captured[s].length * n;
        rows.push(el("tr", {}, el("th", { text: ctx.who(s) }), el("td", { text: String(safe) }), el("td", { text: String(gob) }),
          el("td", { text: String(cap) }), el("th", { text: String(v.scores[s]) })));
      }
      APP.put(root, el("div", { class: "banner", id: "sly-final" }, el("b", { text: "Game over: " }), why,
        el("table", {}, el("tr", {}, ["", "Safe Hens", "gobbled", "captured Foxes", "total"].map(x => el("th", { text: x }))), rows)));
    }
  }

  APP.tables.sly = { render };
})();
