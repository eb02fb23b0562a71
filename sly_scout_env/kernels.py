"""Compiled helpers and layouts that know no game, shared by the game batch modules.

Why a module of their own: each game's ``batch.py`` writes its step kernels out (Numba
never caches closures, see ``sly_scout_env/sly/batch.py``); what needs no game knowledge
is written once, here.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._rng import WORD_SLOTS, rng_unit

# Actions a game may take before it is stopped: Sly's Fox-only Reveals could repeat for
# ever in principle, so every compiled loop (simulate, the learner's opponents) is capped.
STEP_CAP = 100_000


# -- the vector env's memory layout (docs/architecture.md, "The vector env's rows") ----------
# Tiles: the batched kernels walk the batch in tiles of TILE rows, one parallel task per
# tile, with one scratch row per tile (not per game): a Scout scratch row (14.6 KB) is
# twice the state row, and a scratch per game swept a second batch-sized array through the
# cache at every step. The tile's scratch stays in the core's cache while it plays its rows.
TILE = 64

# Narrow rows: the vector env keeps a game's rows as int16 when every value fits (the
# game's ``batch.new_batch(..., narrow=True)`` decides), with the generator word in four
# limbs (``_rng.word_load``). Values that grow with play (scores, chips: ``rules.GROWING``)
# are checked after every step; past NARROW_LIMIT the env widens the batch to int64 rows
# before the next step. One step moves a growing field by at most the others plus a deck
# (a Scout round end adds the chips and the collected cards to the total), so from at most
# NARROW_LIMIT a field reaches at most 2 * NARROW_LIMIT + 46 < 2**15: never an overflow.
NARROW = np.int16
NARROW_LIMIT = 2**13

# Prefetch: while a tile plays game i, the lines of game i + PREFETCH_AHEAD's state row,
# observation and mask are fetched (a hint; measured: 1 game ahead left a tenth of the
# large-batch rate on the table when the policy between steps had flushed the cache, 2 and
# 3 ahead did equally well). Only for a batch whose rows, observations and masks together
# pass PREFETCH_ABOVE bytes: below, they mostly stay in the last-level cache and the
# prefetches only cost. Measured: Sly at batch 4096 (6 to 8 MiB) was 3-5% faster without;
# Scout 3p at 4096 (14.5 MiB) lost a tenth of its rate without (Sly at 8192, 12 to 16 MiB,
# gives up 3% for it).
PREFETCH_AHEAD = 2
PREFETCH_ABOVE = 12 * 2**20


@njit(cache=True, inline="always")
def tile_count(n):
    """Tiles of :data:`TILE` rows covering ``n`` rows (the rows of a batch's scratch)."""
    return (n + TILE - 1) // TILE


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the cache for the line of ``arr[idx]`` ahead of use (for writing; a hint, never a fault).

    The rows of a large batch are not in the cache: without it each step waits on memory
    once per field the rules read (measured: Scout 5p at batch 8192 lost a quarter of its rate).
    """
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        # rw=1 (for writing), locality=3 (keep in every cache level), cache type 1 (data)
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch_ahead(states, obs, masks):
    """How many games ahead a step prefetches: PREFETCH_AHEAD for a batch past PREFETCH_ABOVE bytes, else 0."""
    size = states.shape[0] * (states.shape[1] * states.itemsize + obs.shape[1] * obs.itemsize
                              + masks.shape[1] * masks.itemsize)
    return PREFETCH_AHEAD if size > PREFETCH_ABOVE else 0


@njit(cache=True, inline="always")
def prefetch_row(states, i):
    """Prefetch every cache line of row ``i`` of a 2-D array (a game a tile is about to play)."""
    row = states[i]
    for k in range(0, row.shape[0], 64 // row.itemsize):
        prefetch(row, k)


@njit(cache=True, inline="always")
def near_limit(state, growing):
    """Whether a growing field of a narrow row passed NARROW_LIMIT (always False for int64 rows)."""
    if state.itemsize == 8:
        return False
    for k in growing:
        if abs(state[k]) > NARROW_LIMIT:
            return True
    return False


def narrow_rows(states: np.ndarray) -> np.ndarray:
    """``states`` as NARROW rows if every value fits within NARROW_LIMIT, else ``states`` itself.

    The generator word (``rules.RNG``) is handled by the caller: a fresh batch's is zero.
    """
    if np.abs(states).max(initial=0) > NARROW_LIMIT:
        return states
    return states.astype(NARROW)


def widen_rows(states: np.ndarray, rng: int) -> np.ndarray:
    """Int64 engine rows of ``states`` (narrow or not): the generator word whole at ``rng``."""
    if states.dtype == np.int64:
        return states.copy()
    if states.dtype != NARROW:
        raise TypeError(f"rows of {states.dtype} are neither the engine's (int64) nor narrow ({np.dtype(NARROW)})")
    wide = states.astype(np.int64)
    limbs = np.ascontiguousarray(states[:, rng:rng + WORD_SLOTS]).view(np.uint16).astype(np.uint64)
    word = np.zeros(len(states), dtype=np.uint64)
    for k in range(WORD_SLOTS):  # the lowest limb first (_rng.word_load)
        word |= limbs[:, k] << np.uint64(16 * k)
    wide[:, rng] = word.view(np.int64)
    wide[:, rng + 1:rng + WORD_SLOTS] = 0
    return wide

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
C_REWARD = 2  # the reward mode's code: REWARD_SCORE, REWARD_WIN or REWARD_MARGIN
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


# Reward modes as the kernels know them (the env's ``reward`` option, ``_aec.REWARD_MODES``).
REWARD_SCORE = 0  # "score": each seat's points, paid as they are scored
REWARD_WIN = 1  # "win": zero-sum win rewards at the end
REWARD_MARGIN = 2  # "margin": each seat's points minus the mean of the others', paid as they are scored
REWARD_CODES = {"score": REWARD_SCORE, "win": REWARD_WIN, "margin": REWARD_MARGIN}


@njit(cache=True)
def margins(num_p, out):
    """Turn the points in ``out[:num_p]`` into margins, in place: each seat's points minus
    the mean of the other seats' points (zero-sum; linear, so the margin of a points
    difference is the difference of the margins)."""
    total = 0.0
    for p in range(num_p):
        total += out[p]
    for p in range(num_p):
        out[p] = out[p] - (total - out[p]) / (num_p - 1)


@njit(cache=True)
def margin_change(num_p, now, before):
    """``now[:num_p]`` (points so far) becomes the change of each margin since ``before``
    (the points at the last payment), in place."""
    for p in range(num_p):
        now[p] -= before[p]
    margins(num_p, now)  # the change of each margin is the margin of the changes


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


# -- trained networks as compiled policies (sly_scout_env.netpolicy: the layout of ``nets``) --
NO_NETS = np.zeros(0, dtype=np.float32)  # the ``nets`` of a run in which no seat plays neural
# A network's header: observation size, L, activation, prior id, prior weight, kind, rows
# (an action scorer: the most feature rows, the table's action count), first-layer width,
# temperature (0: the move is the argmax; T > 0: a draw from the softmax of the logits / T).
NET_HEADER = 9
NET_TEMPERATURE = 8  # the header field read by net_move and net_score_move
NET_TANH = 0  # activation codes
NET_RELU = 1
NET_OBSERVATION = 0  # kinds: logits of every action from the observation
NET_SCORER = 1  # one logit per legal action from its feature row
NET_VALUE = 2  # one value in (0, 1) from the observation: the seat's expected reward (a search's cut-off)


# An action scorer runs its hidden layers on SCORER_BLOCK feature rows at once: each weight
# row is read once per block instead of once per move (measured on Scout's 37->128->128
# scorer, 25 moves: 95 us a position one row at a time, 55 us in blocks of 4, 52 in blocks
# of 8); the block's activations live in two halves of SCORER_BLOCK * widest layer floats.
SCORER_BLOCK = 4  # _dot_block and _scorer_block spell out its four rows


@njit(cache=True)
def _net_half(nets, o):
    """The widest hidden layer of the network at offset ``o``: one half of its workspace."""
    half = 0
    for l in range(int(nets[o + 1])):
        half = max(half, int(nets[o + NET_HEADER + l]))
    return half


@njit(cache=True)
def _net_rows_size(nets, o):
    """Floats of feature rows an action scorer keeps before its hidden activations (0: none)."""
    if int(nets[o + 5]) != NET_SCORER:
        return 0
    return int(nets[o + 6]) * int(nets[o + 7])


@njit(cache=True)
def _net_work(nets, o):
    """Floats the network at offset ``o`` needs after the observation: an action scorer's
    feature rows, two halves of a block of rows' activations, then its shared first-layer
    sum and its shared-column flags (:func:`_shared_columns`); otherwise two halves."""
    if int(nets[o + 5]) == NET_SCORER:
        return _net_rows_size(nets, o) + 2 * SCORER_BLOCK * _net_half(nets, o) + _net_half(nets, o) + int(nets[o + 7])
    return 2 * _net_half(nets, o)


@njit(cache=True)
def work_size(nets):
    """Floats the networks of ``nets`` need after the observation (the most of any network)."""
    most = 0
    for k in range(int(nets[0]) if nets.shape[0] > 0 else 0):
        most = max(most, _net_work(nets, int(nets[1 + k])))
    return most


@njit(cache=True)
def net_count(nets):
    return int(nets[0]) if nets.shape[0] > 0 else 0


@njit(cache=True)
def net_prior(nets, k):
    """The compiled policy id of network ``k``'s prior, -1 for none."""
    return int(nets[int(nets[1 + k]) + 3])


