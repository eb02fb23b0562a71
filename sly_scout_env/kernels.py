"""Compiled helpers and layouts that know no game, shared by the game batch modules.

Why a module of their own: each game's ``batch.py`` writes its step kernels out (Numba
never caches closures, see ``sly_scout_env/sly/batch.py``); what needs no game knowledge
is written once, here.
"""

from __future__ import annotations

from numba import njit

# Actions a game may take before it is stopped: Sly's Fox-only Reveals could repeat for
# ever in principle, so every compiled loop (simulate, the learner's opponents) is capped.
STEP_CAP = 100_000

# -- one learner seat per game (sly_scout_env.learner) -------------------------------------
# Error codes a learner kernel writes to errors[i] (the Python side raises naming the row).
ERR_NONE = 0
ERR_ENGINE = 1  # the engine refused the learner's (checked) action: impossible under the rules
ERR_POLICY = 2  # a compiled opponent policy returned no legal action
ERR_NO_LEARNER_TURN = 3  # a game ended before the learner's first move
ERR_STEP_CAP = 4  # the opponents made STEP_CAP moves in a row without the learner's turn

# Per-row bookkeeping columns of ``meta`` (N, META) int64.
M_LEARNER = 0  # the learner's seat in the current game
M_EPISODE = 1  # games started in this row since the last reset() (drives "rotate")
M_STEPS = 2  # actions taken in the current game, every seat's (for max_steps, as the AEC env counts)
META = 3

# Settings of a batch, one int64 array ``cfg`` passed to every learner kernel.
C_FIXED_SEAT = 0  # the learner's seat, or -1 for "rotate"
C_MAX_STEPS = 1  # truncate a game after this many actions (every seat's), 0 = never
C_WIN = 2  # 1: reward="win", 0: reward="score"
CFG = 3


@njit(cache=True, inline="always")
def learner_truncated(meta, cfg):
    """``max_steps`` actions were taken in this game, every seat's counted (as the AEC env counts)."""
    return cfg[C_MAX_STEPS] > 0 and meta[M_STEPS] >= cfg[C_MAX_STEPS]


@njit(cache=True, inline="always")
def seat_learner(meta, cfg, opp_ids, seat_pol, num_p):
    """Seat the learner for the game about to start, and the opponents' policies around it."""
    learner = cfg[C_FIXED_SEAT] if cfg[C_FIXED_SEAT] >= 0 else meta[M_EPISODE] % num_p
    meta[M_LEARNER] = learner
    meta[M_EPISODE] += 1
    meta[M_STEPS] = 0
    k = 0
    for s in range(num_p):  # the other seats take opp_ids in seat order (as SingleAgentEnv)
        if s == learner:
            seat_pol[s] = -1
        else:
            seat_pol[s] = opp_ids[k]
            k += 1
    return learner


@njit(cache=True)
def win_rewards(num_p, out):
    """Turn the final scores in ``out[:num_p]`` into the AEC env's win rewards, in place.

    The winners (top score) share +1, the others share -1; all tied: 0 each.
    """
    best = out[0]
    for p in range(1, num_p):
        if out[p] > best:
            best = out[p]
    winners = 0
    for p in range(num_p):
        if out[p] == best:
            winners += 1
    for p in range(num_p):
        if winners == num_p:
            out[p] = 0.0
        elif out[p] == best:
            out[p] = 1.0 / winners
        else:
            out[p] = -1.0 / (num_p - winners)
