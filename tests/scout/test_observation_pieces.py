"""Scout's observation pieces and visibility rules: one statement, read everywhere.

- The table of pieces (``observation.PIECES``) is what the docstring shows, what
  ``observation_slices`` cuts and what the compiled ``observation_size`` counts, for every
  player count (from Python and from a kernel).
- The kernel writes each piece where the table puts it and as its meaning says, at random
  positions (decoded back against the state dict).
- What a seat may know is :mod:`sly_scout_env.scout.view`'s rules: re-dealing every card
  hidden from a seat (``determinize``) changes neither its redacted view, nor its
  observation, nor the table as text for it; and the rules classify every state-dict field.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sly_scout_env import scout_v0
from sly_scout_env.scout import observation as O
from sly_scout_env.scout import rules as R
from sly_scout_env.scout import text as T
from sly_scout_env.scout import view as V
from sly_scout_env.scout.codec import dict_to_state, state_to_dict
from sly_scout_env.scout.determinize import MAX_HIDDEN, determinize
from sly_scout_env.views import player_view

PLAYER_COUNTS = (2, 3, 4, 5)


@njit
def _size_in_a_kernel(n):
    return O.observation_size(n)


def _positions(num_players, seed, every=3):
    """``(row, history)`` along a random 2-round game: every few moves, each round's flip phase, the end."""
    env = scout_v0.raw_env(num_players=num_players, rounds=2)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    template = R.new_state(**R.parse_options(num_players=num_players))
    out, step = [], 0
    while True:
        d = env.state_dict()
        if step % every == 0 or d["phase"] in ("flip", "game_over"):
            out.append(dict_to_state(d, template))
        if env.terminations[env.agent_selection]:
            return out
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        step += 1


def _observe(row, seat):
    out = np.zeros(O.observation_size(int(row[R.NUM_PLAYERS])), dtype=np.float32)
    O.encode_observation(row, seat, out)
    return out


# --- the table -------------------------------------------------------------------------------------------
def test_piece_names_are_unique_and_each_has_a_meaning():
    names = [p.name for p in O.PIECES]
    assert len(set(names)) == len(names)
    assert all(p.meaning and "\n" not in p.meaning for p in O.PIECES)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_compiled_size_is_the_sum_of_the_pieces(n):
    total = sum(O.piece_size(p, n) for p in O.PIECES)
    assert O.observation_size(n) == total == _size_in_a_kernel(n)
    slices = O.observation_slices(n)
    assert list(slices) == [p.name for p in O.PIECES]
    o = 0
    for p in O.PIECES:  # contiguous, in table order, each of its piece's size
        assert slices[p.name] == slice(o, o + O.piece_size(p, n))
        o += O.piece_size(p, n)
    assert o == total
    env = scout_v0.raw_env(num_players=n)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == (total,)


def test_sizes_by_hand_for_one_count():
    # The table read by hand for 3 players (H = 34): a check on the table's arithmetic.
    H = 34
    assert O.observation_size(3) == 4 * H + 3 * 10 + 4 + 5 * 3 + 4 + 2 + 3 + 3 * H * 2


def test_docstring_table_is_made_from_the_pieces():
    assert O.pieces_table() in O.__doc__
    assert "{table}" not in O.__doc__
    rows = [ln.split()[0] for ln in O.pieces_table().splitlines()[1:] if ln[4] != " "]
    assert rows == [p.name for p in O.PIECES] + ["length"]


def test_no_layout_for_other_player_counts():
    assert O.observation_size(1) == -1 and O.observation_size(R.MAX_PLAYERS + 1) == -1


