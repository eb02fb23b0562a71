"""Batched Sly kernels: N games in one 2-D ``int64`` array, one game per row.

Every kernel loops over rows with ``numba.prange`` and writes into preallocated output
buffers, so nothing is allocated per step. Each row carries its own generator
(``rules.RNG``), so a game plays the same whatever its row, the batch size or the thread
count: rows never read each other.

The kernels share one signature with ``sly_scout_env.scout.batch`` so that
``sly_scout_env.vector`` and ``sly_scout_env.simulation`` drive both games the same way:

``reset_rows(states, scratch, opts, words, which, ep_steps, points, obs, masks, seats)``
    deal a new game into every row ``i`` with ``which[i]`` (generator word ``words[i]``),
    then write its observation (for the seat to act), mask, seat and points so far.
``step_rows(states, scratch, opts, actions, autoreset, reward, max_steps, ep_steps, points,
obs, masks, seats, rewards, terms, truncs, final_obs, final_scores, has_final, errors)``
    apply ``actions[i]`` to every row (the caller has checked legality), pay rewards as
    the AEC env would (``reward``, a ``kernels.REWARD_*`` code: differences of points,
    zero-sum win rewards at the end, or differences of margins), flag
    terminations/truncations, write every seat's final observation of a finished game,
    restart it if ``autoreset`` with a word drawn from its own generator, and write the
    next observation / mask / seat. A row with ``actions[i] < 0`` is left
    as it is (a finished game waiting for a reset). ``final_scores[i]`` gets the points
    of a finished (or truncated) game before it restarts. Returns the number of narrow
    rows whose ``rules.GROWING`` fields passed ``kernels.NARROW_LIMIT`` (the vector env
    then widens the batch to int64 rows before the next step).
``play_rows(template, words, policy_ids, step_cap, scores, steps, ends)``
    play one whole game per word from the row ``template`` (:func:`sim_template`) with
    compiled policies (simulation at scale).

``states`` may be int64 rows (the engine's) or narrow int16 rows (the vector env's, where
the game's values fit: ``kernels.py``, "Narrow rows"); Numba compiles each kernel for
both. The step walks the batch in tiles of ``kernels.TILE`` rows, one parallel task per
tile, prefetching each next row: ``scratch`` holds one int64 scratch row per tile
(``SCRATCH_SIZE``: the legal-move kernels' and the compiled policies'), and ``pobs``
(the learner's) one opponents' observation buffer per tile. ``opts`` is unused by Sly
(the options live in each row from :func:`new_batch`).

Why ``step_rows`` and ``play_rows`` are written out again in ``scout/batch.py`` rather
than built once by a factory over each game's per-row kernels: Numba never caches such
closures (``cache=True`` is ignored for them; measured: a fresh compile in every
process), and a cold compile of these parallel kernels costs seconds at every import.
The two copies are the same source (``tests/test_game_contract.py`` pins them): they
reach the game through its ``rules`` (``R``), ``policies`` (``P``) and ``observation``
modules and the per-game hooks ``points_into``, ``scores_into``, ``_observation_size``
and ``_unit_result``. Helpers that need no game (``win_rewards``) live once, in
``sly_scout_env/kernels.py``.
"""

from __future__ import annotations

import os

# Numba's OpenMP threading layer keeps idle workers spinning after each parallel region
# unless told otherwise. A vector env runs one short region per step and then needs the
# cores for Python: measured on the shared 2-core machine, spinning cut batch-4096
# throughput from ~1,000,000 to ~200,000 agent-steps/s. A user's own setting wins; it
# only applies if OpenMP is not loaded yet.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

from .. import kernels as K
from .._rng import rng_next
from ..kernels import win_rewards, work_size
from . import policies as P
from . import rules as R
from .observation import encode_observation, observation_size

SCRATCH_SIZE = P.CHOOSE_SCRATCH  # a row of the int64 scratch (one per tile): the rules' and the compiled policies'
SERIAL_BELOW = 256  # batches smaller than this run on one thread: a parallel launch costs more


