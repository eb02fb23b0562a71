"""Per-action features of a Scout decision, for networks that score each legal move.

A network over the raw observation must rediscover, for each of up to 740 action ids,
which hand slots the id refers to and whether their numbers form a set or run: the
arena showed a plain MLP does not (docs/experiments/scout.md). These
features say it outright. For each legal action ``legal[i]`` the kernel writes one row
``out[i, :FEATURE_SIZE]``, read (like ``greedy``) from the acting seat's own
observation only: the seat's hand, public counts and the active set.

Every row starts with the same *context* of the position, then describes the action
and the hand it leaves (the "afterstate"); the heuristic's own value of the action is
one of them, so a network can start from greedy's judgement and learn corrections.
Scales keep every entry within a few units. The columns (``FEATURE_NAMES``)::

    context (the same for every action)
    hand_size            own cards / 10
    min_opp_hand         fewest cards an opponent holds / 10
    next_hand            cards of the player to the left (who acts next) / 10
    active_len           cards in the active set / 10
    active_mine          1 if the active set is this seat's own show
    no_active            1 before the round's first Show
    sas_left             1 if this seat still has its Scout & Show chip
    rounds_left          rounds after this one / 5
    game_lead            own game total - best opponent's / 10
    round_lead           (collected + chips - hand) this round, own - best opponent's / 10
    hand_cost            greedy's cost of the hand as it is / 1000
    after_scout          1 in the Show half of a Scout & Show
    own_chips            own Scout chips / 3 (2 players: chips still held, each a Scout;
                         3-5 players: chips received this round)
    next_chips           the same for the player to the left (2 players: 0 means the
                         other player cannot Scout, so a Show it cannot beat ends the round)
    action
    is_flip, flip_turn   the round-start decision (and: turn the hand)
    is_show, is_scout, is_sas
    greedy_value         greedy's value of the action / 1000 (0 where greedy skips it)
    greedy_skips         1 where greedy does not consider the action
    greedy_gap           greedy's value - its best value over the legal actions / 1000 (>= -2)
    greedy_best          1 if greedy values it highest (ties: all of them)
    show_len, show_set, show_low   a Show: cards / 10, 1 if a set, lowest number / 10
    collected            cards a Show collects (the active set's) / 10
    empties_hand         1 if the Show ends the round by emptying the hand
    hand_after           cards held after the action / 10
    cost_after           greedy's cost of the hand after the action / 1000
    scouted_number       a Scout: the number that goes up / 10
    scout_right_end      1 if it is taken from the active set's right end
    scout_turned         1 if the card is turned
    scout_joins          1 if the card lands next to an equal or neighbouring number
    active_after         cards in the active set after the action / 10
    strength_after       strength of the active set after the action / 320
    scout_at_end         1 if the scouted card goes to either end of the hand
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .heuristic import (
    NEG,
    W_HAND,
    W_TMP,
    WORK_SIZE,  # callers size ``work`` with it
    _action_value,
    _flip_costs,
    _load_hand,
    _obs_offsets,
    _show_strength,
    active_strength,
    hand_cost,
    insert_card,
    make_work,
    scout_move,
)
from .rules import ACTIVE_CAP, MAX_SHOW

FEATURE_NAMES = (
    "hand_size", "min_opp_hand", "next_hand", "active_len", "active_mine", "no_active", "sas_left", "rounds_left",
    "game_lead", "round_lead", "hand_cost", "after_scout", "own_chips", "next_chips",
    "is_flip", "flip_turn", "is_show", "is_scout", "is_sas", "greedy_value", "greedy_skips", "greedy_gap",
    "greedy_best", "show_len", "show_set", "show_low", "collected", "empties_hand", "hand_after", "cost_after",
    "scouted_number", "scout_right_end", "scout_turned", "scout_joins", "active_after", "strength_after",
    "scout_at_end",
)
FEATURE_SIZE = len(FEATURE_NAMES)
CONTEXT_SIZE = 14  # the first columns, equal in every row
_F_ACTION = CONTEXT_SIZE

# Offsets into the observation's per-player block (observation.py: 5 fields per relative seat).
_P_HAND, _P_COLLECTED, _P_CHIPS, _P_SAS, _P_SCORE = 0, 1, 2, 3, 4


@njit(cache=True)
def _context(obs, num_players, row):
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    hand = obs[o_players + _P_HAND]
    min_opp = 1e9
    best_game = -1e9
    best_round = -1e9
    for j in range(1, num_players):
        b = o_players + 5 * j
        min_opp = min(min_opp, obs[b + _P_HAND])
        best_game = max(best_game, obs[b + _P_SCORE])
        best_round = max(best_round, obs[b + _P_COLLECTED] + obs[b + _P_CHIPS] - obs[b + _P_HAND])
    al = 0
    while al < ACTIVE_CAP and obs[o_active + 3 * al] > 0.5:
        al += 1
    o_round = o_phase + 4
    row[0] = hand / 10.0
    row[1] = min_opp / 10.0
    row[2] = obs[o_players + 5 + _P_HAND] / 10.0
    row[3] = al / 10.0
    row[4] = obs[o_owner]  # relative seat 0 = this seat
    row[5] = obs[o_owner + num_players]
    row[6] = obs[o_players + _P_SAS]
    row[7] = (obs[o_round + 1] - obs[o_round] - 1.0) / 5.0
    row[8] = (obs[o_players + _P_SCORE] - best_game) / 10.0
    row[9] = (obs[o_players + _P_COLLECTED] + obs[o_players + _P_CHIPS] - hand - best_round) / 10.0
    row[11] = obs[o_phase + 2]
    row[12] = obs[o_players + _P_CHIPS] / 3.0
    row[13] = obs[o_players + 5 + _P_CHIPS] / 3.0


@njit(cache=True)
def action_features(obs, legal, n, num_players, work, values, out):
    """Write the features of actions ``legal[:n]`` into ``out[:n, :FEATURE_SIZE]`` (float32).

    ``work``: int64 scratch of ``heuristic.WORK_SIZE``; ``values``: int64 scratch of at
    least ``n`` (greedy's values). Reads only ``obs`` (the acting seat's observation).
    """
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    out[:n, :] = 0.0
    _context(obs, num_players, out[0])
    flip = obs[o_phase] > 0.5
    A = _F_ACTION
    if flip:
        keep, turn = _flip_costs(obs, num_players, work)
        base = keep
        for i in range(n):
            values[i] = -turn if legal[i] == 1 else -keep
    else:
        L, al, base = _load_hand(obs, num_players, work)
        for i in range(n):
            values[i] = _action_value(obs, legal[i], num_players, L, al, base, work)
    best = NEG
    for i in range(n):
        if values[i] > best:
            best = values[i]
    out[0, 10] = base / 1000.0
    for i in range(1, n):
        out[i, :CONTEXT_SIZE] = out[0, :CONTEXT_SIZE]
    scout_base = 2 + MAX_SHOW * H
    for i in range(n):
        a = legal[i]
        row = out[i]
        v = values[i]
        if v == NEG:
            row[A + 6] = 1.0
        else:
            row[A + 5] = v / 1000.0
            row[A + 7] = max(-2.0, (v - best) / 1000.0)
            row[A + 8] = 1.0 if v == best else 0.0
        if flip:
            row[A + 0] = 1.0
            row[A + 1] = 1.0 if a == 1 else 0.0
            row[A + 14] = row[0]
            row[A + 15] = -v / 1000.0
            row[A + 20] = row[3]
            continue
        if a < scout_base:  # a Show of hand[start:start+ln]
            start = (a - 2) // MAX_SHOW
            ln = (a - 2) % MAX_SHOW + 1
            row[A + 2] = 1.0
            row[A + 9] = ln / 10.0
            row[A + 10] = 1.0 if ln >= 2 and work[W_HAND + start] == work[W_HAND + start + 1] else 0.0
            low = work[W_HAND + start]
            for k in range(start, start + ln):
                low = min(low, work[W_HAND + k])
            row[A + 11] = low / 10.0
            row[A + 12] = al / 10.0
            k = 0
            for j in range(L):
                if j < start or j >= start + ln:
                    work[W_TMP + k] = work[W_HAND + j]
                    k += 1
            row[A + 13] = 1.0 if k == 0 else 0.0
            row[A + 14] = k / 10.0
            row[A + 15] = hand_cost(work, W_TMP, k) / 1000.0
            row[A + 20] = ln / 10.0
            row[A + 21] = _show_strength(work, W_HAND, start, ln) / 320.0
            continue
        is_sas, end, turned, p, num = scout_move(obs, a, H, al, o_active)
        row[A + 3] = 0.0 if is_sas else 1.0
        row[A + 4] = 1.0 if is_sas else 0.0
        insert_card(work, W_TMP, L, num, p)
        joins = (p > 0 and abs(work[W_HAND + p - 1] - num) <= 1) or (p < L and abs(work[W_HAND + p] - num) <= 1)
        row[A + 14] = (L + 1) / 10.0
        row[A + 15] = hand_cost(work, W_TMP, L + 1) / 1000.0
        row[A + 16] = num / 10.0
        row[A + 17] = 1.0 if end else 0.0
        row[A + 18] = 1.0 if turned else 0.0
        row[A + 19] = 1.0 if joins else 0.0
        row[A + 20] = (al - 1) / 10.0
        row[A + 21] = active_strength(obs, o_active, 1 if end == 0 else 0, al - 1) / 320.0
        row[A + 22] = 1.0 if p == 0 or p == L else 0.0


def features_of(obs, legal, num_players: int) -> np.ndarray:
    """Python convenience: the ``(len(legal), FEATURE_SIZE)`` float32 features of ``legal``."""
    legal = np.ascontiguousarray(legal, dtype=np.int64)
    out = np.zeros((max(len(legal), 1), FEATURE_SIZE), dtype=np.float32)
    values = np.zeros(max(len(legal), 1), dtype=np.int64)
    action_features(np.ascontiguousarray(obs, dtype=np.float32), legal, len(legal), int(num_players), make_work(),
                    values, out)
    return out[: len(legal)]


__all__ = ["FEATURE_NAMES", "FEATURE_SIZE", "CONTEXT_SIZE", "action_features", "features_of", "WORK_SIZE", "make_work"]