@njit(cache=True)
def net_input_size(nets, k):
    return int(nets[int(nets[1 + k])])


@njit(cache=True)
def net_fits(nets, k, observation_size):
    """Network ``k`` exists in ``nets`` and reads observations of ``observation_size``."""
    return 0 <= k < net_count(nets) and net_input_size(nets, k) == observation_size


@njit(cache=True)
def net_scores_actions(nets, k):
    """Network ``k`` is an action scorer: the caller writes feature rows (:func:`net_feature_rows`)."""
    return int(nets[int(nets[1 + k]) + 5]) == NET_SCORER


# Speed of the forward pass: each layer takes 2-D views of its weights and activations once
# and runs its loops in the function itself. Two things measured slow on Scout's scorer: a
# slice of ``nets`` per weight row handed to a helper (every view passed on has its reference
# count touched: 87 ns per 4-row dot product of 128, about 10 of them arithmetic), and offsets
# added to the loop index (Numba then checks each index for wrap-around and LLVM no longer
# vectorizes: three times slower again). Reassociation lets LLVM vectorize the sums; their
# order differs from numpy's anyway.
FAST = {"reassoc", "contract"}


@njit(cache=True, inline="always")
def _axpy(a, x, y):
    """``y += a * x`` (float32 views of equal length; inlined, so the view of ``x`` costs nothing)."""
    for r in range(y.shape[0]):
        y[r] += a * x[r]


