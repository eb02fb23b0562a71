"""The Sly heuristic ("greedy"), compiled: one function serves the bot and the simulator.

:func:`greedy_act` reads only what the player to act may know: its own observation
vector (``sly_scout_env.sly.observation``) and its legal actions. It never sees the
state row, so the ``greedy`` Agent (fed by the env) and in-kernel play
(``policies.choose``, which fills the observation for the seat to act) run the very
same code.

How it plays
------------
1. **Public knowledge.** From the observation it rebuilds the table and, for every
   opponent, the *candidate* cards of their face-down cards: the opponent's cards
   flagged "could be in hand or face down" minus those flagged "known in hand" (sent
   home by a Reveal and not laid since). The chance that an opponent's face-down card
   is their Fox is 1 / (number of candidates) while the Fox is unseen, else 0.
2. **Belief samples.** It draws ``SAMPLES`` full tables from that knowledge (each
   opponent's candidates dealt uniformly over their face-down spaces and unknown hand
   places, as ``determinize`` does) and plays every legal action on each sample with
   the real rules kernel. Common samples for all actions keep the comparison fair.
3. **Evaluation** of the position after the action, per player ``p`` (relative seats):
   ``points now`` (Safe Hens, gobbled Hens, captured Foxes)
   ``+ ALPHA * space value`` for each face-down Hen of ``p`` (it scores at the final
   flip unless gobbled), ``+ HAND_VALUE`` per card in hand (cards in hand are moves
   left; the game ends when a hand runs down to one card),
   ``+/- GOBBLE * ...`` for each Hen House holding a face-down Fox and Hen: the Fox's
   owner stands to gobble the top Hen (gain its rank, the Hen's owner loses its
   space), ``- EXPOSE_RISK * players * q`` for a face-down Fox, ``q`` being the
   chance the others give it of being the Fox (1 / candidates of its owner).
   The action's value is the mean over samples of
   ``my evaluation - mean of the opponents' evaluations``; the best action is
   played (ties broken at random).

What follows from it (the behaviours the issue asks for):
* **Lays high Hens on high spaces when the risk is low**: a Hen's worth is
  ``ALPHA * space value``, and a Hen laid next to a possible opposing Fox loses its
  rank in the gobble term, so high Hens go to high spaces away from Foxes.
* **Bluffs with its Fox**: its Fox is laid where an opponent's Hen sits face down
  (the gobble term), and only while the table cannot tell it apart (``q`` small).
* **Exposes when the odds favour it**: an Expose of an opponent card is worth
  ``P(Fox) * players`` (plus the Fox's gobble threat removed) against a Hen made
  Safe for its owner; it is chosen when that beats laying or revealing.
* **Reveals when its own Fox would gobble a high opponent Hen**: the revealer's Fox
  ranks first among Foxes, so a Reveal of a house with its Fox and an opponent's high
  Hen scores the gobble on most samples; Reveals that would make it gobble its own
  Hen, or hand a gobble to an opponent, evaluate badly and are avoided.

Budget: ``SAMPLES`` x (legal actions) rule applications per decision, well under a
millisecond. One call allocates its scratch once (no allocation inside its loops).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below
from . import rules as R
from .determinize import deal_unseen

SAMPLES = 8  # belief samples per decision
ALPHA = 0.75  # share of a face-down Hen's space value counted as already won
HAND_VALUE = 0.4  # worth of a card in hand (moves left; hands running out end the game)
GOBBLE = 0.5  # weight of a pending gobble (a Fox and a Hen face down in one house)
EXPOSE_RISK = 0.3  # weight of the risk that a face-down Fox is exposed

PLAYER_FEATURES = 4
OPPONENT_FEATURES = 14


@njit(cache=True)
def _argmax_slice(obs, lo, n):
    best = -1
    for k in range(n):
        if obs[lo + k] > 0.5:
            best = k
    return best


@njit(cache=True)
def sample_row(obs, num_p, houses, reveal_all, rng, rng_off, row):
    """Fill ``row`` with a table consistent with the observation (observer = seat 0).

    Seats in ``row`` are the observation's relative seats. Cards out of play (piles)
    are parked as gobbled by their owner: they never move again, so they shift every
    seat's points by a constant that cancels when actions are compared.
    """
    n_sp = R.SPACES_PER_HOUSE * houses
    sf = 4 + num_p + R.CARDS_PER_PLAYER
    players = R.CARDS_PER_PLAYER + n_sp * sf
    opp = players + num_p * PLAYER_FEATURES
    row[:] = 0
    row[R.NUM_PLAYERS] = num_p
    row[R.HEN_HOUSES] = houses
    row[R.NUM_SPACES] = n_sp
    row[R.REVEAL_ALL] = reveal_all
    row[R.CURRENT_PLAYER] = 0
    for i in range(R.MAX_CARDS):
        row[R.CARD_WHERE + i] = R.GOBBLED
        row[R.CARD_PLACE + i] = i // R.CARDS_PER_PLAYER
        row[R.CARD_SEQ + i] = -1
    for s in range(R.MAX_SPACES):
        row[R.SPACE_OWNER + s] = -1
        row[R.SPACE_CARD + s] = -1
        row[R.SPACE_STATE + s] = R.EMPTY
    for p in range(num_p):
        row[R.HAND_SIZE + p] = np.int64(obs[players + p * PLAYER_FEATURES] + 0.5)
    for c in range(R.CARDS_PER_PLAYER):
        if obs[c] > 0.5:
            row[R.CARD_WHERE + c] = R.IN_HAND
    for s in range(n_sp):
        b = R.CARDS_PER_PLAYER + s * sf
        if obs[b] > 0.5:
            continue
        owner = _argmax_slice(obs, b + 4, num_p)
        card = _argmax_slice(obs, b + 4 + num_p, R.CARDS_PER_PLAYER)
        row[R.SPACE_OWNER + s] = owner
        row[R.SPACE_CARD + s] = card
        if obs[b + 1] > 0.5:
            row[R.SPACE_STATE + s] = R.FACE_DOWN
        elif obs[b + 2] > 0.5:
            row[R.SPACE_STATE + s] = R.SAFE
        else:
            row[R.SPACE_STATE + s] = R.FACE_UP_FOX
        if card >= 0:
            i = owner * R.CARDS_PER_PLAYER + card
            row[R.CARD_WHERE + i] = R.ON_SPACE
            row[R.CARD_PLACE + i] = s
    for o in range(1, num_p):
        ob = opp + (o - 1) * OPPONENT_FEATURES
        base = o * R.CARDS_PER_PLAYER
        free = 0
        left = 0
        for c in range(R.CARDS_PER_PLAYER):
            if obs[ob + c] > 0.5:
                if obs[ob + R.CARDS_PER_PLAYER + c] > 0.5:
                    row[R.CARD_WHERE + base + c] = R.IN_HAND
                    row[R.KNOWN_IN_HAND + base + c] = 1
                else:
                    free |= 1 << c
                    left += 1
        deal_unseen(row, o, free, left, rng, rng_off)


@njit(cache=True)
def evaluate(row, pts, u):
    """Per-seat evaluation of ``row`` into ``u`` (see the module docstring, point 3)."""
    num_p = row[R.NUM_PLAYERS]
    n_sp = row[R.NUM_SPACES]
    R.scores(row, pts)
    for p in range(num_p):
        u[p] = pts[p]
    if row[R.PHASE] == R.PHASE_GAME_OVER:
        return
    for p in range(num_p):
        u[p] += HAND_VALUE * row[R.HAND_SIZE + p]
    for h in range(row[R.HEN_HOUSES]):
        lo = h * R.SPACES_PER_HOUSE
        fox_owner = -1
        for s in range(lo, lo + R.SPACES_PER_HOUSE):
            if row[R.SPACE_STATE + s] != R.FACE_DOWN:
                continue
            owner = row[R.SPACE_OWNER + s]
            if row[R.SPACE_CARD + s] == R.FOX:
                if fox_owner < 0:
                    fox_owner = owner
                # The others see 1 chance in (face-down + unknown hand cards) of a Fox.
                m = row[R.HAND_SIZE + owner]
                for c in range(R.CARDS_PER_PLAYER):
                    if row[R.KNOWN_IN_HAND + owner * R.CARDS_PER_PLAYER + c] != 0:
                        m -= 1
                for t in range(n_sp):
                    if row[R.SPACE_STATE + t] == R.FACE_DOWN and row[R.SPACE_OWNER + t] == owner:
                        m += 1
                u[owner] -= EXPOSE_RISK * num_p / max(m, 1)
            else:
                u[owner] += ALPHA * (s % R.SPACES_PER_HOUSE + 1)
        if fox_owner < 0:
            continue
        # The top Hen as the Fox's owner would rank it when revealing.
        top = -1
        top_key = -1
        for s in range(lo, lo + R.SPACES_PER_HOUSE):
            if row[R.SPACE_STATE + s] == R.FACE_DOWN and row[R.SPACE_CARD + s] != R.FOX:
                dist = (row[R.SPACE_OWNER + s] - fox_owner + num_p) % num_p
                key = row[R.SPACE_CARD + s] * 8 + (7 - dist)
                if key > top_key:
                    top_key = key
                    top = s
        if top < 0:
            continue
        g = row[R.SPACE_OWNER + top]
        rank = row[R.SPACE_CARD + top]
        v = top % R.SPACES_PER_HOUSE + 1
        if g != fox_owner:
            u[fox_owner] += GOBBLE * rank
            u[g] -= GOBBLE * ALPHA * v
        else:
            # Anyone else revealing makes this Fox gobble its own Hen.
            u[g] -= GOBBLE * (rank + ALPHA * v)


@njit(cache=True)
def _utility(u, num_p):
    """My evaluation minus the mean of the opponents' (seat 0 = me)."""
    others = 0.0
    for p in range(1, num_p):
        others += u[p]
    return u[0] - others / (num_p - 1)


