"""Sly's observation pieces and visibility rules: one statement, read everywhere.

- The table of pieces (``observation.PIECES``) is what the docstring shows, what
  ``observation_slices`` cuts and what the compiled ``observation_size`` counts, for every
  player count and Hen Houses option (from Python and from a kernel).
- The kernel writes each piece (and each part of a space / an opponent entry) where the
  table puts it and as its meaning says, at random positions (decoded back against the
  state dict).
- What a seat may know is :mod:`sly_scout_env.sly.view`'s rules: re-dealing every card
  hidden from a seat (``determinize``) changes neither its redacted view, nor its
  observation, nor the table as text for it; and the rules classify every state-dict field.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from sly_scout_env import sly_v0
from sly_scout_env.sly import observation as O
from sly_scout_env.sly import rules as R
from sly_scout_env.sly import text as T
from sly_scout_env.sly import view as V
from sly_scout_env.sly.codec import dict_to_state, state_to_dict
from sly_scout_env.sly.determinize import determinize
from sly_scout_env.views import player_view

OPTIONS = list(itertools.product((2, 3, 4), (1, 2)))  # (players, Hen Houses)


@njit
def _size_in_a_kernel(n, h):
    return O.observation_size(n, h)


def _positions(num_players, hen_houses, seed, every=2, reveal_scope="house"):
    """Rows along a random game: every few moves, and the end."""
    env = sly_v0.raw_env(num_players=num_players, hen_houses=hen_houses, reveal_scope=reveal_scope)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    template = R.new_state(**R.parse_options(num_players=num_players, hen_houses=hen_houses,
                                             reveal_scope=reveal_scope))
    out, step = [], 0
    while True:
        d = env.state_dict()
        if step % every == 0 or d["game_over"]:
            out.append(dict_to_state(d, template)[0])
        if env.terminations[env.agent_selection]:
            return out
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        step += 1


def _observe(row, seat):
    out = np.zeros(O.observation_size(int(row[R.NUM_PLAYERS]), int(row[R.HEN_HOUSES])), dtype=np.float32)
    O.encode_observation(row, seat, out)
    return out


# --- the table -------------------------------------------------------------------------------------------
def test_piece_and_part_names_are_unique_and_each_has_a_meaning():
    names = [p.name for p in O.PIECES]
    assert len(set(names)) == len(names)
    for p in O.PIECES:
        assert p.meaning and "\n" not in p.meaning
        parts = [name for name, _, _ in p.parts]
        assert len(set(parts)) == len(parts)
        assert all(meaning and "\n" not in meaning for _, _, meaning in p.parts)


@pytest.mark.parametrize("n, h", OPTIONS)
def test_compiled_size_is_the_sum_of_the_pieces(n, h):
    total = sum(O.piece_size(p, n, h) for p in O.PIECES)
    assert O.observation_size(n, h) == total == _size_in_a_kernel(n, h)
    slices = O.observation_slices(n, h)
    assert list(slices) == [p.name for p in O.PIECES]
    o = 0
    for p in O.PIECES:  # contiguous, in table order, each of its piece's size
        assert slices[p.name] == slice(o, o + O.piece_size(p, n, h))
        o += O.piece_size(p, n, h)
    assert o == total
    for p in O.PIECES:  # the parts tile one entry
        if p.parts:
            parts = O.part_slices(p, n)
            assert parts[p.parts[0][0]].start == 0 and parts[p.parts[-1][0]].stop == O.piece_shape(p, n, h)[-1]
            assert all(a.stop == b.start for a, b in zip(list(parts.values()), list(parts.values())[1:]))
    env = sly_v0.raw_env(num_players=n, hen_houses=h)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == (total,)


def test_sizes_by_hand():
    # The table read by hand: 7 + S * (11 + P) + 4 P + 14 (P - 1).
    for n, h in OPTIONS:
        assert O.observation_size(n, h) == 7 + 4 * h * (11 + n) + 4 * n + 14 * (n - 1)


def test_docstring_table_is_made_from_the_pieces():
    assert O.pieces_table() in O.__doc__
    assert "{table}" not in O.__doc__
    rows = [ln.split()[0] for ln in O.pieces_table().splitlines()[1:] if ln[4] != " "]
    assert rows == [p.name for p in O.PIECES] + ["length"]
    for p in O.PIECES:
        for name, _, _ in p.parts:
            assert f"] {name}" in O.__doc__


def test_no_layout_for_other_options():
    assert O.observation_size(1, 1) == -1 and O.observation_size(R.MAX_PLAYERS + 1, 1) == -1
    assert O.observation_size(2, R.MAX_HOUSES + 1) == -1


# --- the kernel writes what the table says -------------------------------------------------------------
def _expected(d, seat):
    """The observation as the table's meanings describe it, from the state dict."""
    n, h = d["num_players"], d["hen_houses"]
    sl = O.observation_slices(n, h)
    pieces = {p.name: p for p in O.PIECES}
    out = np.zeros(O.observation_size(n, h), dtype=np.float32)
    out[sl["own_hand"]][d["hands"][seat]] = 1
    spaces = out[sl["spaces"]].reshape(O.piece_shape(pieces["spaces"], n, h))
    part = O.part_slices(pieces["spaces"], n)
    for s, sp in enumerate(d["spaces"]):
        e = spaces[s]
        if sp is None:
            e[part["empty"]] = 1
            continue
        e[part["owner"]][(sp["owner"] - seat) % n] = 1
        if sp["safe"]:
            e[part["safe_hen"]] = 1
        elif d["game_over"]:
            e[part["face_up_fox"]] = 1
        else:
            e[part["face_down"]] = 1
        if sp["safe"] or d["game_over"] or sp["owner"] == seat:
            e[part["card"]][sp["card"]] = 1
    players = out[sl["players"]].reshape(n, 4)
    for j in range(n):
        s = (seat + j) % n
        players[j] = (len(d["hands"][s]), len(d["captured"][s]), len(d["gobbled"][s]), d["scores"][s])
    opp = out[sl["opponents"]].reshape(O.piece_shape(pieces["opponents"], n, h))
    part = O.part_slices(pieces["opponents"], n)
    for j in range(1, n):
        s = (seat + j) % n
        face_down = [sp["card"] for sp in d["spaces"]
                     if sp is not None and sp["owner"] == s and not sp["safe"] and not d["game_over"]]
        opp[j - 1][part["unseen"]][d["hands"][s] + face_down] = 1
        opp[j - 1][part["known_in_hand"]][d["known_in_hand"][s]] = 1
    return out