@njit(cache=True, fastmath=FAST)
def _dot(x, w):
    """float32 dot product (views of equal length)."""
    z = np.float32(0.0)
    for j in range(x.shape[0]):
        z += x[j] * w[j]
    return z


@njit(cache=True, inline="always")
def _activate(act, z):
    return math.tanh(z) if act == NET_TANH else max(z, np.float32(0.0))


@njit(cache=True, fastmath=FAST)
def _sparse_layer(nets, p, x, y, act):
    """A hidden layer stored transposed (weight at ``p``, a row per input) on ``x`` into ``y``,
    adding the weight rows of the nonzero inputs only; returns the next weight's offset.
    (Observations and feature rows are mostly zeros, and so are half of ReLU's activations:
    on one input vector this beats a dot product per output, measured 3.1 against 5.1 us
    for Sly 3p's 159-128-128 ReLU network.)"""
    d = x.shape[0]
    h = y.shape[0]
    y[:] = nets[p + d * h : p + d * h + h]  # the bias
    for j in range(d):
        if x[j] != 0.0:
            _axpy(x[j], nets[p + j * h : p + (j + 1) * h], y)
    for r in range(h):
        y[r] = _activate(act, y[r])
    return p + d * h + h


@njit(cache=True)
def _hidden(nets, o, x, work):
    """The hidden layers of the observation or value network at offset ``o`` on the input
    ``x``, activations in the two halves of ``work``; returns the last layer's activations
    and the head's offset."""
    layers = int(nets[o + 1])
    act = int(nets[o + 2])
    half = _net_half(nets, o)
    p = o + NET_HEADER + layers + 1  # the first weight
    for l in range(layers):
        h = int(nets[o + NET_HEADER + l])
        y = work[(l % 2) * half : (l % 2) * half + h]
        p = _sparse_layer(nets, p, x, y, act)
        x = y
    return x, p


