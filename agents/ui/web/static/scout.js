// The Scout table: hands with both numbers, the active set, chips; act by pointing.
"use strict";

(function () {
  // What the person has pointed at so far this turn (reset when the position changes).
  let S = { key: null, sel: null, pick: null, flip: false, sas: false };

  function card(el, c, attrs, small) {
    return el("div", Object.assign({ class: `card${small ? " small" : ""}`, title: `${c[0]} in play, ${c[1]} below` }, attrs || {}),
      el("span", { class: "up", text: String(c[0]) }), el("span", { class: "down", text: String(c[1]) }));
  }

  function back(el) { return el("div", { class: "card small back", title: "a hidden card" }); }

  function render(root, t, ctx) {
    const el = ctx.el, v = t.view, me = t.seat, legal = ctx.legal;
    const key = `${t.id}:${t.moves_played}:${legal.length}`;
    if (S.key !== key) S = { key, sel: null, pick: null, flip: false, sas: false };
    const two = t.players === 2;
    const byType = type => legal.filter(m => m.move.type === type);
    const scoutType = S.sas ? "scout_and_show" : "scout";

    // -- the seats ------------------------------------------------------------------------
    const seats = el("div", { class: "seats" });
    for (let s = 0; s < t.players; s++) {
      const pub = v.hands[s];
      const chips = `${two ? "chips held" : "Scout chips"}: ${v.scout_chips[s]}`;
      const sas = two ? null : el("span", { class: "tag", text: v.scout_and_show_left[s] ? "Scout & Show chip" : "Scout & Show used" });
      const cards = s === me ? null : el("div", { class: "cards", "aria-label": `${ctx.who(s)}: hand` },
        pub.map(c => c ? card(el, c, { class: "card small known" }, true) : back(el)));
      APP.put(seats, el("div", { class: `seat-box${v.current_player === s && v.phase !== "game_over" ? " to-act" : ""}`,
        "data-seat": s },
        el("div", {}, el("span", { class: "swatch", style: `background:${ctx.color(s)}` }), el("b", { text: ctx.who(s) }),
          v.active_owner === s ? el("span", { class: "tag", text: "owns the active set" }) : null),
        el("div", { class: "pile", text: `${ctx.plural(v.hand_sizes[s], "card")} in hand · ${chips} · collected ${ctx.plural(v.collected[s].length, "card")} · score ${v.scores[s]}` }),
        sas, cards));
    }
    const roundNo = Math.min(v.round + 1, v.rounds);
    const PHASES = { flip: "each player decides which way up to hold the hand", play: "play",
                     show_after_scout: "Scout & Show: now the Show", game_over: "the match is over" };
    APP.put(root, el("div", { class: "pile", text: `Round ${roundNo} of ${v.rounds} · ${PHASES[v.phase] || v.phase}` +
      (two && v.set_aside ? ` · ${ctx.plural(v.set_aside, "card")} set aside for the next round` : "") }), seats);

    // -- the active set -----------------------------------------------------------------
    const scoutMoves = byType(scoutType);
    const active = el("div", { class: "cards", id: "active-set" });
    v.active_set.forEach((c, i) => {
      const ends = [];
      if (i === 0) ends.push("left");
      if (i === v.active_set.length - 1) ends.push("right");
      const can = ends.filter(e => scoutMoves.some(m => m.move.end === e));
      const pickEnd = can.length ? can[0] : null;
      const attrs = { class: `card${can.length ? " clickable" : ""}${S.pick && ends.includes(S.pick) ? " picked" : ""}`,
        "data-ends": ends.join(" ") || null };
      if (can.length) {
        attrs.tabindex = 0;
        attrs.role = "button";
        attrs["aria-label"] = `scout the ${ends.join(" / ")} card ${c[0]}/${c[1]}`;
        attrs.onclick = () => { S.pick = pickEnd; S.sel = null; ctx.redraw(); };
        attrs.onkeydown = e => { if (e.key === "Enter" || e.key === " ") attrs.onclick(); };
      }
      APP.put(active, card(el, c, attrs));
    });
    APP.put(root, el("div", { class: "active-set" },
      el("div", {}, el("b", { text: "Active set " }), v.active_owner === null ? "none: any Show may be played"
        : `of ${ctx.who(v.active_owner)} (${ctx.plural(v.active_set.length, "card")})`), active));

    // -- my hand ----------------------------------------------------------------------------
    const hand = v.hands[me];
    const handBox = el("div", { class: "cards", id: "hand" });
    const showMoves = byType("show");
    const selectable = showMoves.length > 0 && !S.pick;
    const gaps = S.pick ? scoutMoves.filter(m => m.move.end === S.pick && m.move.flip === S.flip) : [];
    const gap = p => {
      const m = gaps.find(x => x.move.position === p);
      return m ? el("button", { class: "gap", type: "button", "data-gap": p, "aria-label": `insert at position ${p + 1}`,
        title: m.text, onclick: () => ctx.play(m.id) }) : null;
    };
    hand.forEach((c, i) => {
      const g = gap(i);
      if (g) APP.put(handBox, g);
      const sel = S.sel && i >= S.sel[0] && i <= S.sel[1];
      const attrs = { class: `card${selectable ? " clickable" : ""}${sel ? " selected" : ""}`, "data-card": i };
      if (selectable) {
        attrs.tabindex = 0;
        attrs.role = "button";
        attrs["aria-pressed"] = sel ? "true" : "false";
        attrs.onclick = () => {
          if (!S.sel) S.sel = [i, i];
          else if (i === S.sel[0] - 1) S.sel = [i, S.sel[1]];
          else if (i === S.sel[1] + 1) S.sel = [S.sel[0], i];
          else if (i === S.sel[0] && S.sel[1] > i) S.sel = [i + 1, S.sel[1]];
          else if (i === S.sel[1] && S.sel[0] < i) S.sel = [S.sel[0], i - 1];
          else if (i === S.sel[0] && i === S.sel[1]) S.sel = null;
          else S.sel = [i, i];
          ctx.redraw();
        };
        attrs.onkeydown = e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); attrs.onclick(); } };
      }
      APP.put(handBox, card(el, c, attrs));
    });
    const lastGap = gap(hand.length);
    if (lastGap) APP.put(handBox, lastGap);

    const actions = el("div", { class: "actions" });
    const flips = byType("flip");
    if (flips.length) {
      const keep = flips.find(m => !m.move.flip), turn = flips.find(m => m.move.flip);
      APP.put(actions, el("span", { text: "Start of the round: " }),
        el("button", { id: "btn-keep", type: "button", onclick: () => ctx.play(keep.id), text: "Keep this hand" }),
        el("button", { id: "btn-turn", type: "button", onclick: () => ctx.play(turn.id), text: "Turn the hand around" }));
    }
    if (showMoves.length) {
      let label = "Select adjacent cards to Show", move = null;
      if (S.sel) {
        move = showMoves.find(m => m.move.start === S.sel[0] && m.move.length === S.sel[1] - S.sel[0] + 1);
        const vals = hand.slice(S.sel[0], S.sel[1] + 1).map(c => c[0]);
        const kind = move ? (move.text.match(/\((set|run) /) || [null, "set"])[1] : null;
        const strength = `${vals.length}-card ${kind || "group"}: ${vals.join(" ")}`;
        label = move ? `Show ${strength}`
          : `Not a legal Show (${vals.join(" ")}): it must be a set or run that beats the active set`;
      }
      APP.put(actions, el("button", { id: "btn-show", type: "button", class: move ? "primary" : null, disabled: !move,
        onclick: () => move && ctx.play(move.id), text: move ? label : "Show" }),
        S.sel && !move ? el("span", { class: "help", id: "show-hint", text: label })
          : (!S.sel && !S.pick ? el("span", { class: "help", text: "To Show: click adjacent cards of your hand." }) : null));
    }
    const anyScout = byType("scout").length, anySas = byType("scout_and_show").length;
    if (anyScout || anySas) {
      if (anySas) {
        APP.put(actions, el("button", { id: "btn-sas", type: "button", "aria-pressed": S.sas ? "true" : "false",
          class: S.sas ? "primary" : null, text: S.sas ? "Scout & Show: on" : "Scout & Show",
          onclick: () => { S.sas = !S.sas; S.pick = null; ctx.redraw(); } }));
      }
      if (S.pick) {
        const c = S.pick === "left" ? v.active_set[0] : v.active_set[v.active_set.length - 1];
        const shown = S.flip ? [c[1], c[0]] : c;
        APP.put(actions, el("span", { text: "Scouting " }), card(el, shown, { class: "card small picked" }, true),
          el("button", { id: "btn-flip-scouted", type: "button", "aria-pressed": S.flip ? "true" : "false",
            text: S.flip ? "Flipped (click to keep)" : "Kept (click to flip)",
            onclick: () => { S.flip = !S.flip; ctx.redraw(); } }),
          el("span", { class: "help", text: "Now click a gap in your hand to insert it." }),
          el("button", { type: "button", id: "btn-cancel-scout", text: "Cancel", onclick: () => { S.pick = null; ctx.redraw(); } }));
      } else {
        APP.put(actions, el("span", { class: "help", text: S.sas
          ? "Scout & Show: pick an end card of the active set, flip or keep it, click a gap; then Show."
          : "To Scout: click an end card of the active set." }));
      }
    }
    const banners = [];
    if (legal.length && v.phase === "play" && !showMoves.length && (anyScout || anySas)) {
      banners.push("Nothing beats the active set: Scout (take an end card of it into your hand).");
    }
    if (legal.length && v.phase === "show_after_scout") banners.push("Scout & Show: now Show a set or run from your hand.");
    const last = t.log[t.log.length - 1];
    if (legal.length && two && v.phase === "play" && last && last.seat === me) {
      banners.push(`Your turn continues: Show, or Scout again while you hold chips (you hold ${v.scout_chips[me]}).`);
    }
    if (flips.length) {
      banners.push("Turned around, your hand would read: " + hand.map(c => c[1]).join(" "));
    }
    APP.put(root, el("div", { class: "hand-area" }, el("b", { text: `Your hand (${ctx.plural(hand.length, "card")})` }),
      banners.map(b => el("div", { class: "banner", text: b })), handBox, actions));

    // -- scores --------------------------------------------------------------------------------
    if (v.round_scores.length) {
      APP.put(root, el("table", { class: "pile score-table", id: "round-scores" },
        el("thead", {}, el("tr", {}, el("th", { text: "Round" }), [...Array(t.players).keys()].map(s => el("th", { class: "num", text: ctx.who(s) })))),
        el("tbody", {}, v.round_scores.map((r, i) => el("tr", {}, el("th", { text: String(i + 1) }),
          r.map(x => el("td", { class: "num", text: APP.signed(x) }))))),
        el("tfoot", {}, el("tr", {}, el("th", { text: "Total" }), v.scores.map(x => el("th", { class: "num total", text: APP.signed(x) }))))));
    }
  }

  APP.tables.scout = { render };
})();