@njit(cache=True)
def greedy_values(obs, legal, n, num_p, houses, reveal_all, rng, rng_off, value, row, work, pts, u):
    """Mean value of each action ``legal[:n]`` over ``SAMPLES`` belief samples into ``value[:n]``.

    ``row``/``work`` are scratch rows (``ROW_SIZE``), ``pts`` int64 and ``u`` float64
    scratch of ``MAX_PLAYERS``. Also the move prior of ISMCTS (``sly_scout_env.sly.search``).
    """
    for i in range(n):
        value[i] = 0.0
    for _ in range(SAMPLES):
        sample_row(obs, num_p, houses, reveal_all, rng, rng_off, row)
        for i in range(n):
            work[:] = row
            R.apply_action(work, legal[i], legal)  # Sly's apply_action writes no scratch
            evaluate(work, pts, u)
            value[i] += _utility(u, num_p)
    for i in range(n):
        value[i] /= SAMPLES


# greedy_act's int64 workspace (callers allocate it once, so a move allocates nothing):
LEGAL_MAX = R.MAX_ACTIONS  # the largest action count (2 Hen Houses)
W_ROW = 0  # a sampled belief row
W_WORK = W_ROW + R.ROW_SIZE  # the row after one candidate action
W_PTS = W_WORK + R.ROW_SIZE  # points per seat (MAX_PLAYERS)
W_U = W_PTS + R.MAX_PLAYERS  # float64 view: evaluation per seat (MAX_PLAYERS)
W_VALUE = W_U + R.MAX_PLAYERS  # float64 view: mean value per legal action (LEGAL_MAX)
WORK_SIZE = W_VALUE + LEGAL_MAX