@njit(cache=True, fastmath=FAST)
def _dense_block(nets, p, a, b, act):
    """A later hidden layer (weight at ``p``, a row per output) on the SCORER_BLOCK rows of
    ``a`` into those of ``b``, each weight row read once for the four; returns the next offset."""
    d = a.shape[1]
    h = b.shape[1]
    w = nets[p : p + h * d].reshape((h, d))
    bias = nets[p + h * d : p + h * d + h]
    for r in range(h):
        wr = w[r]
        z0 = np.float32(0.0)
        z1 = np.float32(0.0)
        z2 = np.float32(0.0)
        z3 = np.float32(0.0)
        for j in range(d):
            wj = wr[j]
            z0 += a[0, j] * wj
            z1 += a[1, j] * wj
            z2 += a[2, j] * wj
            z3 += a[3, j] * wj
        c = bias[r]
        b[0, r] = _activate(act, z0 + c)
        b[1, r] = _activate(act, z1 + c)
        b[2, r] = _activate(act, z2 + c)
        b[3, r] = _activate(act, z3 + c)
    return p + h * d + h


@njit(cache=True, fastmath=FAST)
def _head_block(nets, p, a):
    """The head (one output, weight at ``p``) on the SCORER_BLOCK rows of ``a``: four logits."""
    d = a.shape[1]
    w = nets[p : p + d]
    z0 = np.float32(0.0)
    z1 = np.float32(0.0)
    z2 = np.float32(0.0)
    z3 = np.float32(0.0)
    for j in range(d):
        wj = w[j]
        z0 += a[0, j] * wj
        z1 += a[1, j] * wj
        z2 += a[2, j] * wj
        z3 += a[3, j] * wj
    c = nets[p + d]
    return np.float64(z0 + c), np.float64(z1 + c), np.float64(z2 + c), np.float64(z3 + c)


@njit(cache=True, fastmath=FAST)
def _shared_columns(nets, o, rows, n, work):
    """Before an action scorer's rows ``rows[:n]``: flag the columns equal in every row (the
    position's context, and features all the moves share) in ``work``'s flags and sum their
    part of the first layer once, with its bias, into ``work``'s shared sum (measured on
    Scout: half of the first layer's nonzero inputs are shared)."""
    layers = int(nets[o + 1])
    width = int(nets[o + 7])
    if layers == 0:
        return
    h = int(nets[o + NET_HEADER])
    half = SCORER_BLOCK * _net_half(nets, o)
    base = work[2 * half : 2 * half + _net_half(nets, o)]
    shared = work[2 * half + _net_half(nets, o) : 2 * half + _net_half(nets, o) + width]
    x = rows[:n * width].reshape((n, width))
    p = o + NET_HEADER + layers + 1  # the first weight, transposed
    w = nets[p : p + width * h].reshape((width, h))
    for r in range(h):
        base[r] = nets[p + width * h + r]
    for j in range(width):
        v = x[0, j]
        same = True
        for i in range(1, n):
            if x[i, j] != v:
                same = False
                break
        shared[j] = 1.0 if same else 0.0
        if same and v != 0.0:
            wj = w[j]
            for r in range(h):
                base[r] += v * wj[r]


@njit(cache=True, fastmath=FAST, inline="always")
def _first_layer_rest(nets, p, x, base, shared, y, act):
    """An action scorer's first layer (weight at ``p``, transposed) on the feature row ``x``
    into ``y``: the shared sum plus the row's own nonzero columns."""
    d = x.shape[0]
    h = y.shape[0]
    y[:] = base
    for j in range(d):
        if x[j] != 0.0 and shared[j] == 0.0:
            _axpy(x[j], nets[p + j * h : p + (j + 1) * h], y)
    for r in range(h):
        y[r] = _activate(act, y[r])


