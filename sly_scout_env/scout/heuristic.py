"""The Scout heuristic ("greedy"), compiled: one function serves the bot and the simulator.

:func:`greedy_act` reads only what the player to act may know: its own observation
vector (``sly_scout_env.scout.observation``) and its legal action ids. It never sees
the state row, so the ``greedy`` Agent (``sly_scout_env.agents.bots.greedy``, fed by the env) and
in-kernel play (``policies.choose``, which encodes the observation of the seat to act)
run the very same code.

How it plays
------------
Everything is scored in hundredths of a round point (ints, no floats in the kernel).

**Hand quality.** A hand is worth ``-hand_cost``: the cheapest split of the hand, in
order, into shows (sets or runs, found by a small dynamic programme), each show
costing ``SEG_COST`` (a turn is needed to get rid of it; a lone low card is hard to
play, a lone high card less so: ``SINGLE_SLOPE`` per number away from 6; a long show is
cheaper: ``LONG_BONUS`` per card beyond the second, since it beats most active sets
and may end the round by (ii)), plus ``CARD_COST`` per card (every card left at the
end of the round costs a point). So fewer, longer groups are better.

**Round-start flip.** Turn the hand iff its other side has the lower hand cost.

**Show.** Value = cards collected (100 each) + change of hand quality (the shown
cards leave; breaking a long set/run costs the split it causes) + a strength bonus
(``STRENGTH_LEN`` per card beyond the first and ``STRENGTH_SET`` for a set: a show the
others cannot beat brings them to scout, which pays chips and, by (ii), ends the round
with our hand exempt) + ``EMPTY_BONUS`` when the show empties the hand (ends the
round by (i) at once).

**Scout.** Value = change of hand quality with the card inserted - the chip it costs
(2 players: our own chip, ``CHIP_COST_2P``; 3-5 players: a chip paid to the owner,
``CHIP_COST_N``). The candidate places are those where the card (either side up)
extends a neighbouring set or run, plus both ends of the hand (a lone card placed
where it breaks nothing); every end of the active set and both orientations are tried.

**Scout & Show** (3-5 players, once per round). Value = the best show of the new hand
that beats what remains of the active set (one the scouted card completes, or one
that could not beat the whole set but beats the rest): its show value as above, minus
the chip paid to the owner and ``SAS_COST`` for spending the once-per-round chip, so
it is used when scouting unlocks a show clearly better than the plain options.
Candidate places as for a Scout.

The legal action with the highest value is played; exact ties are broken at random
with the caller's generator.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below
from .rules import ACTIVE_CAP, MAX_SHOW, max_hand

# --- weights (hundredths of a point) ----------------------------------------------------------
SEG_COST = 100  # one show's worth of turns to get rid of a group
SINGLE_SLOPE = 6  # a lone card is cheaper per number above 6 (it beats more singles), dearer below
LONG_BONUS = 12  # a group is cheaper per card beyond the second (strong, ends rounds by (ii))
CARD_COST = 35  # each card held: -1 at round end unless shown
STRENGTH_LEN = 15  # show strength bonus per card beyond the first
STRENGTH_SET = 10  # a set beats a run of the same length
EMPTY_BONUS = 1000  # emptying the hand ends the round by (i): nothing lost for our hand
CHIP_COST_2P = 100  # 2 players: a Scout spends one of our chips (worth a point if kept)
CHIP_COST_N = 60  # 3-5 players: a Scout pays a chip to the active set's owner (an opponent's point)
SAS_COST = 80  # spending the once-per-round Scout & Show chip

# --- work buffer layout (int64): callers pass >= WORK_SIZE entries --------------------------
_W = 48  # >= MAX_HAND + 2 (a hand after an insertion, plus the DP's end slot)
W_HAND = 0  # the current hand's numbers (up side)
W_TMP = _W  # a candidate hand's numbers
W_DP = 2 * _W  # DP: cheapest cost of hand[i:]
W_SF = 3 * _W  # per slot: length of the set starting there
W_AF = 4 * _W  # per slot: length of the +1 run starting there
W_DF = 5 * _W  # per slot: length of the -1 run starting there
W_INS = 6 * _W  # Scout & Show: the hand with the scouted card inserted
WORK_SIZE = 7 * _W

NEG = -(10**12)


def make_work() -> np.ndarray:
    return np.zeros(WORK_SIZE, dtype=np.int64)


@njit(cache=True)
def hand_cost(work, off, L):
    """Cost of the hand numbers ``work[off:off+L]`` (see the module docstring, Hand quality)."""
    if L == 0:
        return 0
    work[W_DP + L] = 0
    for i in range(L - 1, -1, -1):
        v = work[off + i]
        if i == L - 1:
            work[W_SF + i] = 1
            work[W_AF + i] = 1
            work[W_DF + i] = 1
        else:
            nv = work[off + i + 1]
            work[W_SF + i] = work[W_SF + i + 1] + 1 if nv == v else 1
            work[W_AF + i] = work[W_AF + i + 1] + 1 if nv == v + 1 else 1
            work[W_DF + i] = work[W_DF + i + 1] + 1 if nv == v - 1 else 1
        best = SEG_COST - SINGLE_SLOPE * (v - 6) + work[W_DP + i + 1]
        maxl = max(work[W_SF + i], max(work[W_AF + i], work[W_DF + i]))
        for ln in range(2, min(maxl, MAX_SHOW) + 1):
            c = SEG_COST - LONG_BONUS * (ln - 2) + work[W_DP + i + ln]
            if c < best:
                best = c
        work[W_DP + i] = best
    return work[W_DP] + CARD_COST * L


@njit(cache=True)
def _show_strength(work, off, start, ln):
    """Strength of hand[start:start+ln] (rules.segment_strength on numbers), 0 if not a show."""
    a = work[off + start]
    if ln == 1:
        return 48 + a
    b = work[off + start + 1]
    if b == a:
        for i in range(start + 2, start + ln):
            if work[off + i] != a:
                return 0
        return ln * 32 + 16 + a
    step = b - a
    if step != 1 and step != -1:
        return 0
    for i in range(start + 2, start + ln):
        if work[off + i] - work[off + i - 1] != step:
            return 0
    return ln * 32 + min(a, work[off + start + ln - 1])


@njit(cache=True)
def _show_value(work, off, L, start, ln, collected):
    """Value of showing hand[start:start+ln] of the hand at ``work[off:off+L]`` (before adding the
    current hand's cost). The remaining hand is compacted into W_TMP; with ``off == W_TMP`` this
    is safe in place, since slot k is written only after slot i >= k was read.
    """
    k = 0
    for i in range(L):
        if i < start or i >= start + ln:
            work[W_TMP + k] = work[off + i]
            k += 1
    val = 100 * collected + STRENGTH_LEN * (ln - 1)
    if ln >= 2 and work[off + start] == work[off + start + 1]:
        val += STRENGTH_SET
    if k == 0:
        return val + EMPTY_BONUS
    return val - hand_cost(work, W_TMP, k)


@njit(cache=True)
def _obs_offsets(num_players):
    H = max_hand(num_players)
    o_active = 4 * H
    o_owner = o_active + 3 * ACTIVE_CAP
    o_players = o_owner + num_players + 1
    o_phase = o_players + 5 * num_players
    return H, o_active, o_owner, o_players, o_phase


@njit(cache=True)
def _is_candidate_place(work, L, v, p):
    """Whether inserting number ``v`` before slot ``p`` is worth evaluating (joins a neighbour or an end)."""
    if p == 0 or p == L:
        return True
    lv = work[W_HAND + p - 1]
    rv = work[W_HAND + p]
    return abs(lv - v) <= 1 or abs(rv - v) <= 1


@njit(cache=True)
def _load_hand(obs, num_players, work):
    """Own hand numbers (up side) into W_HAND; returns (hand size, active set size, hand cost)."""
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    L = 0
    while L < H and obs[4 * L] > 0.5:  # own hand: present at 4i, up at 4i+1, down at 4i+2
        work[W_HAND + L] = np.int64(obs[4 * L + 1])
        L += 1
    al = 0
    while al < ACTIVE_CAP and obs[o_active + 3 * al] > 0.5:
        al += 1
    return L, al, hand_cost(work, W_HAND, L)


@njit(cache=True)
def _flip_costs(obs, num_players, work):
    """(cost of the hand as it lies, cost of the hand turned)."""
    H = max_hand(num_players)
    L = 0
    while L < H and obs[4 * L] > 0.5:
        L += 1
    for i in range(L):
        work[W_HAND + i] = np.int64(obs[4 * i + 1])
    keep = hand_cost(work, W_HAND, L)
    for i in range(L):
        work[W_HAND + i] = np.int64(obs[4 * i + 2])
    return keep, hand_cost(work, W_HAND, L)


@njit(cache=True)
def _action_value(obs, a, num_players, L, al, base_cost, work):
    """Value of play-phase action ``a`` (after _load_hand), or NEG if it is not worth evaluating."""
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    scout_base = 2 + MAX_SHOW * H
    if a < scout_base:
        return _show_value(work, W_HAND, L, (a - 2) // MAX_SHOW, (a - 2) % MAX_SHOW + 1, al) + base_cost
    chip_cost = CHIP_COST_2P if num_players == 2 else CHIP_COST_N
    is_sas, end, turned, p, v = scout_move(obs, a, H, al, o_active)
    if not _is_candidate_place(work, L, v, p):
        return NEG
    if is_sas:
        show = _sas_value(work, L, v, p, end, al, obs, o_active)
        if show == NEG:
            return NEG  # no show the scouted card unlocks: a plain Scout says the same for less
        return show + base_cost - chip_cost - SAS_COST
    insert_card(work, W_TMP, L, v, p)
    return base_cost - hand_cost(work, W_TMP, L + 1) - chip_cost


@njit(cache=True, inline="always")
def scout_move(obs, a, H, al, o_active):
    """``(is_sas, end, turned, p, number)`` of the Scout or Scout & Show action ``a``: whether
    it is a Scout & Show, the active set's end taken (0 left, 1 right), whether the card is
    turned, the hand slot it goes before, and the number that will be up."""
    scout_base = 2 + MAX_SHOW * H
    sas_base = scout_base + 4 * H
    is_sas = a >= sas_base
    r = a - (sas_base if is_sas else scout_base)
    ef = r // H
    end = ef >> 1
    slot = 0 if end == 0 else al - 1
    return is_sas, end, ef & 1, r % H, np.int64(obs[o_active + 3 * slot + (2 if ef & 1 else 1)])


@njit(cache=True, inline="always")
def insert_card(work, off, L, v, p):
    """The hand numbers ``work[W_HAND:W_HAND+L]`` with ``v`` inserted before slot ``p``, into ``work[off:]``."""
    for i in range(L + 1):
        if i == p:
            work[off + i] = v
        else:
            work[off + i] = work[W_HAND + (i if i < p else i - 1)]


@njit(cache=True)
def action_values(obs, legal, n, num_players, work, out):
    """The heuristic's value of each action ``legal[:n]`` into ``out[:n]`` (NEG: not considered).

    Flip phase: minus the cost of the hand on the side each choice leaves up.
    """
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    if obs[o_phase] > 0.5:
        keep, turn = _flip_costs(obs, num_players, work)
        for i in range(n):
            out[i] = -turn if legal[i] == 1 else -keep
        return
    L, al, base_cost = _load_hand(obs, num_players, work)
    for i in range(n):
        out[i] = _action_value(obs, legal[i], num_players, L, al, base_cost, work)


@njit(cache=True)
def greedy_act(obs, legal, n, num_players, rng, work):
    """The heuristic's action among ``legal[:n]`` for the seat whose observation is ``obs``.

    ``rng``: int64 array whose element 0 is a splitmix64 word (tie-breaks; advanced in place).
    ``work``: int64 scratch of at least ``WORK_SIZE`` entries (no allocation here).
    """
    if n == 1:
        return legal[0]
    H, o_active, o_owner, o_players, o_phase = _obs_offsets(num_players)
    if obs[o_phase] > 0.5:  # flip phase: the side with the cheaper hand up
        keep, turn = _flip_costs(obs, num_players, work)
        want = 1 if turn < keep else 0
        for i in range(n):
            if legal[i] == want:
                return want
        return legal[0]
    L, al, base_cost = _load_hand(obs, num_players, work)
    best = NEG
    best_a = legal[0]
    ties = 0
    for idx in range(n):
        a = legal[idx]
        val = _action_value(obs, a, num_players, L, al, base_cost, work)
        if val == NEG:
            continue
        if val > best:
            best = val
            best_a = a
            ties = 1
        elif val == best:
            ties += 1
            if rng_below(rng, 0, ties) == 0:  # uniform among the tied (reservoir sampling)
                best_a = a
    return best_a


@njit(cache=True)
def active_strength(obs, o_active, lo, length):
    """Strength (numbers up) of ``length`` cards of the observed active set from slot ``lo``; 0 if none."""
    if length <= 0:
        return 0
    a0 = np.int64(obs[o_active + 3 * lo + 1])
    if length == 1:
        return 48 + a0
    a1 = np.int64(obs[o_active + 3 * (lo + 1) + 1])
    last = np.int64(obs[o_active + 3 * (lo + length - 1) + 1])
    if a1 == a0:
        return length * 32 + 16 + a0
    return length * 32 + min(a0, last)


@njit(cache=True)
def _sas_value(work, L, v, p, end, al, obs, o_active):
    """Best show of the hand with number v inserted before slot p that beats the remaining active set.

    The remaining set is the active set without its ``end`` card. Returns NEG if none; else
    the show's value (relative to an empty base: the caller adds the current hand cost).
    """
    target = active_strength(obs, o_active, 1 if end == 0 else 0, al - 1)  # what remains to beat
    insert_card(work, W_INS, L, v, p)
    # Every show of the new hand that beats what remains: one containing the scouted card
    # (scouting completed it) or an old one (scouting lowered the bar it must beat).
    best = NEG
    for s in range(L + 1):
        for ln in range(1, MAX_SHOW + 1):
            if s + ln > L + 1:
                break
            st = _show_strength(work, W_INS, s, ln)
            if st == 0:
                break  # longer windows from s are not shows either
            if st <= target:
                continue
            val = _show_value(work, W_INS, L + 1, s, ln, al - 1)  # collects what remains of the active set
            if val > best:
                best = val
    return best


class GreedyPlayer:
    """The ``greedy`` bot's move for one table: ``GreedyPlayer(num_players, options)(obs, legal, rng_word)``.

    The generic greedy bot (``sly_scout_env.agents.bots.greedy``) builds one per game it
    plays and calls it on the observation and legal ids the env gives the seat, so the bot
    plays exactly like the compiled policy ``greedy`` of ``policies``. ``rng_word``: an int64
    array whose element 0 is the bot's own generator word (ties are broken from it).
    """

    # The bot in one line, for menus.
    DESCRIPTION = "compiled heuristic: better side up, Shows that keep sets and runs, Scouts that extend them"

    def __init__(self, num_players: int, options: dict) -> None:
        self.num_players = int(num_players)
        self._work = make_work()  # the heuristic's scratch, reused every move

    def __call__(self, obs, legal, rng_word) -> int:
        return int(greedy_act(obs, legal, legal.size, self.num_players, rng_word, self._work))