@njit(cache=True)
def greedy_act(obs, legal, n, num_p, houses, reveal_all, rng, rng_off, work):
    """The heuristic's action among ``legal[:n]`` for the observer of ``obs``.

    ``reveal_all`` is the game's ``reveal_scope == "all"`` flag (public); ``rng[rng_off]``
    is the generator word used for belief samples and tie-breaks; ``work`` is an int64
    scratch of ``WORK_SIZE`` (its float parts are float64 views of it).
    """
    if n == 1:
        return legal[0]
    row = work[W_ROW:W_WORK]
    after = work[W_WORK:W_PTS]
    pts = work[W_PTS:W_U]
    u = work[W_U:W_VALUE].view(np.float64)
    value = work[W_VALUE : W_VALUE + n].view(np.float64)
    greedy_values(obs, legal, n, num_p, houses, reveal_all, rng, rng_off, value, row, after, pts, u)
    best = value[0]
    for i in range(1, n):
        if value[i] > best:
            best = value[i]
    ties = 0
    for i in range(n):
        if value[i] >= best - 1e-9:
            ties += 1
    k = rng_below(rng, rng_off, ties)
    for i in range(n):
        if value[i] >= best - 1e-9:
            if k == 0:
                return legal[i]
            k -= 1
    return legal[0]


class GreedyPlayer:
    """The ``greedy`` bot's move for one table: ``GreedyPlayer(num_players, options)(obs, legal, rng_word)``.

    The generic greedy bot (``sly_scout_env.agents.bots.greedy``) builds one per game it
    plays and calls it on the observation and legal ids the env gives the seat, so the bot
    plays exactly like the compiled policy ``greedy`` of ``policies``. ``rng_word``: an int64
    array whose element 0 is the bot's own generator word. ``options``: the env's options
    (those that are not Sly's are ignored).
    """

    # The bot in one line, for menus.
    DESCRIPTION = "compiled heuristic: candidate cards, high Hens high, Fox bluffs, odds-based Exposes"

    def __init__(self, num_players: int, options: dict) -> None:
        names = ("hen_houses", "reveal_scope", "first_player")
        opts = R.parse_options(num_players=num_players, **{k: v for k, v in (options or {}).items() if k in names})
        self.num_players = opts["num_players"]
        self._hen_houses = opts["hen_houses"]
        self._reveal_all = 1 if opts["reveal_scope"] == "all" else 0
        self._work = np.zeros(WORK_SIZE, dtype=np.int64)  # the heuristic's scratch, reused every move

    def __call__(self, obs, legal, rng_word) -> int:
        return int(greedy_act(obs, legal, legal.size, self.num_players, self._hen_houses, self._reveal_all,
                              rng_word, 0, self._work))