@njit(cache=True, fastmath=FAST)
def _scorer_block(nets, o, rows, i0, n, work):
    """The action scorer at offset ``o`` on the feature rows ``i0 .. i0 + SCORER_BLOCK`` of
    ``rows`` (a row past ``n`` is not read: its logit is meaningless), after
    :func:`_shared_columns` on the same rows: four float64 logits."""
    layers = int(nets[o + 1])
    act = int(nets[o + 2])
    width = int(nets[o + 7])
    half = SCORER_BLOCK * _net_half(nets, o)
    p0 = o + NET_HEADER + layers + 1  # the first weight
    m = min(SCORER_BLOCK, n - i0)
    block = rows[i0 * width : (i0 + m) * width].reshape((m, width))
    if layers == 0:  # the head alone, on the feature rows
        c = nets[p0 + width]
        w = nets[p0 : p0 + width]
        z = np.float32(0.0)
        z0 = _dot(block[0], w) + c
        z1 = _dot(block[1], w) + c if m > 1 else z
        z2 = _dot(block[2], w) + c if m > 2 else z
        z3 = _dot(block[3], w) + c if m > 3 else z
        return np.float64(z0), np.float64(z1), np.float64(z2), np.float64(z3)
    d = int(nets[o + NET_HEADER])
    base = work[2 * half : 2 * half + d]
    shared = work[2 * half + _net_half(nets, o) : 2 * half + _net_half(nets, o) + width]
    a = work[: SCORER_BLOCK * d].reshape((SCORER_BLOCK, d))
    p = p0 + width * d + d  # the second layer's weight (or the head's)
    for k in range(SCORER_BLOCK):
        if k < m:
            _first_layer_rest(nets, p0, block[k], base, shared, a[k], act)
        else:  # a row past n: any activations will do (its logit is not read)
            for r in range(d):
                a[k, r] = 0.0
    for l in range(1, layers):
        h = int(nets[o + NET_HEADER + l])
        b = work[(l % 2) * half : (l % 2) * half + SCORER_BLOCK * h].reshape((SCORER_BLOCK, h))
        p = _dense_block(nets, p, a, b, act)
        a = b
    return _head_block(nets, p, a)


@njit(cache=True)
def _observation_trunk(nets, o, obs):
    """The hidden layers of the observation network at offset ``o`` on ``obs[:in]`` (activations
    in ``obs[in:]``): the last layer's activations, the head's first weight and its first bias."""
    d = int(nets[o])
    if obs.shape[0] < d + 2 * _net_half(nets, o):  # the kernels do not bounds-check: refuse, never overrun
        raise ValueError("netpolicy: obs must hold netpolicy.obs_size(observation size, nets) floats")
    x, p = _hidden(nets, o, obs[:d], obs[d:])
    outs = int(nets[o + NET_HEADER + int(nets[o + 1])])
    return x, p, p + outs * x.shape[0]


@njit(cache=True, inline="always")
def _gumbel(rng):
    """A standard Gumbel draw from the policy's generator word ``rng[0]``: ``-log(-log U)``."""
    return -math.log(-math.log(rng_unit(rng, 0)))


@njit(cache=True)
def net_move(nets, k, obs, legal, n, prior_action, rng):
    """Network ``k``'s move over ``legal[:n]`` (ascending) for the observation in ``obs[:in]``,
    hidden activations in ``obs[in:]``; ``prior_action`` gets the prior weight. The masked
    argmax (the lowest id among equal logits), or with a temperature ``T`` in the header a
    draw from the softmax of the logits / T: the argmax of logit / T plus a Gumbel draw per
    legal action from ``rng[0]`` (one pass, no buffer)."""
    o = int(nets[1 + k])
    prior_weight = nets[o + 4]
    temperature = np.float64(nets[o + NET_TEMPERATURE])
    if int(nets[o + 5]) != NET_OBSERVATION:
        raise ValueError("netpolicy.net_move: an action scorer's move is net_score_move's")
    x, p, head_bias = _observation_trunk(nets, o, obs)
    width = x.shape[0]
    best = -1
    best_z = 0.0
    for i in range(n):
        a = legal[i]
        z = np.float64(_dot(x, nets[p + a * width : p + (a + 1) * width]) + nets[head_bias + a])
        if a == prior_action:
            z += prior_weight
        if temperature > 0.0:
            z = z / temperature + _gumbel(rng)
        if best < 0 or z > best_z:
            best = a
            best_z = z
    return best