def new_batch(num_envs: int, num_players=3, narrow=False, **options):
    """``(states, scratch, opts, info)``: ``num_envs`` rows holding the options (reset before use).

    ``narrow`` is accepted for the game contract, and Sly's rows stay int64 whatever it
    says: they are a third of Scout's and measured no faster narrow (docs/architecture.md).
    ``info`` is a dict with ``num_players``, ``num_actions``, ``observation_size`` and the
    resolved ``options``.
    """
    for k in options:
        if k not in SIM_OPTIONS:
            raise ValueError(f"unknown option {k!r} for sly; allowed options: num_players, {', '.join(SIM_OPTIONS)}, "
                             "autoreset, reward, max_steps, copy")
    o = R.parse_options(num_players=num_players, **options)
    states = np.tile(R.new_state(**o), (num_envs, 1))
    scratch = np.zeros((K.tile_count(num_envs), SCRATCH_SIZE), dtype=np.int64)  # one row per tile
    opts = np.zeros(1, dtype=np.int64)
    info = {
        "num_players": o["num_players"],
        "num_actions": R.num_actions(o["hen_houses"]),
        "observation_size": observation_size(o["num_players"], o["hen_houses"]),
        "options": o,
    }
    return states, scratch, opts, info


@njit(cache=True, inline="always")
def game_over(state):
    return state[R.PHASE] == R.PHASE_GAME_OVER


@njit(cache=True)
def points_into(state, out):
    """Points paid so far under ``reward="score"``: zero until the game ends, then the scores."""
    if state[R.PHASE] == R.PHASE_GAME_OVER:
        R.scores(state, out)
    else:
        for p in range(state[R.NUM_PLAYERS]):
            out[p] = 0.0


@njit(cache=True)
def scores_into(state, out):
    """Points per seat so far (final once the game is over)."""
    R.scores(state, out)


@njit(cache=True, inline="always")
def _observation_size(state):
    """``observation.observation_size`` of the row's options."""
    return observation_size(state[R.NUM_PLAYERS], state[R.HEN_HOUSES])


# The per-row one-liners from here to _new_word are inlined into the kernels that call
# them (inline="always"): a call through Numba's compiled-function boundary in the move
# loop cost the in-kernel simulate 5-8% and the vector env's step a few percent
# (measured against the commit before issue 9 with benchmarks/compare_trees.py).
@njit(cache=True, inline="always")
def _unit_result(state, out):
    """A simulated game's points into ``out`` (so far, if the step cap stopped it); its end reason."""
    R.scores(state, out)
    return state[R.END_REASON]


@njit(cache=True, inline="always")
def _reset_one(state, scratch, opts, word):
    R.reset(state, word)
    return 0


@njit(cache=True, inline="always")
def _mask_one(state, out, scratch):
    count = R.legal_mask(state, out, scratch)  # all zeros once the game is over
    return count if count < 0 else 0


@njit(cache=True, inline="always")
def _apply_one(state, action, scratch):
    return R.apply_action(state, action, scratch)


@njit(cache=True, inline="always")
def _new_word(state):
    """A seed word for the next game of this row, drawn from the row's own generator."""
    return np.int64(rng_next(state, R.RNG))


@njit(cache=True)
def _observe_current(state, i, obs, masks, seats, scratch):
    seat = state[R.CURRENT_PLAYER]
    seats[i] = seat
    encode_observation(state, seat, obs[i])
    return _mask_one(state, masks[i], scratch)


@njit(cache=True, inline="always")
def _reset_row(states, scratch, opts, words, which, ep_steps, points, obs, masks, seats, i):
    if which[i]:
        _reset_one(states[i], scratch, opts, words[i])
        ep_steps[i] = 0
        points_into(states[i], points[i])
        return _observe_current(states[i], i, obs, masks, seats, scratch)
    return 0


@njit(cache=True, parallel=True)
def reset_rows(states, scratch, opts, words, which, ep_steps, points, obs, masks, seats):
    """Reset the rows with ``which[i]`` (see the module docstring); returns the error count."""
    n = states.shape[0]
    errors = 0
    for t in prange(K.tile_count(n)):
        for i in range(t * K.TILE, min(n, (t + 1) * K.TILE)):
            if _reset_row(states, scratch[t], opts, words, which, ep_steps, points, obs, masks, seats, i) != 0:
                errors += 1
    return errors


