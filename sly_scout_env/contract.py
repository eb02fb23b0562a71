"""The per-game module contract: what a game folder (``sly_scout_env/<game>/``) provides.

Generic code (the AEC base in ``_aec.py``, the vector and SB3 adapters, simulation,
views, the CLI, the bots) finds a game's modules through :mod:`sly_scout_env.games`
(``get_game(name).module(role)``) and uses only the names below. Both games implement
them with the same names and signatures; :data:`CONTRACT` lists them and
``tests/test_game_contract.py`` checks that each game has every one.

A game's state is one flat ``int64`` row; every kernel (``@njit``) takes the row first,
so a batched version loops rows with ``prange``. Nothing below allocates per move.

``rules`` -- the rules kernels (import numpy and numba only)
    Row offsets of the fields every game has (the rest of a row is game-specific):
      ``NUM_PLAYERS`` the player count, ``CURRENT_PLAYER`` the seat to act, ``PHASE``
      the phase (``PHASE_GAME_OVER`` once the game has ended; ``PHASE_NAMES`` names the
      values), ``RNG`` the splitmix64 word of the game's deal generator (``_rng.py``;
      ``_rng.WORD_SLOTS`` slots if the game's vector-env rows may be narrow);
      ``ROW_SIZE`` the row length; ``END_NONE`` the end-reason code of an unfinished game.
    ``GROWING``: the offsets of the fields that grow with play without a bound fixed by
      the deal (checked on narrow rows: ``kernels.NARROW_LIMIT``).
    ``MAX_PLAYERS``; ``MAX_ACTIONS`` the largest action count over the options.
    ``SCRATCH_SIZE``, ``make_scratch()``: the int64 scratch the legal-move and apply
      kernels need (the legal ids go to its front).
    ``parse_options(num_players=<default>, **options) -> dict``: validate the game options
      (ValueError naming the bad one and the allowed values) and resolve defaults.
    ``new_state(**options) -> row``: a row holding the resolved options (not yet dealt).
    ``configure(state, ...)``: write the options into a row (what ``reset`` keeps).
    ``reset(state, seed_word)``: start a new game with the row's options; the deals come
      from the row's generator, seeded with ``seed_word``.
    ``legal_actions(state, scratch) -> count``: the legal ids, ascending, to ``scratch[:count]``.
    ``legal_mask(state, out, scratch) -> count``: the int8 mask into ``out`` (zeros once
      the game is over); a negative count is an engine error.
    ``apply_action(state, action, scratch) -> 0``: apply a legal action (the caller has
      checked it); a negative return is an engine error and leaves the row unchanged.
    ``num_actions(...)``: the action count of the game's options (Scout: of the player
      count, Sly: of the Hen Houses).

``observation`` -- one seat's view as a float32 vector
    ``observation_size(num_players, ...)``: compiled, the one statement of the vector's
      length (Scout: of the player count; Sly: of the player count and Hen Houses),
      callable from Python and from kernels.
    ``encode_observation(state, seat, out)``: write ``seat``'s observation into ``out``
      (public information and the seat's own cards only).

``policies`` -- compiled bots for simulation, ISMCTS rollouts and SB3 opponents
    ``POLICY_NAMES`` (``("random", "greedy", "neural")``; a policy's id is its index),
      ``policy_id(name)``; ``NEURAL``: the id of network 0 of ``nets`` (``NEURAL + k``
      plays network ``k``). Generic code turns names (``"neural:path=FILE"`` too) into ids
      and ``nets`` with ``sly_scout_env.netpolicy.compiled_policies``.
    ``CHOOSE_SCRATCH``: the int64 scratch ``choose`` needs (>= ``rules.SCRATCH_SIZE``).
    ``choose(policy_id, state, scratch, obs, rng, nets) -> action``: a move for the seat
      to act, from what that seat may know; ``obs`` a float32 buffer of
      ``netpolicy.obs_size(observation size, nets)`` (the observation, then the networks'
      hidden activations), ``rng`` an int64 array whose element 0 is the policy's own
      generator word, ``nets`` the packed ``neural`` networks (read only, shared by every
      row; ``netpolicy.NO_NETS`` when no seat plays neural: the weights travel as an
      argument, since a cached kernel would bake module globals in). A policy never draws
      from the row's ``RNG`` (that generator deals, and gives the word of a vector env
      row's next game), so the same seed gives the same deals whatever the seats'
      policies are. -1 for an unknown id or no legal move.
    ``policy_seed(state, word) -> int64``: the policies' generator word for the game just
      dealt into ``state`` from ``word`` (simulation, SB3 opponents and ISMCTS rollouts
      seed ``rng[0]`` with it at each deal).

``batch`` -- N games in a 2-D array, for the vector env, SB3 and simulation
    ``new_batch(num_envs, num_players, narrow=False, **options) -> (states, scratch, opts,
    info)`` (``narrow``: int32 rows where the game's values fit, ``kernels.narrow_rows``);
    ``SCRATCH_SIZE`` (a row of ``scratch``, one per tile of ``kernels.TILE`` games:
    ``policies.CHOOSE_SCRATCH``);
    ``reset_rows``, ``step_rows``, ``legal_masks``, ``observe_rows``: see
    ``sly_scout_env/sly/batch.py``'s docstring. These kernels are written out in each
    game (Numba never caches closures, so no factory builds them); their sources are
    equal after the renames that ``tests/test_game_contract.py`` lists.
    ``SIM_OPTIONS``, ``sim_template(num_players, **options) -> (template row,
    num_players)``, ``play_rows(template, words, policy_ids, nets, step_cap, scores, steps,
    ends)``: simulation at scale (one Scout hand or one Sly game per word).
    ``learner_reset_rows``, ``learner_step_rows``: one learner seat per row, compiled
    opponents (``nets`` for neural ones) at the others
    (``sly_scout_env.learner.SingleLearnerBatch``; layouts of
    ``meta`` / ``cfg`` and the error codes in ``sly_scout_env/kernels.py``).

``codec`` -- the state dict (plain JSON) <-> row, with full validation
    ``state_to_dict(row, history) -> dict``;
    ``dict_to_state(d, row) -> (new row, history)``: validate ``d`` against the env whose
      row is ``row`` (ValueError naming the first bad field; ``row`` is not modified).
    ``history`` is what an env keeps beside the row (Scout: the finished rounds'
    ``(round_scores, round_end_reasons)``; Sly: None, its row holds the whole game).

``text`` -- words for humans
    ``decode_action(a, n) -> dict``, ``encode_action(d, n) -> int`` (``n``: the option
      fixing the action layout: Scout's player count, Sly's Hen Houses),
      ``action_to_str(a, n, ...) -> str``, ``render_text(row, viewer, history) -> str``,
    ``narrate(before, after, actor, action, words, viewer, who) -> list[str]``: the lines
      ``agents/ui/play.py`` tells the person at seat ``viewer`` about seat ``actor``'s move
      (what the viewer may see of it, then what it settled); ``before``/``after`` are
      the state dicts around the move, ``words`` its ``action_to_str`` from before it,
      ``who(seat)`` a seat's name.

``view`` -- what one seat may know of a state dict
    ``redact(d, view, seat)``: hide in ``view`` (a deep copy of the state dict ``d``
      without ``rng``, made by ``sly_scout_env.views.player_view``) what ``seat`` cannot
      know; the module docstring says what is hidden.

``env`` -- the PettingZoo AEC env (``raw_env``, ``env``): a :class:`_aec.CardGameRawEnv`
    whose ``_k_*`` hooks call the kernels above.

``features`` -- optional (:data:`OPTIONAL`; ``GameSpec.optional_module``): per-action features
    for the ``neural`` checkpoints that score each legal action (``sly_scout_env/netfile.py``)
    ``FEATURE_NAMES``, ``FEATURE_SIZE``; ``action_features(obs, legal, n, num_players, work,
      values, out)``: compiled, the rows of ``legal[:n]`` into ``out[:n, :FEATURE_SIZE]`` from
      the acting seat's observation ``obs`` (``work``: int64 of ``heuristic.WORK_SIZE``,
      ``values``: int64 of at least ``n``); ``features_of(obs, legal, num_players)``: the same
      rows as a new array. A game without it (Sly) refuses such checkpoints.

``heuristic`` -- the greedy evaluation (used by ``policies``)
    ``GreedyPlayer(num_players, options)``: callable as ``(obs, legal, rng_word) -> action``,
      the ``greedy`` bot's move from the seat's observation; ``GreedyPlayer.DESCRIPTION``
      the bot in one line.

``determinize`` -- what a seat may assume of the cards it cannot see
    ``row_from_view(view, ...) -> row``: a full row consistent with a redacted view;
    ``determinize(row, seat, rng, ...)``: re-deal in place every card ``seat`` cannot know.

``bounds`` -- optional (:data:`OPTIONAL`): limits derived from the rules, for the OpenSpiel game
    ``max_moves(options) -> int | None`` (None: the rules set no bound),
    ``score_bounds(options, max_moves) -> (low, high)`` (``sly_scout_env.openspiel``'s
    ``GameInfo``; ``options`` as ``rules.parse_options`` resolves them); see each game's
    ``bounds.py``.

``summary`` -- optional (:data:`OPTIONAL`): the end of a round or match in words for people
    ``round_end(options, before, after, action, viewer) -> dict | None``: every hand face up
    and how each score came about, once ``action`` ended a round (None otherwise);
    ``SEAT_KEYS``: the fields of one seat in it (the web table's round-end panel).

``search`` -- optional (:data:`OPTIONAL`): the parts the generic ``ismcts`` bot searches with
    ``SearchAdapter(num_players, options, **PARAMS)``: the adapter protocol of
    ``agents/bots/ismcts.py`` (root, determinize, edge keys, rollouts, returns ...);
    ``SearchAdapter.PARAMS`` its own bot parameters with their defaults,
    ``SearchAdapter.BOT_DEFAULTS`` its defaults of the generic search parameters;
    ``KERNELS``: the compiled parts of the compiled search (``sly_scout_env.ismcts``: the
    signatures, in the order of ``KERNEL_NAMES``).
"""