@pytest.mark.parametrize("n, h", OPTIONS)
def test_the_kernel_writes_each_piece_as_the_table_says(n, h):
    for row in _positions(n, h, seed=n + 10 * h):
        d = state_to_dict(row)
        for seat in range(n):
            np.testing.assert_array_equal(_observe(row, seat), _expected(d, seat))


# --- one statement of what a seat knows -----------------------------------------------------------------
def test_the_rules_classify_every_state_dict_field():
    fields = set(state_to_dict(_positions(3, 2, seed=0)[0]))
    assert not set(V.SEEN) & set(V.PUBLIC)
    assert fields == set(V.SEEN) | set(V.PUBLIC) | {"rng"}  # rng: removed by views.player_view


@pytest.mark.parametrize("n, h", OPTIONS)
def test_view_observation_and_text_depend_on_what_the_seat_may_know_only(n, h):
    """Re-deal every card hidden from a seat: its view, observation and text stay the same."""
    rng = np.array([777 + n + h], dtype=np.int64)
    redealt = saw_face_down = 0
    for scope in ("house", "all"):
        for row in _positions(n, h, seed=20 + n + h, reveal_scope=scope):
            d = state_to_dict(row)
            for seat in range(n):
                view, obs, text = player_view(d, seat), _observe(row, seat), T.render_text(row, seat)
                saw_face_down |= any(sp is not None and sp["card"] is None for sp in view["spaces"])
                for _ in range(3):
                    other = row.copy()
                    determinize(other, seat, rng, 0)
                    od = state_to_dict(other)
                    redealt += od["hands"] != d["hands"] or od["spaces"] != d["spaces"]
                    assert player_view(od, seat) == view
                    np.testing.assert_array_equal(_observe(other, seat), obs)
                    assert T.render_text(other, seat) == text
    assert redealt and saw_face_down  # the test bites: hidden cards did move


def test_the_text_names_only_cards_the_view_shows():
    for n, h in ((2, 1), (4, 2)):
        for row in _positions(n, h, seed=5):
            d = state_to_dict(row)
            for seat in range(n):
                view, text = player_view(d, seat), T.render_text(row, seat)
                lines = [ln for ln in text.splitlines() if ln.startswith("  [")]
                for s, (sp, line) in enumerate(zip(view["spaces"], lines)):
                    if sp is not None and sp["card"] is None:  # hidden from the seat: no card named
                        assert line == f"  [{s}] value {s % 4 + 1}: face down, player_{sp['owner']}"
                    elif sp is not None and not sp["safe"] and not d["game_over"]:
                        assert line.endswith(f": your {T.CARD_NAMES[sp['card']]}")
                own = next(ln for ln in text.splitlines() if ln.startswith(f"  player_{seat} (you): "))
                assert f"hand [{', '.join(T.CARD_NAMES[c] for c in view['hands'][seat]) or '-'}]" in own