@njit(cache=True)
def net_logits(nets, k, obs, legal, n, out):
    """Network ``k``'s logits of ``legal[:n]`` into ``out[:n]``: an observation network's (the
    observation in ``obs[:in]``; its prior bot is not added), or an action scorer's (the feature
    rows in :func:`net_feature_rows`' view of ``obs``)."""
    o = int(nets[1 + k])
    d = int(nets[o])
    if int(nets[o + 5]) == NET_SCORER:
        rows = obs[d : d + _net_rows_size(nets, o)]
        work = obs[d + _net_rows_size(nets, o) :]
        _shared_columns(nets, o, rows, n, work)
        for i0 in range(0, n, SCORER_BLOCK):
            z = _scorer_block(nets, o, rows, i0, n, work)
            for j in range(min(SCORER_BLOCK, n - i0)):
                out[i0 + j] = z[j]
        return
    if int(nets[o + 5]) != NET_OBSERVATION:
        raise ValueError("netpolicy.net_logits: a value network gives no logits")
    x, p, head_bias = _observation_trunk(nets, o, obs)
    width = x.shape[0]
    for i in range(n):
        a = legal[i]
        out[i] = np.float64(_dot(x, nets[p + a * width : p + (a + 1) * width]) + nets[head_bias + a])


@njit(cache=True)
def net_value(nets, k, obs):
    """The value network ``k`` on the observation in ``obs[:in]``: the logistic of its one output."""
    o = int(nets[1 + k])
    d = int(nets[o])
    if int(nets[o + 5]) != NET_VALUE:
        raise ValueError("netpolicy.net_value: network k is not a value network")
    if obs.shape[0] < d + 2 * _net_half(nets, o):
        raise ValueError("netpolicy.net_value: obs must hold netpolicy.obs_size(observation size, nets) floats")
    x, p = _hidden(nets, o, obs[:d], obs[d:])
    z = np.float64(_dot(x, nets[p : p + x.shape[0]]) + nets[p + x.shape[0]])
    return 1.0 / (1.0 + math.exp(-z))


@njit(cache=True)
def net_feature_rows(nets, k, obs, n):
    """The ``(n, features)`` view of ``obs`` after the observation where the caller writes the
    feature rows of its ``n`` legal actions for the action scorer ``k``."""
    o = int(nets[1 + k])
    d = int(nets[o])
    width = int(nets[o + 7])
    if n > int(nets[o + 6]):
        raise ValueError("netpolicy.net_feature_rows: more legal actions than the table's action count")
    if obs.shape[0] < d + _net_work(nets, o):  # the kernels do not bounds-check: refuse, never overrun
        raise ValueError("netpolicy.net_feature_rows: obs must hold netpolicy.obs_size(observation size, nets) floats")
    return obs[d : d + n * width].reshape((n, width))


@njit(cache=True)
def net_score_move(nets, k, obs, legal, n, rng):
    """The action scorer ``k``'s move over ``legal[:n]`` (ascending), the feature rows of those
    actions in :func:`net_feature_rows`' view of ``obs``: the argmax (the lowest id among equal
    logits), or a draw from the softmax of the logits / T as in :func:`net_move`."""
    o = int(nets[1 + k])
    d = int(nets[o])
    temperature = np.float64(nets[o + NET_TEMPERATURE])
    rows = obs[d : d + _net_rows_size(nets, o)]
    work = obs[d + _net_rows_size(nets, o) :]
    best = -1
    best_z = 0.0
    _shared_columns(nets, o, rows, n, work)
    for i0 in range(0, n, SCORER_BLOCK):
        z = _scorer_block(nets, o, rows, i0, n, work)
        for j in range(min(SCORER_BLOCK, n - i0)):
            zj = np.float64(z[j])
            if temperature > 0.0:
                zj = zj / temperature + _gumbel(rng)
            if best < 0 or zj > best_z:
                best = legal[i0 + j]
                best_z = zj
    return best