@njit(cache=True, inline="always")
def _step_row(states, scratch, opts, actions, autoreset, reward, max_steps, ep_steps, points, obs, masks, seats,
              rewards, terms, truncs, final_obs, final_scores, has_final, errors, i):
    state = states[i]
    num_p = points.shape[1]
    has_final[i] = False
    if actions[i] < 0:
        # A finished game left alone (no autoreset): nothing happens, its flags stay.
        rewards[i, :] = 0.0
        errors[i] = 0
        return
    errors[i] = _apply_one(state, actions[i], scratch)
    ep_steps[i] += 1
    over = game_over(state)
    # Rewards as the AEC env pays them: differences of points (or of margins) so far, or win
    # rewards at the end.
    r = rewards[i]
    if reward != K.REWARD_WIN:
        points_into(state, r)
        for p in range(num_p):
            new = r[p]
            r[p] = new - points[i, p]
            points[i, p] = new
        if reward == K.REWARD_MARGIN:
            K.margins(num_p, r)  # the change of each margin is the margin of the changes
    elif over:
        points_into(state, r)
        win_rewards(num_p, r)
    else:
        r[:] = 0.0
    trunc = (not over) and max_steps > 0 and ep_steps[i] >= max_steps
    terms[i] = over
    truncs[i] = trunc
    has_final[i] = over or trunc
    if over or trunc:
        scores_into(state, final_scores[i])
        for p in range(num_p):
            encode_observation(state, p, final_obs[i, p])
        if autoreset:
            _reset_one(state, scratch, opts, _new_word(state))
            ep_steps[i] = 0
            points_into(state, points[i])
    err = _observe_current(state, i, obs, masks, seats, scratch)
    if err != 0:
        errors[i] = err


@njit(cache=True, parallel=True)
def _step_parallel(states, scratch, opts, actions, autoreset, reward, max_steps, ep_steps, points, obs, masks, seats,
                   rewards, terms, truncs, final_obs, final_scores, has_final, errors):
    n = states.shape[0]
    near = 0
    narrow = states.itemsize < 8  # only narrow rows can outgrow their type
    ahead = K.prefetch_ahead(states, obs, masks)
    for t in prange(K.tile_count(n)):
        for i in range(t * K.TILE, min(n, (t + 1) * K.TILE)):
            j = i + ahead
            if ahead and j < n:  # a large batch's rows are not in the cache: ask for those of a coming game now
                K.prefetch_row(states, j)
                K.prefetch_row(obs, j)
                K.prefetch_row(masks, j)
            _step_row(states, scratch[t], opts, actions, autoreset, reward, max_steps, ep_steps, points, obs, masks,
                      seats, rewards, terms, truncs, final_obs, final_scores, has_final, errors, i)
            if narrow and K.near_limit(states[i], R.GROWING):
                near += 1
    return near


@njit(cache=True)
def _step_serial(states, scratch, opts, actions, autoreset, reward, max_steps, ep_steps, points, obs, masks, seats,
                 rewards, terms, truncs, final_obs, final_scores, has_final, errors):
    near = 0
    narrow = states.itemsize < 8  # only narrow rows can outgrow their type
    for i in range(states.shape[0]):
        _step_row(states, scratch[0], opts, actions, autoreset, reward, max_steps, ep_steps, points, obs, masks, seats,
                  rewards, terms, truncs, final_obs, final_scores, has_final, errors, i)
        if narrow and K.near_limit(states[i], R.GROWING):
            near += 1
    return near


def step_rows(states, *args):
    """Step every row (see the module docstring); small batches run on one thread.

    Returns the number of narrow rows whose growing fields passed ``kernels.NARROW_LIMIT``
    (the caller widens the batch before the next step; always 0 for int64 rows)."""
    if states.shape[0] < SERIAL_BELOW:
        return _step_serial(states, *args)
    return _step_parallel(states, *args)


@njit(cache=True, parallel=True)
def legal_masks(states, scratch, masks):
    """The legal-action mask of every row into ``masks`` (zeros for finished games)."""
    n = states.shape[0]
    for t in prange(K.tile_count(n)):
        for i in range(t * K.TILE, min(n, (t + 1) * K.TILE)):
            _mask_one(states[i], masks[i], scratch[t])


@njit(cache=True, parallel=True)
def observe_rows(states, seats, obs):
    """Seat ``seats[i]``'s observation of row ``i`` into ``obs[i]``."""
    for i in prange(states.shape[0]):
        encode_observation(states[i], seats[i], obs[i])


