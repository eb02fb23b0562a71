"""Scout rules as Numba kernels on one flat ``int64`` state row.

Authority: ``docs/scout_rules.md`` (the official Oink Games rulebook 1.1 and its two-player
section, as implemented). Every kernel takes the state row as its first argument so
that a batched version can loop rows with ``prange``.

Cards
-----
A card in play is one integer ``code = up * 16 + down`` (both numbers 1..10). The number
in play is ``code >> 4``; flipping the card swaps the two nibbles. Empty slots hold 0.

Show strength
-------------
One integer orders every show by the three rules of "Which show is stronger"::

    strength = length * 32 + is_set * 16 + lowest_number     (0 = no active set)

Length dominates (lowest_number <= 10 < 16), then set over run, then the lowest number;
equal strength does not beat. A single card is a set of one.

Layout of the row (offsets below)::

    [options | round, turn, phase | active set | hands | known | chips | collected |
     Scout & Show chips | set-aside half | scores | last round | deal scratch | rng]

Scratch
-------
``legal_actions`` and the 2-player round-end test need a few per-slot arrays; the
caller passes a preallocated ``int64`` scratch array (``make_scratch()``), so no kernel
allocates while playing. The legal action ids are written to ``scratch[:count]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import WORD_SLOTS, rng_next, rng_shuffle, word_store
from ..checks import check_choice

MAX_PLAYERS = 5
MAX_SHOW = 10  # a set has at most 9 cards (each number is on 9 cards), a run at most 10 numbers
HAND_CAP = 41  # hand slots per seat in the row: the largest MAX_HAND over all player counts
DECK_CAP = 45  # the full deck
SET_ASIDE_CAP = 22  # 2 players: the half dealt in the next round
ACTIVE_CAP = MAX_SHOW

# Phases (state[PHASE]); the names are those of state_dict()["phase"].
PHASE_FLIP = 0  # each player in turn decides once whether to turn the whole hand
PHASE_PLAY = 1  # Show / Scout / Scout & Show
PHASE_SHOW_AFTER_SCOUT = 2  # the Show half of Scout & Show: only Shows are legal
PHASE_GAME_OVER = 3
PHASE_NAMES = ("flip", "play", "show_after_scout", "game_over")

# Round end reasons (state[O_LAST_END_REASON], simulate's end_reason).
END_NONE = 0  # no round finished yet (or a hand stopped by the step cap in simulate)
END_EMPTY_HAND = 1  # (i): a player has no cards left after a Show
END_ALL_SCOUTED = 2  # (ii): every other player only Scouted (2 players: the other one is stuck)

ERR_HAND_FULL = -1  # returned instead of a count/0 if a Scout would exceed MAX_HAND (provably impossible)

# --- state row layout: one comment per field -------------------------------------------
NUM_PLAYERS = 0  # number of players, 2..5
O_ROUNDS = 1  # rounds in the game (option "rounds")
O_II_AFTER_EMPTY = 2  # option ii_after_empty_set: 1 = (ii) also ends the round after the active set was scouted empty
O_SCORE_HELD = 3  # option score_held_chips: 1 = with 2 players each chip still held scores +1
O_MAX_HAND = 4  # MAX_HAND of this player count (H of the action layout)
O_ROUND = 5  # round being played, 0-based; == rounds once the game is over
O_STARTING_PLAYER = 6  # seat that starts this round (round mod players)
CURRENT_PLAYER = 7  # seat to act
PHASE = 8  # PHASE_*
O_ACTIVE_OWNER = 9  # seat that showed the active set (kept after it is scouted empty); -1 before the round's first Show
O_ACTIVE_LEN = 10  # cards in the active set
O_ACTIVE = 11  # active set: ACTIVE_CAP card codes, left to right as shown
O_HAND_LEN = O_ACTIVE + ACTIVE_CAP  # per seat: number of cards in hand
O_HANDS = O_HAND_LEN + MAX_PLAYERS  # per seat: HAND_CAP card codes, left to right
O_KNOWN = O_HANDS + MAX_PLAYERS * HAND_CAP  # per seat per hand slot: 1 if the card is public (scouted this round)
O_SCOUT_CHIPS = O_KNOWN + MAX_PLAYERS * HAND_CAP  # per seat: Scout chips (3-5p: received this round; 2p: still held)
O_COLLECTED_LEN = O_SCOUT_CHIPS + MAX_PLAYERS  # per seat: cards collected this round
O_COLLECTED = O_COLLECTED_LEN + MAX_PLAYERS  # per seat: DECK_CAP collected card codes, in order collected
O_SAS_LEFT = O_COLLECTED + MAX_PLAYERS * DECK_CAP  # per seat: 1 if the Scout & Show chip is unspent this round
O_SET_ASIDE_LEN = O_SAS_LEFT + MAX_PLAYERS  # 2 players: cards set aside for the next round (else 0)
O_SET_ASIDE = O_SET_ASIDE_LEN + 1  # 2 players: SET_ASIDE_CAP set-aside card codes, in dealing order
O_SCORES = O_SET_ASIDE + SET_ASIDE_CAP  # per seat: game total (sum of the finished rounds' scores)
O_LAST_ROUND_SCORES = O_SCORES + MAX_PLAYERS  # per seat: score of the last finished round
O_LAST_END_REASON = O_LAST_ROUND_SCORES + MAX_PLAYERS  # END_* of the last finished round
O_DECK = O_LAST_END_REASON + 1  # DECK_CAP codes: scratch of the last shuffle (not part of the game state)
RNG = O_DECK + DECK_CAP  # splitmix64 generator word for shuffling (WORD_SLOTS slots: _rng.py)
ROW_SIZE = RNG + WORD_SLOTS

# The fields that grow with play without a bound fixed by the deal: game totals, Scout
# chips, the last round's scores (a narrow vector-env row is widened before they overflow:
# kernels.NARROW_LIMIT). Every other field is bounded by the deck, the hands or the options.
GROWING = np.array([f + s for f in (O_SCORES, O_SCOUT_CHIPS, O_LAST_ROUND_SCORES) for s in range(MAX_PLAYERS)],
                   dtype=np.int64)

# --- scratch layout (int64) -------------------------------------------------------------
MAX_ACTIONS = 2 + MAX_SHOW * HAND_CAP + 8 * HAND_CAP  # 740: the largest action space
_SLOTS = HAND_CAP + 2
S_ACTS = 0  # legal action ids
S_SETB = MAX_ACTIONS  # per slot: length of the set (equal numbers) ending at the slot
S_ASCB = S_SETB + _SLOTS  # per slot: length of the +1 run ending at the slot
S_DESCB = S_ASCB + _SLOTS  # per slot: length of the -1 run ending at the slot
S_SETF = S_DESCB + _SLOTS  # per slot: length of the set starting at the slot
S_ASCF = S_SETF + _SLOTS  # per slot: length of the +1 run starting at the slot
S_DESCF = S_ASCF + _SLOTS  # per slot: length of the -1 run starting at the slot
S_BEST_LEFT = S_DESCF + _SLOTS  # [k]: strongest show inside hand[0:k]
S_BEST_RIGHT = S_BEST_LEFT + _SLOTS  # [k]: strongest show inside hand[k:L]
SCRATCH_SIZE = S_BEST_RIGHT + _SLOTS


def make_scratch() -> np.ndarray:
    """A scratch buffer for ``legal_actions`` / ``legal_mask`` / ``apply_action``."""
    return np.zeros(SCRATCH_SIZE, dtype=np.int64)


PLAYER_COUNTS = (2, 3, 4, 5)
OPTION_NAMES = ("num_players", "rounds", "ii_after_empty_set", "score_held_chips")


def parse_options(num_players=4, rounds=None, ii_after_empty_set=True, score_held_chips=True, **unknown) -> dict:
    """Validate Scout's game options; return them as a dict (rounds resolved to an int).

    Raises ValueError naming the bad option and the allowed values.
    """
    if unknown:
        name = next(iter(unknown))
        raise ValueError(
            f"unknown option {name!r}; allowed options: {', '.join(OPTION_NAMES)}, render_mode, reward, max_steps"
        )
    num_players = check_choice("num_players", num_players, PLAYER_COUNTS)
    if rounds is None:
        rounds = 2 if num_players == 2 else num_players
    if isinstance(rounds, (bool, np.bool_)) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds={rounds!r} is not allowed; allowed values: None (official count) or an int >= 1")
    return {
        "num_players": num_players,
        "rounds": int(rounds),
        "ii_after_empty_set": check_choice("ii_after_empty_set", ii_after_empty_set, (True, False)),
        "score_held_chips": check_choice("score_held_chips", score_held_chips, (True, False)),
    }


def new_state(num_players: int, rounds: int, ii_after_empty_set: bool, score_held_chips: bool) -> np.ndarray:
    """A state row holding the options of :func:`parse_options` (call :func:`reset` before playing)."""
    state = np.zeros(ROW_SIZE, dtype=np.int64)
    configure(state, num_players, rounds, int(ii_after_empty_set), int(score_held_chips))
    return state


# --- sizes per player count -------------------------------------------------------------
@njit(cache=True)
def max_hand(num_players):
    """MAX_HAND (see the env docstring for the proof)."""
    if num_players == 2:
        return 14  # 11 dealt + 3 chips; every Scout costs a chip
    if num_players == 3:
        return 34  # 36 cards - 2 (each other player keeps >= 1 card)
    return 41  # 44 - 3 (4 players) and 45 - 4 (5 players)


@njit(cache=True)
def cards_dealt(num_players):
    if num_players == 2 or num_players == 4:
        return 11
    if num_players == 3:
        return 12
    return 9


@njit(cache=True)
def num_actions(num_players):
    return 2 + 18 * max_hand(num_players)


@njit(cache=True)
def in_deck(num_players, a, b):
    """Whether the card {a, b} is in the deck of this player count."""
    lo = min(a, b)
    hi = max(a, b)
    if lo < 1 or hi > 10 or lo == hi:
        return False
    if num_players == 3:
        return hi != 10  # the nine cards with a 10 are removed
    if num_players == 2 or num_players == 4:
        return not (lo == 9 and hi == 10)
    return True


@njit(cache=True, inline="always")
def flipped(code):
    return ((code & 15) << 4) | (code >> 4)


# --- reset and dealing --------------------------------------------------------------------
@njit(cache=True)
def configure(state, num_players, rounds, ii_after_empty_set, score_held_chips):
    """Write the options (ints; the flags 0/1) into the row: the fields :func:`reset` keeps."""
    state[NUM_PLAYERS] = num_players
    state[O_ROUNDS] = rounds
    state[O_II_AFTER_EMPTY] = 1 if ii_after_empty_set != 0 else 0
    state[O_SCORE_HELD] = 1 if score_held_chips != 0 else 0
    state[O_MAX_HAND] = max_hand(num_players)


@njit(cache=True)
def reset(state, seed_word):
    """Start a new game with the options already in the row: zero scores, deal round 0.

    ``seed_word`` seeds the row's generator.
    """
    num_players = state[NUM_PLAYERS]
    rounds = state[O_ROUNDS]
    ii_after_empty_set = state[O_II_AFTER_EMPTY]
    score_held_chips = state[O_SCORE_HELD]
    state[:] = 0
    configure(state, num_players, rounds, ii_after_empty_set, score_held_chips)
    word_store(state, RNG, seed_word)
    state[O_ROUND] = 0
    deal_round(state)


@njit(cache=True)
def deal_round(state):
    """Deal round state[O_ROUND]: clear the table, hands from a fresh shuffle (or the set-aside half)."""
    n = state[NUM_PLAYERS]
    r = state[O_ROUND]
    k = cards_dealt(n)
    start = r % n
    state[O_STARTING_PLAYER] = start
    state[CURRENT_PLAYER] = start
    state[PHASE] = PHASE_FLIP
    state[O_ACTIVE_OWNER] = -1
    state[O_ACTIVE_LEN] = 0
    state[O_ACTIVE : O_ACTIVE + ACTIVE_CAP] = 0
    state[O_HANDS : O_HANDS + MAX_PLAYERS * HAND_CAP] = 0
    state[O_KNOWN : O_KNOWN + MAX_PLAYERS * HAND_CAP] = 0
    state[O_COLLECTED : O_COLLECTED + MAX_PLAYERS * DECK_CAP] = 0
    for s in range(MAX_PLAYERS):
        active_seat = s < n
        state[O_HAND_LEN + s] = k if active_seat else 0
        state[O_COLLECTED_LEN + s] = 0
        # 2 players: 3 chips each, no Scout & Show. 3-5: no chips yet, one S&S chip each.
        state[O_SCOUT_CHIPS + s] = 3 if (active_seat and n == 2) else 0
        state[O_SAS_LEFT + s] = 1 if (active_seat and n > 2) else 0
    if n == 2 and r % 2 == 1:
        # Round 2 of a pair: the 22 set-aside cards, in their set-aside order and orientation.
        for s in range(2):
            for j in range(k):
                state[O_HANDS + s * HAND_CAP + j] = state[O_SET_ASIDE + s * k + j]
        state[O_SET_ASIDE_LEN] = 0
        state[O_SET_ASIDE : O_SET_ASIDE + SET_ASIDE_CAP] = 0
        return
    m = 0
    for a in range(1, 11):
        for b in range(a + 1, 11):
            if in_deck(n, a, b):
                state[O_DECK + m] = a * 16 + b
                m += 1
    # Shuffle order, then orientation (one generator draw per card).
    deck = state[O_DECK : O_DECK + DECK_CAP]
    rng_shuffle(state, RNG, deck, m)
    for i in range(m):
        if rng_next(state, RNG) & np.uint64(1):
            state[O_DECK + i] = flipped(state[O_DECK + i])
    for s in range(n):
        for j in range(k):
            state[O_HANDS + s * HAND_CAP + j] = state[O_DECK + s * k + j]
    if n == 2:
        state[O_SET_ASIDE_LEN] = m - 2 * k
        for j in range(m - 2 * k):
            state[O_SET_ASIDE + j] = state[O_DECK + 2 * k + j]
    else:
        state[O_SET_ASIDE_LEN] = 0


# --- strength ------------------------------------------------------------------------------
@njit(cache=True)
def segment_strength(state, off, lo, hi):
    """Strength of the valid show state[off+lo : off+hi] (0 if empty)."""
    n = hi - lo
    if n <= 0:
        return 0
    a = state[off + lo] >> 4
    if n == 1:
        return 48 + a
    if (state[off + lo + 1] >> 4) == a:
        return n * 32 + 16 + a
    return n * 32 + min(a, state[off + hi - 1] >> 4)


@njit(cache=True)
def active_strength(state):
    return segment_strength(state, O_ACTIVE, 0, state[O_ACTIVE_LEN])


@njit(cache=True)
def _scan_hand(state, seat, scratch):
    """Fill the per-slot run/set lengths and the best-show prefix/suffix maxima of seat's hand.

    Why: the strongest show inside hand[0:k] / hand[k:L] answers in O(1) whether some Show
    not touching an inserted card exists (Scout & Show legality, 2-player round end).
    """
    h = O_HANDS + seat * HAND_CAP
    L = state[O_HAND_LEN + seat]
    prev = -100
    for i in range(L):
        v = state[h + i] >> 4
        if i > 0 and prev == v:
            scratch[S_SETB + i] = scratch[S_SETB + i - 1] + 1
        else:
            scratch[S_SETB + i] = 1
        if i > 0 and prev == v - 1:
            scratch[S_ASCB + i] = scratch[S_ASCB + i - 1] + 1
        else:
            scratch[S_ASCB + i] = 1
        if i > 0 and prev == v + 1:
            scratch[S_DESCB + i] = scratch[S_DESCB + i - 1] + 1
        else:
            scratch[S_DESCB + i] = 1
        prev = v
    nxt = -100
    for i in range(L - 1, -1, -1):
        v = state[h + i] >> 4
        if i < L - 1 and nxt == v:
            scratch[S_SETF + i] = scratch[S_SETF + i + 1] + 1
        else:
            scratch[S_SETF + i] = 1
        if i < L - 1 and nxt == v + 1:
            scratch[S_ASCF + i] = scratch[S_ASCF + i + 1] + 1
        else:
            scratch[S_ASCF + i] = 1
        if i < L - 1 and nxt == v - 1:
            scratch[S_DESCF + i] = scratch[S_DESCF + i + 1] + 1
        else:
            scratch[S_DESCF + i] = 1
        nxt = v
    # The longest sequence ending (starting) at a slot is the strongest show ending (starting) there.
    scratch[S_BEST_LEFT] = 0
    for i in range(L):
        v = state[h + i] >> 4
        sb = scratch[S_SETB + i]
        ab = scratch[S_ASCB + i]
        db = scratch[S_DESCB + i]
        if sb >= ab and sb >= db:
            st = sb * 32 + 16 + v
        elif ab >= db:
            st = ab * 32 + v - ab + 1
        else:
            st = db * 32 + v
        scratch[S_BEST_LEFT + i + 1] = max(scratch[S_BEST_LEFT + i], st)
    scratch[S_BEST_RIGHT + L] = 0
    for i in range(L - 1, -1, -1):
        v = state[h + i] >> 4
        sf = scratch[S_SETF + i]
        af = scratch[S_ASCF + i]
        df = scratch[S_DESCF + i]
        if sf >= af and sf >= df:
            st = sf * 32 + 16 + v
        elif af >= df:
            st = af * 32 + v
        else:
            st = df * 32 + v - df + 1
        scratch[S_BEST_RIGHT + i] = max(scratch[S_BEST_RIGHT + i + 1], st)


@njit(cache=True)
def _best_with_inserted(state, seat, scratch, v, p):
    """Strongest show that contains a card of number v inserted before slot p (after _scan_hand)."""
    h = O_HANDS + seat * HAND_CAP
    L = state[O_HAND_LEN + seat]
    lv = (state[h + p - 1] >> 4) if p > 0 else -100
    rv = (state[h + p] >> 4) if p < L else -100
    le = scratch[S_SETB + p - 1] if lv == v else 0
    re = scratch[S_SETF + p] if rv == v else 0
    best = (1 + le + re) * 32 + 16 + v
    le = scratch[S_ASCB + p - 1] if lv == v - 1 else 0
    re = scratch[S_ASCF + p] if rv == v + 1 else 0
    if le + re > 0:
        best = max(best, (1 + le + re) * 32 + v - le)
    le = scratch[S_DESCB + p - 1] if lv == v + 1 else 0
    re = scratch[S_DESCF + p] if rv == v - 1 else 0
    if le + re > 0:
        best = max(best, (1 + le + re) * 32 + v - re)
    return best


# --- legal actions ----------------------------------------------------------------------------
@njit(cache=True)
def legal_actions(state, scratch):
    """Write the legal action ids (ascending) to scratch[:count]; return count.

    Returns ERR_HAND_FULL if a Scout would be legal but the hand already holds MAX_HAND
    cards (impossible in a game played by the rules; guards hand-made states).
    """
    phase = state[PHASE]
    if phase == PHASE_GAME_OVER:
        return 0
    if phase == PHASE_FLIP:
        scratch[0] = 0
        scratch[1] = 1
        return 2
    n = state[NUM_PLAYERS]
    H = state[O_MAX_HAND]
    cur = state[CURRENT_PLAYER]
    h = O_HANDS + cur * HAND_CAP
    L = state[O_HAND_LEN + cur]
    al = state[O_ACTIVE_LEN]
    target = active_strength(state)
    _scan_hand(state, cur, scratch)
    count = 0
    for i in range(L):
        v = state[h + i] >> 4
        sf = scratch[S_SETF + i]
        af = scratch[S_ASCF + i]
        df = scratch[S_DESCF + i]
        maxl = max(sf, max(af, df))
        if maxl > MAX_SHOW:
            maxl = MAX_SHOW
        for ln in range(1, maxl + 1):
            if ln == 1 or sf >= 2:
                st = ln * 32 + 16 + v
            elif af >= 2:
                st = ln * 32 + v
            else:
                st = ln * 32 + v - ln + 1
            if st > target:
                scratch[count] = 2 + i * MAX_SHOW + ln - 1
                count += 1
    if phase == PHASE_SHOW_AFTER_SCOUT or al == 0:
        return count
    can_scout = state[O_SCOUT_CHIPS + cur] > 0 if n == 2 else True
    can_sas = n > 2 and state[O_SAS_LEFT + cur] == 1
    if not (can_scout or can_sas):
        return count
    if L >= H:
        return ERR_HAND_FULL
    ends = 1 if al == 1 else 2  # with one card, "left" and "right" are the same move
    scout_base = 2 + MAX_SHOW * H
    if can_scout:
        for ef in range(2 * ends):
            base = scout_base + ef * H
            for p in range(L + 1):
                scratch[count] = base + p
                count += 1
    if can_sas:
        sas_base = scout_base + 4 * H
        for e in range(ends):
            code = state[O_ACTIVE] if e == 0 else state[O_ACTIVE + al - 1]
            lo = 1 if e == 0 else 0
            remain = segment_strength(state, O_ACTIVE, lo, lo + al - 1)
            for f in range(2):
                v = (code >> 4) if f == 0 else (code & 15)
                base = sas_base + (e * 2 + f) * H
                for p in range(L + 1):
                    ok = remain == 0
                    if not ok:
                        # Shows not touching the inserted card are old shows left or right of the gap.
                        ok = max(scratch[S_BEST_LEFT + p], scratch[S_BEST_RIGHT + p]) > remain
                    if not ok:
                        ok = _best_with_inserted(state, cur, scratch, v, p) > remain
                    if ok:
                        scratch[count] = base + p
                        count += 1
    return count


@njit(cache=True)
def legal_mask(state, out, scratch):
    """Write the int8 legal-action mask into ``out``; return the count (or ERR_HAND_FULL)."""
    out[:] = 0
    count = legal_actions(state, scratch)
    for i in range(count):
        out[scratch[i]] = 1
    return count


# --- applying actions ----------------------------------------------------------------------------
@njit(cache=True)
def _end_round(state, reason, exempt):
    """Score the round (``exempt`` keeps its hand cards for free), then deal the next or end the game."""
    n = state[NUM_PLAYERS]
    for s in range(n):
        chips = state[O_SCOUT_CHIPS + s]
        if n == 2 and state[O_SCORE_HELD] == 0:
            chips = 0
        pts = state[O_COLLECTED_LEN + s] + chips
        if s != exempt:
            pts -= state[O_HAND_LEN + s]
        state[O_LAST_ROUND_SCORES + s] = pts
        state[O_SCORES + s] += pts
    state[O_LAST_END_REASON] = reason
    state[O_ROUND] += 1
    if state[O_ROUND] >= state[O_ROUNDS]:
        state[PHASE] = PHASE_GAME_OVER
    else:
        deal_round(state)


@njit(cache=True)
def _two_player_decision_point(state, seat, scratch):
    """2 players, (ii): the non-owner to act who can neither Show nor Scout ends the round."""
    if state[O_ACTIVE_LEN] == 0 or state[O_SCOUT_CHIPS + seat] > 0:
        return
    _scan_hand(state, seat, scratch)
    if scratch[S_BEST_LEFT + state[O_HAND_LEN + seat]] > active_strength(state):
        return
    _end_round(state, END_ALL_SCOUTED, state[O_ACTIVE_OWNER])


@njit(cache=True)
def _show(state, cur, start, length, scratch):
    n = state[NUM_PLAYERS]
    h = O_HANDS + cur * HAND_CAP
    kn = O_KNOWN + cur * HAND_CAP
    L = state[O_HAND_LEN + cur]
    al = state[O_ACTIVE_LEN]
    c0 = O_COLLECTED + cur * DECK_CAP + state[O_COLLECTED_LEN + cur]
    for i in range(al):  # the beaten active set is collected face down
        state[c0 + i] = state[O_ACTIVE + i]
    state[O_COLLECTED_LEN + cur] += al
    state[O_ACTIVE : O_ACTIVE + ACTIVE_CAP] = 0
    for i in range(length):
        state[O_ACTIVE + i] = state[h + start + i]
    state[O_ACTIVE_LEN] = length
    state[O_ACTIVE_OWNER] = cur
    for i in range(start, L - length):
        state[h + i] = state[h + i + length]
        state[kn + i] = state[kn + i + length]
    for i in range(L - length, L):
        state[h + i] = 0
        state[kn + i] = 0
    state[O_HAND_LEN + cur] = L - length
    state[PHASE] = PHASE_PLAY
    if L - length == 0:
        _end_round(state, END_EMPTY_HAND, -1)
        return
    nxt = (cur + 1) % n
    state[CURRENT_PLAYER] = nxt
    if n == 2:
        _two_player_decision_point(state, nxt, scratch)


@njit(cache=True)
def _scout(state, cur, end, flip, pos, is_sas, scratch):
    n = state[NUM_PLAYERS]
    L = state[O_HAND_LEN + cur]
    if L >= state[O_MAX_HAND]:
        return ERR_HAND_FULL
    al = state[O_ACTIVE_LEN]
    if end == 0:
        code = state[O_ACTIVE]
        for i in range(al - 1):
            state[O_ACTIVE + i] = state[O_ACTIVE + i + 1]
    else:
        code = state[O_ACTIVE + al - 1]
    state[O_ACTIVE + al - 1] = 0
    state[O_ACTIVE_LEN] = al - 1
    if flip:
        code = flipped(code)
    h = O_HANDS + cur * HAND_CAP
    kn = O_KNOWN + cur * HAND_CAP
    for i in range(L, pos, -1):
        state[h + i] = state[h + i - 1]
        state[kn + i] = state[kn + i - 1]
    state[h + pos] = code
    state[kn + pos] = 1  # the whole Scout move is public
    state[O_HAND_LEN + cur] = L + 1
    owner = state[O_ACTIVE_OWNER]
    if n == 2:
        state[O_SCOUT_CHIPS + cur] -= 1  # paid to the centre: nobody receives it
        _two_player_decision_point(state, cur, scratch)
        return 0
    state[O_SCOUT_CHIPS + owner] += 1
    if is_sas:
        state[O_SAS_LEFT + cur] = 0
        state[PHASE] = PHASE_SHOW_AFTER_SCOUT
        return 0
    nxt = (cur + 1) % n
    if nxt == owner and (state[O_ACTIVE_LEN] > 0 or state[O_II_AFTER_EMPTY] == 1):
        _end_round(state, END_ALL_SCOUTED, owner)
    else:
        state[CURRENT_PLAYER] = nxt
    return 0


@njit(cache=True)
def apply_action(state, action, scratch):
    """Apply a legal action (the caller checked legality). Returns 0 or ERR_HAND_FULL (state untouched)."""
    phase = state[PHASE]
    cur = state[CURRENT_PLAYER]
    n = state[NUM_PLAYERS]
    H = state[O_MAX_HAND]
    if phase == PHASE_FLIP:
        if action == 1:
            h = O_HANDS + cur * HAND_CAP
            for i in range(state[O_HAND_LEN + cur]):
                state[h + i] = flipped(state[h + i])  # flip in place, order kept
        nxt = (cur + 1) % n
        if nxt == state[O_STARTING_PLAYER]:
            state[PHASE] = PHASE_PLAY
        state[CURRENT_PLAYER] = nxt
        return 0
    scout_base = 2 + MAX_SHOW * H
    if action < scout_base:
        a = action - 2
        _show(state, cur, a // MAX_SHOW, a % MAX_SHOW + 1, scratch)
        return 0
    sas_base = scout_base + 4 * H
    is_sas = action >= sas_base
    r = action - (sas_base if is_sas else scout_base)
    ef = r // H
    return _scout(state, cur, ef >> 1, ef & 1, r % H, is_sas, scratch)