from __future__ import annotations

# The names each role's module must define, in every game (tests/test_game_contract.py).
CONTRACT: dict[str, tuple[str, ...]] = {
    "rules": (
        "NUM_PLAYERS", "CURRENT_PLAYER", "PHASE", "PHASE_GAME_OVER", "PHASE_NAMES", "RNG", "ROW_SIZE", "END_NONE",
        "GROWING", "MAX_PLAYERS", "MAX_ACTIONS", "SCRATCH_SIZE", "make_scratch", "parse_options", "new_state",
        "configure", "reset", "legal_actions", "legal_mask", "apply_action", "num_actions",
    ),
    "observation": ("observation_size", "encode_observation"),
    "policies": ("POLICY_NAMES", "NEURAL", "policy_id", "CHOOSE_SCRATCH", "choose", "policy_seed"),
    "batch": (
        "new_batch", "SCRATCH_SIZE", "reset_rows", "step_rows", "legal_masks", "observe_rows",
        "SIM_OPTIONS", "sim_template", "play_rows", "learner_reset_rows", "learner_step_rows",
    ),
    "view": ("redact",),
    "codec": ("state_to_dict", "dict_to_state"),
    "text": ("decode_action", "encode_action", "action_to_str", "render_text", "narrate"),
    "env": ("raw_env", "env"),
    "heuristic": ("GreedyPlayer",),
    "determinize": ("row_from_view", "determinize"),
}

# Roles a game may provide; when it does, its module defines these names.
OPTIONAL: dict[str, tuple[str, ...]] = {
    "features": ("FEATURE_NAMES", "FEATURE_SIZE", "action_features", "features_of"),
    "search": ("SearchAdapter", "KERNELS"),
    "bounds": ("max_moves", "score_bounds"),
    "summary": ("SEAT_KEYS", "round_end"),
}
