"""The compiled ISMCTS: one search kernel for every game, the game's parts passed in compiled.

The algorithm is the one of the ``ismcts`` bot (``sly_scout_env.agents.bots.ismcts``,
whose docstring explains it): single-observer ISMCTS with availability counts, one value
per seat (max^n), the hybrid opponent model, progressive widening on the heuristic's
prior, random or compiled-policy rollouts. Here every iteration runs inside Numba:

1. copy the root row and re-deal what the observer cannot know (the game's
   ``determinize``), seed the row's generators from the search's own word;
2. descend: at each node, the game's ``edge_keys`` lists the legal moves and what the
   observer sees of each (its *key*); moves with one key form one edge. An opponent's
   move under ``opponents="policy"`` is the compiled policy's (``opponent_policy``, by
   default the rollout's); otherwise the node
   expands an untried available edge (the prior's favourite under widening, else a
   uniform draw) or follows the UCB edge among the available ones (each one's
   availability count grows by one). A hidden detail inside an edge is the mover's
   heuristic choice (``"hybrid"``) or a uniform draw (``"tree"``). With ``policy_leaf``
   (``opponents="policy"`` only), a node the descent reaches for the first time through
   an opponent's move ends it: the rollout plays on from there with the same policy, and
   the node is expanded (its prior computed, its edges made) only from its second visit.
   Behind the other seats' moves most nodes are never reached again (each
   determinization deals them other hands), so the expansions and network calls spent
   on them bought little;
3. roll out to the end with a compiled policy, score with the game's ``returns``;
4. back up one reward per seat along the path.

With a **guide** (a ``netfile.NeuralPolicy`` passed to :class:`CompiledSearch`), the network
goes inside the search (the ``ismcts`` bot's docstring, "Guide"):

* the prior: at every node where the tree chooses, PUCT on the network's masked softmax for
  the player to move, from that player's own observation of the determinization (the game's
  ``logits`` part; either kind of checkpoint; the logits divided by ``guide_temperature``,
  1 by default: above 1 flattens the prior), summed over the moves behind each edge and
  kept from the iteration that first saw the edge. Every available edge gets a child; an
  unvisited one takes its parent's mean less ``fpu_reduction`` (first-play urgency; 0 by
  default: the mean itself; above 0 the search stays longer with the edges it has visited,
  below 0 it tries more of the others). At the root the prior may be
  mixed with Dirichlet noise (``noise``, ``noise_alpha``: self-play exploration), drawn
  from the search's own word (Marsaglia and Tsang's gamma). With ``guide_opponents=False``
  only the observer's nodes are guided: the other seats' nodes choose by UCB as in the
  plain search, which saves the network's calls where the determinized hands change the
  legal moves from one iteration to the next;
* the value: a checkpoint with a value network ends the simulation at the new leaf: each
  seat's reward is the network's estimate from that seat's observation (the game's
  ``observe`` part), instead of a rollout (``value_mix`` below 1 plays the rollout too and
  mixes the two).

The tree lives in flat arrays, preallocated and reused across decisions: per node a
visit count, an availability count and a value sum per seat (``tf``, ``ti``); per edge
``(node, key)`` an entry of an open-addressing hash table holding the child node (-1
until expanded) and the prior value (for widening). An edge's prior is kept from the
iteration that first saw it, as in the Python search. When the tables fill up the kernel
doubles them (rare: the arrays are returned and kept for the next decision).

Random numbers: the search draws from a splitmix64 word of its own (``rng``), seeded by
the bot; the row's deal generator and the rollout policy's word are seeded from it at
each iteration. So a move depends only on the bot's seed, never on the thread count.

The game's parts (its ``search`` role's ``KERNELS``) are compiled functions of the
signatures below, passed as first-class functions: one search kernel, compiled and
cached once, serves every game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, objmode, types

from ._rng import rng_below, rng_next, rng_unit
from .kernels import net_value

# -- the game's parts: signatures ------------------------------------------------------------
_I = types.int64
_IA = types.int64[::1]
_FA = types.float64[::1]
_F32 = types.float32[::1]
# mover(row) -> the seat to move, or -1 once the game is over
SIG_MOVER = _I(_IA)
# determinize(row, observer, rng, iw, prm): re-deal in place what ``observer`` cannot know
SIG_DETERMINIZE = _I(_IA, _I, _IA, _IA, _IA)
# seed(row, word, prng): the row's deal generator and the rollout policy's word from ``word``
SIG_SEED = _I(_IA, _I, _IA)
# edge_keys(row, observer, iw, legal, keys, prm) -> n legal moves and the observer's key of each
SIG_EDGE_KEYS = _I(_IA, _I, _IA, _IA, _IA, _IA)
# apply(row, action, iw) -> 0, or negative on an engine error
SIG_APPLY = _I(_IA, _I, _IA)
# prior(row, observer, legal, n, rng, out, iw, fw, obs): the heuristic's value of legal[:n] into out[:n]
SIG_PRIOR = _I(_IA, _I, _IA, _I, _IA, _FA, _IA, _FA, _F32)
# best_action(row, actions, m, rng, iw, fw, obs, nets, prng): the mover's pick among actions[:m]
SIG_BEST = _I(_IA, _IA, _I, _IA, _IA, _FA, _F32, _F32, _IA)
# policy_action(row, policy, iw, obs, prng, nets) -> the compiled policy's move (negative: none)
SIG_POLICY = _I(_IA, _I, _IA, _F32, _IA, _F32)
# rollout(row, policy, iw, obs, prng, nets) -> 0, or negative when a policy found no move
SIG_ROLLOUT = _I(_IA, _I, _IA, _F32, _IA, _F32)
# returns(row, out, iw, prm): the final value per seat (points) into out
SIG_RETURNS = _I(_IA, _FA, _IA, _IA)
# observe(row, seat, obs, prm) -> the observation size: seat's observation (as the env gives it) into obs
SIG_OBSERVE = _I(_IA, _I, _F32, _IA)
# logits(row, seat, legal, n, iw, obs, nets, k, out, prm): network k's logits of legal[:n] into out[:n]
SIG_LOGITS = _I(_IA, _I, _IA, _I, _IA, _F32, _F32, _I, _FA, _IA)

KERNEL_SIGNATURES = (SIG_MOVER, SIG_DETERMINIZE, SIG_SEED, SIG_EDGE_KEYS, SIG_APPLY, SIG_PRIOR, SIG_BEST,
                     SIG_POLICY, SIG_ROLLOUT, SIG_RETURNS, SIG_OBSERVE, SIG_LOGITS)
KERNEL_NAMES = ("mover", "determinize", "seed", "edge_keys", "apply", "prior", "best_action", "policy_action",
                "rollout", "returns", "observe", "logits")

# -- configuration (cfg: int64, fcfg: float64) ------------------------------------------------
C_PLAYERS = 0  # seats at the table
C_TOP_K = 1  # progressive widening at the observer's nodes: top_k (0 = off)
C_OPPONENTS = 2  # OPP_*
C_ROLLOUT = 3  # the compiled rollout policy's id (the game's policies)
C_VALUE = 4  # VALUE_*
C_GUIDE = 5  # the guide's policy network in gnets (PUCT on its prior), -1: plain UCB
C_CUTOFF = 6  # the guide's value network in gnets (ends a simulation at the new leaf), -1: roll out
C_GUIDE_OPPONENTS = 7  # 1: the prior guides every seat's nodes, 0: only the observer's (the others: UCB)
C_POLICY_LEAF = 8  # 1: under OPP_POLICY a node first reached through the other seats' moves is a leaf
C_OPPONENT_POLICY = 9  # under OPP_POLICY: the compiled policy id the other seats play in the tree
C_SIZE = 10
F_C = 0  # UCB exploration constant
F_SCORE_SCALE = 1  # points of margin that squash to tanh(1)
F_GUIDE_C = 2  # PUCT exploration constant
F_NOISE = 3  # share of Dirichlet noise in the root's prior (self-play exploration; 0: none)
F_NOISE_ALPHA = 4  # the Dirichlet concentration of that noise
F_VALUE_MIX = 5  # weight of the value network at a leaf: 1 ends the simulation there, below 1 it is
#                  mixed with the rollout's reward (AlphaGo's lambda; the rollout is then played)
F_GUIDE_T = 6  # temperature of the prior's softmax: above 1 flattens it, below 1 sharpens it
F_FPU = 7  # first-play urgency reduction: an unvisited guided child is valued at its parent's mean less this
F_SIZE = 8
OPP_TREE, OPP_HYBRID, OPP_POLICY = 0, 1, 2
OPPONENT_CODES = {"tree": OPP_TREE, "hybrid": OPP_HYBRID, "policy": OPP_POLICY}
VALUE_WIN, VALUE_SCORE, VALUE_MIXED, VALUE_LEAD = 0, 1, 2, 3
VALUE_CODES = {"win": VALUE_WIN, "score": VALUE_SCORE, "mixed": VALUE_MIXED, "lead": VALUE_LEAD}

# -- the tree ---------------------------------------------------------------------------------
# ti[node, .]: integer statistics of a node (the edge that leads to it)
T_VISITS = 0  # iterations through the node
T_AVAIL = 1  # iterations in which its edge was available where the tree chose
T_SIZE = 2
# tf[node, .]: the value sum of each seat (max^n: each mover maximises its own)
# meta: counters of the tree
M_NODES = 0  # nodes in use (node 0 is the root)
M_EDGES = 1  # hash entries in use
M_SIZE = 2
# The edge table: an open-addressing hash table of (node, key) -> child node and prior.
E_EMPTY = np.int64(-(2**63))  # a free slot's key
_KEY_MIX = np.int64(0x9E3779B97F4A7C15 - 2**64)  # Fibonacci hashing of the packed (node, key)

# Error codes the kernel returns (a negative iteration count).
ERR_ENGINE = -1  # the game's apply or edge_keys failed
ERR_POLICY = -2  # a compiled policy found no legal move


def new_tree(num_players: int, nodes: int = 1024):
    """Empty tree arrays for ``nodes`` nodes (they grow as needed): (ti, tf, ek, ev, ep, meta)."""
    edges = 1
    while edges < 2 * nodes:
        edges *= 2
    ti = np.zeros((nodes, T_SIZE), dtype=np.int64)
    tf = np.zeros((nodes, max(1, num_players)), dtype=np.float64)
    ek = np.full(edges, E_EMPTY, dtype=np.int64)
    ev = np.full(edges, -1, dtype=np.int64)
    ep = np.full(edges, np.nan, dtype=np.float64)
    meta = np.zeros(M_SIZE, dtype=np.int64)
    return ti, tf, ek, ev, ep, meta


@njit(cache=True)
def _pack(node, key):
    return (node << 32) ^ (key & 0xFFFFFFFF)


@njit(cache=True)
def _slot(ek, packed):
    """The slot of ``packed`` in the edge table, or the free slot where it would go."""
    mask = ek.shape[0] - 1
    h = (packed * _KEY_MIX) >> np.int64(17)
    i = h & mask
    while ek[i] != E_EMPTY and ek[i] != packed:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _new_node(ti, tf, meta):
    """A fresh node (zero statistics) at the end of the node arrays; returns its index."""
    node = meta[M_NODES]
    meta[M_NODES] += 1
    ti[node, :] = 0
    tf[node, :] = 0.0
    return node


@njit(cache=True)
def _grow_edges(ek, ev, ep):
    n = ek.shape[0] * 2
    nk = np.full(n, E_EMPTY, dtype=np.int64)
    nv = np.full(n, -1, dtype=np.int64)
    npr = np.full(n, np.nan, dtype=np.float64)
    for i in range(ek.shape[0]):
        if ek[i] != E_EMPTY:
            j = _slot(nk, ek[i])
            nk[j] = ek[i]
            nv[j] = ev[i]
            npr[j] = ep[i]
    return nk, nv, npr


@njit(cache=True)
def _grow_nodes(ti, tf):
    n = ti.shape[0] * 2
    ni = np.zeros((n, ti.shape[1]), dtype=np.int64)
    nf = np.zeros((n, tf.shape[1]), dtype=np.float64)
    ni[: ti.shape[0]] = ti
    nf[: tf.shape[0]] = tf
    return ni, nf


@njit(cache=True)
def reward(ret, n, mode, scale, out):
    """Per-seat reward in [0, 1] from the final values ``ret[:n]`` (win share, squashed margin, or both)."""
    best = ret[0]
    for s in range(1, n):
        if ret[s] > best:
            best = ret[s]
    k = 0
    total = 0.0
    for s in range(n):
        total += ret[s]
        if ret[s] == best:
            k += 1
    for s in range(n):
        win = 1.0 / k if ret[s] == best else 0.0
        if mode == VALUE_LEAD:
            # the margin over the best of the others: what winning the game asks for
            rival = -np.inf
            for t in range(n):
                if t != s and ret[t] > rival:
                    rival = ret[t]
            out[s] = 0.5 + 0.5 * np.tanh((ret[s] - rival) / scale)
            continue
        squash = 0.5 + 0.5 * np.tanh((ret[s] - (total - ret[s]) / (n - 1)) / scale)
        if mode == VALUE_WIN:
            out[s] = win
        elif mode == VALUE_SCORE:
            out[s] = squash
        else:
            out[s] = 0.5 * (win + squash)


@njit(cache=True)
def _gamma(rng, alpha):
    """A Gamma(alpha, 1) draw (Marsaglia and Tsang; boosted below alpha 1) from the search's word."""
    boost = 1.0
    if alpha < 1.0:
        boost = rng_unit(rng, 0) ** (1.0 / alpha)
        alpha += 1.0
    d = alpha - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        z = np.sqrt(-2.0 * np.log(rng_unit(rng, 0))) * np.cos(2.0 * np.pi * rng_unit(rng, 0))
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        u = rng_unit(rng, 0)
        if np.log(u) < 0.5 * z * z + d - d * v + d * np.log(v):
            return boost * d * v