# --- the kernel writes what the table says -------------------------------------------------------------
def _expected(d, seat):
    """The observation as the table's meanings describe it, from the state dict."""
    n = d["num_players"]
    H = int(R.max_hand(n))
    sl = O.observation_slices(n)
    out = np.zeros(O.observation_size(n), dtype=np.float32)
    own = out[sl["own_hand"]].reshape(H, 4)
    for i, ((u, w), k) in enumerate(zip(d["hands"][seat], d["known"][seat])):
        own[i] = (1, u, w, k)
    act = out[sl["active_set"]].reshape(R.ACTIVE_CAP, 3)
    for i, (u, w) in enumerate(d["active_set"]):
        act[i] = (1, u, w)
    owner = d["active_owner"]
    out[sl["active_owner"]][n if owner is None else (owner - seat) % n] = 1
    players = out[sl["players"]].reshape(n, 5)
    for j in range(n):
        s = (seat + j) % n
        players[j] = (len(d["hands"][s]), len(d["collected"][s]), d["scout_chips"][s],
                      d["scout_and_show_left"][s], d["scores"][s])
    out[sl["phase"]][R.PHASE_NAMES.index(d["phase"])] = 1
    out[sl["round"]] = (d["round"], d["rounds"])
    out[sl["starting_player"]][(d["starting_player"] - seat) % n] = 1
    known = out[sl["known_cards"]].reshape(n - 1, H, 3)
    for j in range(1, n):
        s = (seat + j) % n
        for i, ((u, w), k) in enumerate(zip(d["hands"][s], d["known"][s])):
            if k:
                known[j - 1, i] = (1, u, w)
    return out


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_kernel_writes_each_piece_as_the_table_says(n):
    for row, history in _positions(n, seed=n):
        d = state_to_dict(row, history)
        for seat in range(n):
            np.testing.assert_array_equal(_observe(row, seat), _expected(d, seat))


# --- one statement of what a seat knows -----------------------------------------------------------------
def test_the_rules_classify_every_state_dict_field():
    row, history = _positions(3, seed=0)[0]
    fields = set(state_to_dict(row, history))
    assert not set(V.SEEN) & set(V.PUBLIC)
    assert fields == set(V.SEEN) | set(V.PUBLIC) | {"rng"}  # rng: removed by views.player_view


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_view_observation_and_text_depend_on_what_the_seat_may_know_only(n):
    """Re-deal every card hidden from a seat: its view, observation and text stay the same."""
    rng = np.array([12345 + n], dtype=np.int64)
    pool = np.zeros(MAX_HIDDEN, dtype=np.int64)
    redealt = saw_flip = saw_known = 0
    for row, history in _positions(n, seed=10 + n, every=4):
        d = state_to_dict(row, history)
        saw_flip |= d["phase"] == "flip"
        for seat in range(n):
            view, obs, text = player_view(d, seat), _observe(row, seat), T.render_text(row, seat, history)
            saw_known |= any(c is not None for s, h in enumerate(view["hands"]) if s != seat for c in h)
            for _ in range(3):
                other = row.copy()
                determinize(other, seat, rng, 0, pool)
                od = state_to_dict(other, history)
                redealt += od["hands"] != d["hands"] or od["set_aside"] != d["set_aside"]
                assert player_view(od, seat) == view
                np.testing.assert_array_equal(_observe(other, seat), obs)
                assert T.render_text(other, seat, history) == text
    assert redealt and saw_flip and saw_known  # the test bites: hidden cards did move


def test_the_text_shows_what_the_view_shows():
    """Every card of another seat the text names is one the view shows, and conversely."""
    for n in (3, 4):
        for row, history in _positions(n, seed=3, every=2):
            d = state_to_dict(row, history)
            for seat in range(n):
                view, text = player_view(d, seat), T.render_text(row, seat, history)
                for s in range(n):
                    if s == seat:
                        continue
                    line = next(ln for ln in text.splitlines() if ln.startswith(f"player_{s} hand:"))
                    shown = [f"[{i}]{c[0]}/{c[1]}" for i, c in enumerate(view["hands"][s]) if c is not None]
                    size = len(view["hands"][s])
                    assert line == f"player_{s} hand: {size} cards; public: {' '.join(shown) or 'none'}"
                own = next(ln for ln in text.splitlines() if ln.startswith(f"player_{seat} hand (up/down"))
                assert all(f"[{i}]{u}/{w}" in own for i, (u, w) in enumerate(view["hands"][seat]))


def test_a_flip_phase_view_hides_even_known_cards():
    # A known card during the flip phase (none arises in play: the deal clears the flags): the
    # view hides it, as the rules say, and the codec refuses to load such a position, so the
    # observation (which encodes known cards in every phase) can never show it either.
    row, history = next(p for p in _positions(3, seed=1) if state_to_dict(*p)["phase"] == "flip")
    d = state_to_dict(row, history)
    d["known"][1][0] = True
    assert not V.hand_card_seen(d, 0, 1, 0)
    assert player_view(d, 0)["hands"][1][0] is None
    with pytest.raises(ValueError, match="known"):
        dict_to_state(d, R.new_state(**R.parse_options(num_players=3)))
