// The Sly table: Hen Houses with valued spaces, face-down cards in their owners' colours,
// Safe Hens, gobbled and captured piles. Lay = a card then a space; Expose = click an
// opponent's face-down card; Reveal = the house's button (or "Reveal all").
"use strict";

(function () {
  // What the person has pointed at: a card to lay, or an Expose waiting for its confirmation.
  let S = { key: null, card: null, expose: null };
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
    if (S.key !== key) S = { key, card: null, expose: null };
    const lays = legal.filter(m => m.move.type === "lay");
    const exposes = legal.filter(m => m.move.type === "expose");
    const reveals = legal.filter(m => m.move.type === "reveal");

    // -- players -----------------------------------------------------------------------------
    const seats = el("div", { class: "seats" });
    for (let s = 0; s < n; s++) {
      const gob = v.gobbled[s].map(g => `${g.owner === s ? "own" : ctx.whose(g.owner)} ${NAME(g.card)}`);
      const cap = v.captured[s].map(o => `${ctx.whose(o)} Fox`);
      const known = s === me ? [] : v.hands[s].filter(c => c !== null);
      APP.put(seats, el("div", { class: `seat-box${!v.game_over && v.current_player === s ? " to-act" : ""}`, "data-seat": s },
        el("div", {}, el("span", { class: "swatch", style: `background:${ctx.color(s)}` }), el("b", { text: ctx.who(s) }),
          el("span", { class: "tag", text: `score ${v.scores[s]}` })),
        el("div", { class: "pile", text: `${ctx.plural(v.hand_sizes[s], "card")} in hand` + (known.length ? ` (known: ${known.map(NAME).join(", ")})` : "") }),
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
        const armed = S.expose && S.expose.move.space === i;
        const attrs = { class: `space${lay ? " target" : ""}${exp ? " exposable" : ""}${armed ? " armed" : ""}`,
          "data-space": i, title: `space ${i + 1}, value ${k + 1}` };
        const m = lay || exp;
        if (m) {
          attrs.role = "button";
          attrs.tabindex = 0;
          attrs["aria-label"] = m.text;
          // A Lay is played at once; an Expose (a Fox at stake) asks first.
          attrs.onclick = lay ? () => ctx.play(m.id) : () => { S.expose = m; S.card = null; ctx.redraw(); };
          attrs.onkeydown = e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); attrs.onclick(); } };
        }
        APP.put(spaces, el("div", attrs, el("span", { class: "value", text: `value ${k + 1}` }), content,
          sp && sp.safe ? el("span", { class: "value", text: "Safe" }) : el("span", {})));
      }
      APP.put(houses, el("div", { class: "house", "data-house": h },
        el("h3", {}, `Hen House ${h + 1}`, rev ? el("button", { type: "button", "data-reveal": h, text: "Reveal",
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
    let confirm = null;
    if (S.expose) {
      const sp = v.spaces[S.expose.move.space];
      confirm = el("div", { class: "banner confirm", id: "expose-confirm", role: "alertdialog",
        "aria-label": "confirm the Expose" },
        `Expose ${ctx.whose(sp.owner)} face-down card on space ${S.expose.move.space + 1} as a Fox? `
          + "A Fox is captured by you; a Hen becomes Safe and scores its space for its owner. ",
        el("button", { type: "button", id: "btn-expose-confirm", class: "primary", text: "Expose",
          onclick: () => ctx.play(S.expose.id) }),
        el("button", { type: "button", id: "btn-expose-cancel", text: "Cancel",
          onclick: () => { S.expose = null; ctx.redraw(); } }));
    }
    if (legal.length) {
      hint = S.card !== null ? `Now click an empty space to lay your ${NAME(S.card)} face down.`
        : "Lay: click a card, then a space." + (exposes.length ? " Expose: click an opponent's face-down card." : "")
          + (reveals.length ? " Reveal: a house's button" + (all ? " or Reveal all." : ".") : "");
    }
    APP.put(root, el("div", { class: "hand-area" }, el("b", { text: `Your hand (${ctx.plural(v.hands[me].length, "card")})` }), hand,
      confirm, hint ? el("div", { class: "banner", id: "sly-hint", text: hint }) : null));

    // The end (the final flip and the scoring) is the summary above the table (APP.drawSummary).
  }

  APP.tables.sly = { render };
})();