# Under a time limit the kernel reads the clock before every TIME_CHUNK iterations (but the first).
# It reads it itself, in one call a move: a call from Python costs about half a millisecond here,
# mostly Numba resolving the twelve compiled game parts passed in, which at a call per chunk
# cost a time-limited search about half its iterations.
TIME_CHUNK = 4
NO_CAP = 2**62  # the iteration cap of a search bounded by its time limit alone


@njit(cache=True)
def _clock():
    """``time.perf_counter()`` from compiled code (an object-mode block: about a microsecond)."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _guide_priors(probs, n, m, gfirst, gnext, gslot, ep, root, rng, noise, alpha, temperature):
    """The guide's softmax ``probs[:n]`` at ``temperature`` (logits in, probabilities out), summed
    per edge group, into the prior of each group not yet set; at the root, mixed with Dirichlet noise."""
    top = probs[0]
    for i in range(1, n):
        top = max(top, probs[i])
    total = 0.0
    for i in range(n):
        probs[i] = np.exp((probs[i] - top) / temperature)
        total += probs[i]
    noisy = root and noise > 0.0
    ntotal = 0.0
    if noisy:
        for g in range(m):
            probs[n + g] = _gamma(rng, alpha)
            ntotal += probs[n + g]
    for g in range(m):
        if np.isnan(ep[gslot[g]]):
            pg = 0.0
            i = gfirst[g]
            while i >= 0:
                pg += probs[i] / total
                i = gnext[i]
            if noisy:
                pg = (1.0 - noise) * pg + noise * probs[n + g] / ntotal
            ep[gslot[g]] = pg


@njit(cache=True)
def _group(keys, n, ukeys, gfirst, gnext):
    """The distinct keys of ``keys[:n]`` in order of first appearance into ``ukeys``; returns their count.

    ``gfirst[g]``: the first legal index of group g; ``gnext[i]``: the next legal index with the
    same key (-1 at the end). Keys of distinguishable moves are distinct action ids (>= 0); only
    hidden details share a (negative) key, so only those are searched for.
    """
    m = 0
    for i in range(n):
        gnext[i] = -1
        k = keys[i]
        g = -1
        if k < 0:
            for j in range(m):
                if ukeys[j] == k:
                    g = j
                    break
        if g < 0:
            ukeys[m] = k
            gfirst[m] = i
            m += 1
        else:
            j = gfirst[g]
            while gnext[j] >= 0:
                j = gnext[j]
            gnext[j] = i
    return m


@njit(types.Tuple((_I, types.int64[:, ::1], types.float64[:, ::1], _IA, _IA, _FA))(
    types.FunctionType(SIG_MOVER), types.FunctionType(SIG_DETERMINIZE), types.FunctionType(SIG_SEED),
    types.FunctionType(SIG_EDGE_KEYS), types.FunctionType(SIG_APPLY), types.FunctionType(SIG_PRIOR),
    types.FunctionType(SIG_BEST), types.FunctionType(SIG_POLICY), types.FunctionType(SIG_ROLLOUT),
    types.FunctionType(SIG_RETURNS), types.FunctionType(SIG_OBSERVE), types.FunctionType(SIG_LOGITS),
    _IA, _I, _I, types.float64, _IA, _IA, _FA,  # root_row, observer, iterations, deadline, rng, cfg, fcfg
    _IA, _IA, _FA, _F32, _F32, _IA, _IA, _F32, _F32,  # row, iw, fw, obs, nets, prng, prm, gobs, gnets
    # legal, keys, ukeys, gfirst, gnext, order, gslot, acts, path, pvals, ret, rew
    _IA, _IA, _IA, _IA, _IA, _IA, _IA, _IA, _IA, _FA, _FA, _FA,
    types.int64[:, ::1], types.float64[:, ::1], _IA, _IA, _FA, _IA,  # ti, tf, ek, ev, ep, meta
), cache=True)
def run(mover_fn, determinize_fn, seed_fn, edge_keys_fn, apply_fn, prior_fn, best_fn, policy_fn, rollout_fn,
        returns_fn, observe_fn, logits_fn, root_row, observer, iterations, deadline, rng, cfg, fcfg, row, iw, fw, obs,
        nets, prng, prm, gobs, gnets, legal, keys, ukeys, gfirst, gnext, order, gslot, acts, path, pvals, ret, rew, ti,
        tf, ek, ev, ep, meta):
    """At most ``iterations`` more iterations on the tree, and with ``deadline > 0`` (a
    ``time.perf_counter()`` reading) none begun after it, the clock read before every
    :data:`TIME_CHUNK` iterations but the first; returns (iterations done or an ERR_* code, and
    the tree arrays, which are new arrays when they had to grow)."""
    players = cfg[C_PLAYERS]
    top_k = cfg[C_TOP_K]
    opponents = cfg[C_OPPONENTS]
    policy = cfg[C_ROLLOUT]
    opponent_policy = cfg[C_OPPONENT_POLICY]
    value = cfg[C_VALUE]
    c = fcfg[F_C]
    scale = fcfg[F_SCORE_SCALE]
    guide = cfg[C_GUIDE]
    cutoff = cfg[C_CUTOFF]
    guide_c = fcfg[F_GUIDE_C]
    policy_leaf = cfg[C_POLICY_LEAF] == 1
    if meta[M_NODES] == 0:  # a fresh tree: the root
        ti[0, :] = 0
        tf[0, :] = 0.0
        meta[M_NODES] = 1
    done = 0
    guided = False  # whether the last node chose by PUCT (its new child is then counted already)
    for _ in range(iterations):  # (only the count matters)
        if deadline > 0.0 and done >= TIME_CHUNK and done % TIME_CHUNK == 0 and _clock() >= deadline:
            break
        done += 1
        # 1. determinize
        row[:] = root_row
        determinize_fn(row, observer, rng, iw, prm)
        seed_fn(row, np.int64(rng_next(rng, 0)), prng)
        node = 0
        depth = 1
        path[0] = 0
        expanded = False
        mover = mover_fn(row)
        # 2. descend
        while mover >= 0:
            n = edge_keys_fn(row, observer, iw, legal, keys, prm)
            if n <= 0:
                return ERR_ENGINE, ti, tf, ek, ev, ep
            while meta[M_NODES] + n + 1 >= ti.shape[0]:  # a level adds at most one node (guided: one per edge)
                ti, tf = _grow_nodes(ti, tf)
            while 2 * (meta[M_EDGES] + n) >= ek.shape[0]:  # and at most n edges: keep the table half free
                ek, ev, ep = _grow_edges(ek, ev, ep)
            if mover != observer and opponents == OPP_POLICY:
                a = policy_fn(row, opponent_policy, iw, obs, prng, nets)
                if a < 0:
                    return ERR_POLICY, ti, tf, ek, ev, ep
                k = keys[0]
                for i in range(n):
                    if legal[i] == a:
                        k = keys[i]
                        break
                s = _slot(ek, _pack(node, k))
                if ek[s] == E_EMPTY:
                    ek[s] = _pack(node, k)
                    meta[M_EDGES] += 1
                if ev[s] < 0:
                    ev[s] = _new_node(ti, tf, meta)
                if apply_fn(row, a, iw) != 0:
                    return ERR_ENGINE, ti, tf, ek, ev, ep
                node = ev[s]
                path[depth] = node
                depth += 1
                if policy_leaf and ti[node, T_VISITS] == 0:
                    # a first visit: the rollout plays on from here with the same policy, so the
                    # node's prior and children wait for its second visit (most never get one)
                    expanded = True
                    break
                mover = mover_fn(row)
                continue
            m = _group(keys, n, ukeys, gfirst, gnext)
            # the edges of this node: each group's slot in the edge table, registered once per level
            for g in range(m):
                p = _pack(node, ukeys[g])
                s = _slot(ek, p)
                if ek[s] == E_EMPTY:
                    ek[s] = p
                    meta[M_EDGES] += 1
                gslot[g] = s
                order[g] = g
            guided = guide >= 0 and (cfg[C_GUIDE_OPPONENTS] == 1 or mover == observer)
            if guided:
                # PUCT on the guide's prior (the Python search's _guided_edge): every available edge
                # gets a child, whose availability grows by one; an unvisited one takes the parent's mean
                for g in range(m):
                    if np.isnan(ep[gslot[g]]):
                        logits_fn(row, mover, legal, n, iw, gobs, gnets, guide, pvals, prm)
                        _guide_priors(pvals, n, m, gfirst, gnext, gslot, ep, node == 0, rng, fcfg[F_NOISE],
                                      fcfg[F_NOISE_ALPHA], fcfg[F_GUIDE_T])
                        break
                fpu = (tf[node, mover] / ti[node, T_VISITS] if ti[node, T_VISITS] > 0 else 0.5) - fcfg[F_FPU]
                best = -np.inf
                pick = -1
                for g in range(m):
                    s = gslot[g]
                    if ev[s] < 0:
                        ev[s] = _new_node(ti, tf, meta)
                    ch = ev[s]
                    ti[ch, T_AVAIL] += 1
                    v = ti[ch, T_VISITS]
                    q = tf[ch, mover] / v if v > 0 else fpu
                    score = q + guide_c * ep[s] * np.sqrt(ti[ch, T_AVAIL]) / (1 + v)
                    if score > best:
                        best = score
                        pick = g
                child = ev[gslot[pick]]
                expanded = ti[child, T_VISITS] == 0
            else:
                width = m
                widen = top_k > 0 and mover == observer
                if widen:
                    # progressive widening: the top_k + visits**0.25 edges the prior ranks best
                    missing = False
                    for g in range(m):
                        if np.isnan(ep[gslot[g]]):
                            missing = True
                            break
                    if missing:
                        prior_fn(row, observer, legal, n, rng, pvals, iw, fw, obs)
                        for i in range(n):
                            s = _slot(ek, _pack(node, keys[i]))
                            if np.isnan(ep[s]):
                                ep[s] = pvals[i]
                    # stable insertion sort of the groups by prior, best first
                    for g in range(1, m):
                        x = order[g]
                        px = ep[gslot[x]]
                        j = g - 1
                        while j >= 0 and ep[gslot[order[j]]] < px:
                            order[j + 1] = order[j]
                            j -= 1
                        order[j + 1] = x
                    cap = top_k + int(ti[node, T_VISITS] ** 0.25)
                    if cap < width:
                        width = cap
                # 3. expand an untried edge, or follow the UCB edge
                untried = 0
                for j in range(width):
                    if ev[gslot[order[j]]] < 0:
                        untried += 1
                pick = -1
                if untried > 0:
                    r = 0 if widen else rng_below(rng, 0, untried)  # widened: the prior's favourite
                    for j in range(width):
                        if ev[gslot[order[j]]] < 0:
                            if r == 0:
                                pick = order[j]
                                break
                            r -= 1
                    child = _new_node(ti, tf, meta)
                    ev[gslot[pick]] = child
                    expanded = True
                else:
                    for j in range(width):
                        ti[ev[gslot[order[j]]], T_AVAIL] += 1
                    best = -1.0
                    for j in range(width):
                        ch = ev[gslot[order[j]]]
                        v = ti[ch, T_VISITS]
                        ucb = tf[ch, mover] / v + c * np.sqrt(np.log(ti[ch, T_AVAIL]) / v)
                        if ucb > best:
                            best = ucb
                            pick = order[j]
                    child = ev[gslot[pick]]
            # the move behind the edge: its only action, or the hidden detail
            i = gfirst[pick]
            count = 0
            while i >= 0:
                acts[count] = legal[i]
                count += 1
                i = gnext[i]
            if count == 1:
                a = acts[0]
            elif opponents == OPP_HYBRID:
                a = best_fn(row, acts, count, rng, iw, fw, obs, nets, prng)
            else:
                a = acts[rng_below(rng, 0, count)]
            if apply_fn(row, a, iw) != 0:
                return ERR_ENGINE, ti, tf, ek, ev, ep
            node = child
            path[depth] = node
            depth += 1
            if expanded:
                break
            mover = mover_fn(row)
        if expanded and not guided:  # (guided: counted when the children were made)
            ti[path[depth - 1], T_AVAIL] += 1  # a new child was available when it was created
        # 4. score: the value network's estimate for every seat at the new leaf, a rollout, or a mix
        mix = fcfg[F_VALUE_MIX]
        if cutoff >= 0 and mover_fn(row) >= 0:
            for s in range(players):
                observe_fn(row, s, gobs, prm)
                pvals[s] = net_value(gnets, cutoff, gobs)
            if mix < 1.0:
                if rollout_fn(row, policy, iw, obs, prng, nets) != 0:
                    return ERR_POLICY, ti, tf, ek, ev, ep
                returns_fn(row, ret, iw, prm)
                reward(ret, players, value, scale, rew)
            for s in range(players):
                rew[s] = pvals[s] if mix >= 1.0 else mix * pvals[s] + (1.0 - mix) * rew[s]
        else:
            if mover_fn(row) >= 0:
                if rollout_fn(row, policy, iw, obs, prng, nets) != 0:
                    return ERR_POLICY, ti, tf, ek, ev, ep
            returns_fn(row, ret, iw, prm)
            reward(ret, players, value, scale, rew)
        # 5. back up
        for d in range(depth):
            nd = path[d]
            ti[nd, T_VISITS] += 1
            for s in range(players):
                tf[nd, s] += rew[s]
    return done, ti, tf, ek, ev, ep


@njit(cache=True)
def child_visits(ek, ev, ti, node, keys, n, out):
    """Visits of the child behind each key of ``keys[:n]`` at ``node`` into ``out`` (0: never expanded)."""
    for i in range(n):
        s = _slot(ek, _pack(node, keys[i]))
        out[i] = ti[ev[s], T_VISITS] if ek[s] != E_EMPTY and ev[s] >= 0 else 0


class AdapterBase:
    """What every game's ``SearchAdapter`` shares: the compiled policies' buffer and networks.

    A subclass sets ``GAME`` (its registry name) and, in ``__init__``, ``num_players``,
    ``options``, ``observation_size``, ``_obs`` (float32 of ``observation_size``) and
    ``_nets`` (``netpolicy.NO_NETS``).
    """

    GAME = ""

    @property
    def obs(self) -> np.ndarray:
        """The float32 buffer the compiled parts encode observations into (networks' activations after)."""
        return self._obs

    @property
    def nets(self) -> np.ndarray:
        """The packed rollout networks (``NO_NETS`` unless ``policy_id("neural")`` set them)."""
        return self._nets

    def policy_id(self, name: str) -> int:
        """The compiled policy id of ``name`` (ValueError if unknown); ``"neural"`` loads the network
        shipped for the table (or ``neural:path=FILE``) for the compiled moves."""
        from .netpolicy import compiled_policies, obs_size

        ids, nets = compiled_policies(self.GAME, [name], self.num_players, self.options)
        if len(nets):
            self._nets = nets
            self._obs = np.zeros(obs_size(self.observation_size, nets), dtype=np.float32)
        return int(ids[0])


@dataclass(frozen=True)
class ChildStats:
    """What the search found for one edge at the root (``CompiledSearch.last_root``)."""

    visits: int
    avail: int
    value: tuple  # value sum per seat


@dataclass(frozen=True)
class RootStats:
    """The root of the last search: its visits, its expanded children by key and, guided, the
    network's prior of each edge by key (None without a guide)."""

    visits: int
    children: dict
    guide: dict | None = None


class CompiledSearch:
    """The compiled ISMCTS for one game adapter (the game's ``search`` role), reusable across decisions.

    ``adapter``: a ``SearchAdapter`` of the game's ``search`` role (``workspace()``, ``obs``,
    ``nets``, ``policy_id``, ``edge_keys``, ``num_actions``, ``num_players``) and ``kernels``
    the role's ``KERNELS`` (the game's compiled parts, in the order of :data:`KERNEL_NAMES`).
    The parameters are those of the ``ismcts`` bot, already validated by it.
    ``search(root_row, observer, rng)`` returns the action (``rng``: a numpy Generator, one draw
    seeds the search's own generator word).
    """

    def __init__(self, adapter, kernels, *, iterations=300, time_limit=None, c=0.3, rollout="greedy", value="mixed",
                 score_scale=5.0, top_k=None, opponents="hybrid", guide=None, guide_c=8.0, guide_prior=True,
                 guide_value=False, value_mix=1.0, noise=0.0, noise_alpha=0.3, guide_temperature=1.0,
                 guide_opponents=True, policy_leaf=False, opponent_policy=None, fpu_reduction=0.0):
        self.adapter = adapter
        self.kernels = tuple(kernels)
        self.iterations = iterations
        self.time_limit = time_limit
        self.rollout_id = adapter.policy_id(rollout)  # sets the adapter's networks and obs buffer for neural
        # (one network at most: both names are the game's policies, "neural" the table's shipped one)
        self.opponent_policy_id = self.rollout_id if opponent_policy is None else adapter.policy_id(opponent_policy)
        players = adapter.num_players
        self.cfg = np.zeros(C_SIZE, dtype=np.int64)
        self.cfg[C_PLAYERS] = players
        self.cfg[C_TOP_K] = 0 if top_k is None else int(top_k)
        self.cfg[C_OPPONENTS] = OPPONENT_CODES[opponents]
        self.cfg[C_ROLLOUT] = self.rollout_id
        self.cfg[C_VALUE] = VALUE_CODES[value]
        self.cfg[C_GUIDE_OPPONENTS] = 1 if guide_opponents else 0
        self.cfg[C_POLICY_LEAF] = 1 if policy_leaf else 0
        self.cfg[C_OPPONENT_POLICY] = self.opponent_policy_id
        self.fcfg = np.zeros(F_SIZE, dtype=np.float64)
        self.fcfg[F_C] = float(c)
        self.fcfg[F_SCORE_SCALE] = float(score_scale)
        self.fcfg[F_GUIDE_C] = float(guide_c)
        self.fcfg[F_NOISE] = float(noise)
        self.fcfg[F_NOISE_ALPHA] = float(noise_alpha)
        self.fcfg[F_VALUE_MIX] = float(value_mix)
        self.fcfg[F_GUIDE_T] = float(guide_temperature)
        self.fcfg[F_FPU] = float(fpu_reduction)
        # the guide (a netfile.NeuralPolicy): its logits as the PUCT prior, its value network as the cut-off
        from .netpolicy import NO_NETS, obs_size, search_nets

        self.gnets, self.cfg[C_GUIDE], self.cfg[C_CUTOFF] = NO_NETS, -1, -1
        if guide is not None:
            self.gnets, self.cfg[C_GUIDE], self.cfg[C_CUTOFF] = search_nets(guide, guide_prior, guide_value)
        self.gobs = np.zeros(obs_size(adapter.observation_size, self.gnets), dtype=np.float32)
        self.iw, self.fw, self.prm = adapter.workspace()
        a = adapter.num_actions
        self._row = None  # the iteration's row, sized from the first root
        # legal, keys, ukeys, gfirst, gnext, order, gslot
        self._ints = [np.zeros(a + 1, dtype=np.int64) for _ in range(7)]
        self._acts = np.zeros(a + 1, dtype=np.int64)
        self._path = np.zeros(1 << 14, dtype=np.int64)  # deeper than any game's length
        self._pvals = np.zeros(2 * (a + 1), dtype=np.float64)  # the prior, then the root's noise per edge
        self._ret = np.zeros(max(players, 1), dtype=np.float64)
        self._rew = np.zeros(max(players, 1), dtype=np.float64)
        self._rng = np.zeros(1, dtype=np.int64)
        self._prng = np.zeros(1, dtype=np.int64)
        self.tree = new_tree(players)
        self.last_iterations = 0
        self._root_row = None
        self._observer = None

    def search(self, root_row: np.ndarray, observer: int, rng: np.random.Generator) -> int:
        self._rng[0] = rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)
        ti, tf, ek, ev, ep, meta = self.tree
        ek.fill(E_EMPTY)
        ev.fill(-1)
        ep.fill(np.nan)
        meta[:] = 0
        root = np.ascontiguousarray(root_row, dtype=np.int64)
        if self._row is None or self._row.shape != root.shape:
            self._row = np.zeros_like(root)
        if self.time_limit is None:
            done = self._run(root, observer, self.iterations, 0.0)
        else:
            cap = NO_CAP if self.iterations is None else self.iterations
            done = self._run(root, observer, cap, time.perf_counter() + self.time_limit)
        self.last_iterations = done
        self._root_row, self._observer = root, observer
        return self._choose(root, observer)

    def _run(self, root, observer, iterations, deadline) -> int:
        ti, tf, ek, ev, ep, meta = self.tree
        legal, keys, ukeys, gfirst, gnext, order, gslot = self._ints
        ad = self.adapter
        done, ti, tf, ek, ev, ep = run(*self.kernels, root, int(observer), int(iterations), float(deadline),
                                       self._rng, self.cfg, self.fcfg, self._row, self.iw, self.fw, ad.obs, ad.nets,
                                       self._prng, self.prm,
                                       self.gobs, self.gnets, legal, keys, ukeys, gfirst, gnext, order, gslot,
                                       self._acts, self._path, self._pvals, self._ret, self._rew, ti, tf, ek, ev, ep,
                                       meta)
        self.tree = (ti, tf, ek, ev, ep, meta)
        if done == ERR_POLICY:
            raise RuntimeError("ismcts: a compiled rollout policy found no legal move")
        if done < 0:
            raise RuntimeError("ismcts: the game engine refused a move of the search (an engine error)")
        return int(done)

    def _root_edges(self, root, observer):
        legal, keys = self._ints[0], self._ints[1]
        n = self.adapter.edge_keys(root, observer, legal, keys)
        ti, tf, ek, ev, ep, meta = self.tree
        visits = np.zeros(n, dtype=np.int64)
        child_visits(ek, ev, ti, 0, keys, n, visits)
        return legal[:n].copy(), keys[:n].copy(), visits

    def _choose(self, root, observer) -> int:
        """The most visited edge at the root (ties: the smallest key, for determinism), as an action."""
        legal, keys, visits = self._root_edges(root, observer)
        best = None
        for i in range(len(keys)):
            if visits[i] > 0 and (best is None or visits[i] > visits[best]
                                  or (visits[i] == visits[best] and keys[i] < keys[best])):
                best = i
        if best is None:  # pragma: no cover (every search expands at least one root edge)
            raise RuntimeError("ismcts expanded no move at the root")
        return int(legal[best])

    def root_visits(self) -> tuple[np.ndarray, np.ndarray]:
        """The last search's root: its legal actions and each one's visits (the self-play policy target).

        Actions behind one edge (a hidden detail: never at the observer's own root) share its visits.
        """
        if self._root_row is None:
            raise RuntimeError("root_visits: no search has run yet")
        legal, keys, visits = self._root_edges(self._root_row, self._observer)
        return legal, visits

    @property
    def last_root(self) -> RootStats | None:
        """The last search's root: visits and, per expanded key, the child's statistics."""
        if self._root_row is None:
            return None
        legal, keys, visits = self._root_edges(self._root_row, self._observer)
        ti, tf, ek, ev, ep, meta = self.tree
        children = {}
        for i, k in enumerate(keys):
            if visits[i] > 0:
                s = _slot(ek, _pack(np.int64(0), np.int64(k)))
                ch = ev[s]
                children[int(k)] = ChildStats(int(ti[ch, T_VISITS]), int(ti[ch, T_AVAIL]), tuple(tf[ch]))
        guide = None
        if self.cfg[C_GUIDE] >= 0:
            guide = {}
            for k in keys:
                s = _slot(ek, _pack(np.int64(0), np.int64(k)))
                if ek[s] != E_EMPTY and not np.isnan(ep[s]):
                    guide[int(k)] = float(ep[s])
        return RootStats(int(ti[0, T_VISITS]), children, guide)