# -- simulation at scale -----------------------------------------------------------------
PLAY_BLOCK = 256  # games per parallel task: per-task buffers are allocated once per block


@njit(cache=True, parallel=True)
def play_rows(template, words, policy_ids, nets, step_cap, scores, steps, ends):
    """Play one unit (a Scout hand, a Sly game) per seed word from the row ``template``.

    Seat ``s`` plays with the compiled policy ``policy_ids[s]`` (``nets``: the packed
    networks of its ``neural`` seats, ``sly_scout_env.netpolicy``). The deal comes from the
    row generator (word ``words[g]``), the moves from the policy generator seeded with
    ``policies.policy_seed``. Writes the scores (:func:`_unit_result`), the actions taken
    and the end reason (0 if the step cap stopped the unit, -1 if a policy failed).
    Returns the number of failed units.
    """
    n = words.shape[0]
    num_p = template[R.NUM_PLAYERS]
    blocks = (n + PLAY_BLOCK - 1) // PLAY_BLOCK
    bad = 0
    for b in prange(blocks):
        state = template.copy()
        scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
        obs = np.zeros(_observation_size(template) + work_size(nets), dtype=np.float32)
        rng = np.zeros(1, dtype=np.int64)
        for g in range(b * PLAY_BLOCK, min(n, (b + 1) * PLAY_BLOCK)):
            R.reset(state, words[g])
            rng[0] = P.policy_seed(state, words[g])
            k = 0
            failed = False
            while not game_over(state) and k < step_cap:
                a = P.choose(policy_ids[state[R.CURRENT_PLAYER]], state, scratch, obs, rng, nets)
                if a < 0 or _apply_one(state, a, scratch) != 0:
                    failed = True
                    break
                k += 1
            steps[g] = k
            end = _unit_result(state, scores[g, :num_p])
            ends[g] = -1 if failed else end
            if failed:
                bad += 1
    return bad


SIM_OPTIONS = ("hen_houses", "reveal_scope", "first_player")


def sim_template(num_players, **options):
    """``(template row, num_players)`` for :func:`play_rows`; ValueError on a bad option."""
    for k in options:
        if k not in SIM_OPTIONS:
            raise ValueError(f"unknown option {k!r} for sly; allowed options: {', '.join(SIM_OPTIONS)}")
    o = R.parse_options(num_players=num_players, **options)
    return R.new_state(**o), o["num_players"]


# -- one learner seat per game, compiled opponents (sly_scout_env.learner) -------------------
# ``prng[0]`` is the row's policy generator word (seeded at each deal with
# ``policies.policy_seed``), ``pobs`` the opponents' observation buffer (observation and
# the networks' workspace: ``netpolicy.obs_size``), ``nets`` the packed networks of
# ``neural`` opponents, ``seat_pol[s]`` the compiled policy of seat ``s`` (-1: the
# learner), ``meta`` / ``cfg`` as in kernels.py.
@njit(cache=True)
def _learner_play_opponents(state, scratch, prng, pobs, nets, seat_pol, meta, cfg):
    """Opponents move until the learner is to act, the game is over or truncated; returns an error code."""
    learner = meta[K.M_LEARNER]
    k = 0
    while not game_over(state) and state[R.CURRENT_PLAYER] != learner and not K.learner_truncated(meta, cfg):
        a = P.choose(seat_pol[state[R.CURRENT_PLAYER]], state, scratch, pobs, prng, nets)
        if a < 0 or _apply_one(state, a, scratch) != 0:
            return K.ERR_POLICY
        meta[K.M_STEPS] += 1
        k += 1
        if k >= K.STEP_CAP:
            return K.ERR_STEP_CAP
    return K.ERR_NONE


@njit(cache=True)
def _learner_start(state, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, word, points, obs, mask):
    """Deal a game from ``word``, seat the learner and the opponents, play up to the learner's turn."""
    R.reset(state, word)
    prng[0] = P.policy_seed(state, word)
    learner = K.seat_learner(meta, cfg, opp_ids, seat_pol, state[R.NUM_PLAYERS])
    err = _learner_play_opponents(state, scratch, prng, pobs, nets, seat_pol, meta, cfg)
    if err == K.ERR_NONE and (game_over(state) or K.learner_truncated(meta, cfg)):
        err = K.ERR_NO_LEARNER_TURN
    # Points already paid before the learner's first move: its first reward is the
    # difference from here, as SingleAgentEnv discards the rewards of reset().
    points_into(state, points)
    encode_observation(state, learner, obs)
    if _mask_one(state, mask, scratch) != 0 and err == K.ERR_NONE:
        err = K.ERR_ENGINE
    return err


@njit(cache=True, parallel=True)
def learner_reset_rows(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, words, points, obs, masks,
                       errors):
    """Deal a new game in every row from ``words`` and play to each learner's first turn."""
    n = states.shape[0]
    for t in prange(K.tile_count(n)):
        for i in range(t * K.TILE, min(n, (t + 1) * K.TILE)):
            meta[i, K.M_EPISODE] = 0
            errors[i] = _learner_start(states[i], scratch[t], prng[i], pobs[t], nets, seat_pol[i], meta[i], opp_ids,
                                       cfg, words[i], points[i], obs[i], masks[i])


@njit(cache=True, inline="always")
def _learner_step_row(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                      masks, rewards, dones, truncs, term_obs, final_scores, errors, i):
    state = states[i]
    num_p = state[R.NUM_PLAYERS]
    learner = meta[i, K.M_LEARNER]
    err = K.ERR_NONE
    if _apply_one(state, actions[i], scratch) != 0:
        err = K.ERR_ENGINE
    else:
        meta[i, K.M_STEPS] += 1
        err = _learner_play_opponents(state, scratch, prng[i], pobs, nets, seat_pol[i], meta[i], cfg)
    over = game_over(state)
    trunc = (not over) and K.learner_truncated(meta[i], cfg)
    # The learner's reward for its move and every opponent move after it: the points
    # differences telescope to (points now - points at its last turn).
    t = tmp[i]
    if cfg[K.C_REWARD] == K.REWARD_SCORE:
        points_into(state, t)
        rewards[i] = t[learner] - points[i, learner]
    elif cfg[K.C_REWARD] == K.REWARD_MARGIN:
        points_into(state, t)
        K.margin_change(num_p, t, points[i])
        rewards[i] = t[learner]
    elif over:
        scores_into(state, t)
        win_rewards(num_p, t)
        rewards[i] = t[learner]
    else:
        rewards[i] = 0.0
    dones[i] = over or trunc
    truncs[i] = trunc
    if (over or trunc) and err == K.ERR_NONE:
        scores_into(state, t)
        for p in range(num_p):
            final_scores[i, p] = t[p]
        encode_observation(state, learner, term_obs[i])
        err = _learner_start(state, scratch, prng[i], pobs, nets, seat_pol[i], meta[i], opp_ids, cfg,
                             _new_word(state), points[i], obs[i], masks[i])
    elif err == K.ERR_NONE:
        points_into(state, points[i])
        encode_observation(state, learner, obs[i])
        if _mask_one(state, masks[i], scratch) != 0:
            err = K.ERR_ENGINE
    errors[i] = err


@njit(cache=True, parallel=True)
def _learner_step_parallel(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                           masks, rewards, dones, truncs, term_obs, final_scores, errors):
    n = states.shape[0]
    for t in prange(K.tile_count(n)):
        for i in range(t * K.TILE, min(n, (t + 1) * K.TILE)):
            _learner_step_row(states, scratch[t], prng, pobs[t], nets, seat_pol, meta, opp_ids, cfg, actions, points,
                              tmp, obs, masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


@njit(cache=True)
def _learner_step_serial(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                         masks, rewards, dones, truncs, term_obs, final_scores, errors):
    for i in range(states.shape[0]):
        _learner_step_row(states, scratch[0], prng, pobs[0], nets, seat_pol, meta, opp_ids, cfg, actions, points,
                          tmp, obs, masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


def learner_step_rows(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs, masks,
                      rewards, dones, truncs, term_obs, final_scores, errors):
    """Apply each row's learner action, pay its reward, play the opponents to its next turn
    (a finished game is restarted at once); ``errors[i]`` gets a kernels.ERR_* code."""
    step = _learner_step_serial if states.shape[0] < SERIAL_BELOW else _learner_step_parallel
    step(states, scratch, prng, pobs, nets, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs, masks, rewards,
         dones, truncs, term_obs, final_scores, errors)
