"""The checks behind :func:`sly_scout_env.testing.check_game` (the package's docstring is the doc page).

Every check takes a game (a registered name or a :class:`~sly_scout_env.games.GameSpec`) and
reaches the game only through its spec, its PettingZoo env and the names of
:data:`sly_scout_env.contract.CONTRACT`: nothing here names a game or an option, and the only
state dict fields named are the two every env checks itself (``game``, ``num_players``). A
failure is an ``AssertionError`` whose message starts with ``check_game('<game>', players=<n>)``
and the check's name, then says what differed and where (option set, seed, move).

Import cost: numpy and the registry only; the game's modules (Numba), the vector env and
PettingZoo's test module (which imports pytest) load when a check that needs them runs.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import io
import json
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping

import numpy as np

from ..checks import check_int
from ..contract import CONTRACT, OPTIONAL
from ..games import GameSpec, all_games, get_game

__all__ = [
    "check_game", "check_contract", "check_options", "check_rules", "check_determinism",
    "check_action_validation", "check_state_dict", "check_vector_env", "check_pettingzoo",
    "option_sets",
]

# Uniform-random play stops here even if the game has not ended (then the game is reported:
# a game random play cannot finish in this many moves is taken for an engine that loops).
MOVE_CAP = 20_000
# Vector env rows compared against each other: enough rows for the batched kernels to take
# their parallel path (a batch module may run small batches on one thread), and the steps they
# take at least (more until some row's game ended and restarted).
BIG_BATCH = 300
VECTOR_STEPS = 300
# The contract functions whose parameter lists are the same in every game.
SIGNATURES = (
    ("rules", "reset"), ("rules", "legal_actions"), ("rules", "legal_mask"), ("rules", "apply_action"),
    ("observation", "encode_observation"), ("policies", "choose"), ("policies", "policy_seed"),
    ("codec", "state_to_dict"), ("codec", "dict_to_state"), ("text", "render_text"), ("text", "narrate"),
    ("batch", "reset_rows"), ("batch", "play_rows"), ("batch", "learner_reset_rows"),
    ("batch", "learner_step_rows"), ("view", "redact"),
)
# A value no state dict field accepts (every field is validated, ``contract.py``: codec).
NOT_A_FIELD_VALUE = {"not": "a state dict value"}
# Option values no option of any game accepts: refusing them must name the allowed values.
BOGUS = "<not an allowed value>"


def _where(spec: GameSpec, players: int | None, what: str) -> str:
    """The prefix of a failure message: the game, the player count and the check."""
    count = "" if players is None else f", players={players}"
    return f"check_game({spec.name!r}{count}): {what}"


@contextlib.contextmanager
def _reporting(spec: GameSpec, players: int | None, what: str) -> Iterator[None]:
    """Turn any failure inside into an AssertionError naming the game, the players and the check."""
    where = _where(spec, players, what)
    try:
        yield
    except AssertionError as e:
        raise AssertionError(f"{where}: {e}") from e
    except Exception as e:  # an unexpected error of the game is a failed check too
        raise AssertionError(f"{where}: raised {type(e).__name__}: {e}") from e


def _resolve(game, games=None) -> GameSpec:
    """The spec of ``game`` (a GameSpec, or a name looked up in ``games``: a mapping of names to
    specs, a function of a name, or None for the package registry)."""
    if isinstance(game, GameSpec):
        return game
    if games is None:
        return get_game(game)
    if isinstance(games, Mapping):
        if game not in games:
            raise ValueError(f"game={game!r} is not allowed; allowed values: {', '.join(map(repr, games))}")
        return games[game]
    if callable(games):
        return games(game)
    raise TypeError(f"games must be a mapping of names to GameSpec, a function of a name or None, got {games!r}")


def _player_counts(spec: GameSpec, players) -> tuple[int, ...]:
    if players is None:
        return tuple(spec.player_counts)
    if isinstance(players, Iterable) and not isinstance(players, (str, bytes)):
        return tuple(spec.check_players(p, "players") for p in players)
    return (spec.check_players(players, "players"),)


def _same_type_equal(a, b) -> bool:
    return type(a) is type(b) and a == b


def option_sets(spec: GameSpec) -> list[dict]:
    """The option sets the checks play: the defaults (``{}``), then each listed value of each
    option other than its default, one option at a time."""
    out: list[dict] = [{}]
    for o in spec.options:
        for c in o.choices or ():
            if not _same_type_equal(c, o.default):
                out.append({o.name: c})
    return out


def _raw_env_or_none(spec: GameSpec, n: int, options: dict, **kwargs):
    """The raw env, or None when the game refuses this option set at ``n`` players."""
    try:
        return spec.raw_env(num_players=n, **options, **kwargs)
    except ValueError:
        if not options:
            raise  # the defaults must work at every player count of the spec
        return None


def _random_move(env, rng) -> int:
    legal = np.flatnonzero(env.legal_action_mask())
    assert len(legal), f"no legal action while the game runs (agent {env.agent_selection})"
    return int(legal[rng.integers(len(legal))])


def _over(env) -> bool:
    a = env.agent_selection
    return bool(env.terminations[a] or env.truncations[a])


def _first_difference(a, b, path: str = "") -> str:
    """Where two JSON values first differ, as a readable path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}[{k!r}] is in only one of them"
            if a[k] != b[k]:
                return _first_difference(a[k], b[k], f"{path}[{k!r}]")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} and {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'the value'}: {a!r} != {b!r}"


def _same_dicts(a: dict, b: dict, what: str) -> None:
    assert a == b, f"{what}; first difference at {_first_difference(a, b)}"


def _same_arrays(a, b, what: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.array_equal(a, b):
        first = "" if a.shape != b.shape else tuple(int(i) for i in np.argwhere(a != b)[0])
        where = "shapes differ" if a.shape != b.shape else f"first at index {first}"
        raise AssertionError(f"{what} ({where})")


def _rows(vec) -> np.ndarray:
    """Every game's state of a vector env as engine (int64) rows, whatever its row type."""
    return np.stack([vec.state_row(i) for i in range(vec.num_envs)])


def _same_env_position(e, f, what: str) -> None:
    """Two raw envs hold the same position: state dict, agent to act, masks, every observation."""
    _same_dicts(e.state_dict(), f.state_dict(), f"{what}: state_dict() differs")
    assert e.agent_selection == f.agent_selection, \
        f"{what}: agent_selection {e.agent_selection!r} != {f.agent_selection!r}"
    assert e.terminations == f.terminations, f"{what}: terminations {e.terminations} != {f.terminations}"
    _same_arrays(e.legal_action_mask(), f.legal_action_mask(), f"{what}: legal_action_mask() differs")
    for agent in e.possible_agents:
        _same_arrays(e.observe(agent)["observation"], f.observe(agent)["observation"],
                     f"{what}: observe({agent!r}) differs")


def _checkpoints(env, rng, played: list, stops=(0, 3, 12, 40, 120, 400)) -> Iterator[int]:
    """Play uniform-random moves on ``env`` (appending them to ``played``), pausing (yielding the
    move count) at each of ``stops`` and once at the game's end."""
    for stop in stops:
        while len(played) < stop and not _over(env):
            played.append(_random_move(env, rng))
            env.step(played[-1])
        if _over(env):
            break
        yield len(played)
    while not _over(env):
        assert len(played) < MOVE_CAP, f"random play did not end the game in {MOVE_CAP} moves"
        played.append(_random_move(env, rng))
        env.step(played[-1])
    yield len(played)


# -- the module contract ---------------------------------------------------------------------
def _params(fn) -> list[str]:
    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: its Python function
    return list(inspect.signature(fn).parameters)


def check_contract(game, *, games=None) -> None:
    """Every name of :data:`~sly_scout_env.contract.CONTRACT` in the module of each role, the
    names of :data:`~sly_scout_env.contract.OPTIONAL` in each optional module the game has, and
    the parameter lists of :data:`SIGNATURES` equal to those of the package's other games."""
    spec = _resolve(game, games)
    with _reporting(spec, None, "module contract"):
        problems = []
        for role, names in CONTRACT.items():
            try:
                module = spec.module(role)
            except ImportError as e:
                problems.append(f"role {role!r}: no module {spec.package}.{role} ({e})")
                continue
            missing = [name for name in names if not hasattr(module, name)]
            if missing:
                problems.append(f"{module.__name__} lacks {missing}")
        for role, names in OPTIONAL.items():
            module = spec.optional_module(role)
            if module is not None:
                missing = [name for name in names if not hasattr(module, name)]
                if missing:
                    problems.append(f"{module.__name__} (optional role {role!r}) lacks {missing}")
        assert not problems, "; ".join(problems)
        others = [s for s in all_games() if s.name != spec.name]
        if others:
            ref = others[0]
            for role, name in SIGNATURES:
                want = _params(getattr(ref.module(role), name))
                got = _params(getattr(spec.module(role), name))
                assert got == want, \
                    f"{spec.package}.{role}.{name} takes {got}; the contract (as {ref.name}) takes {want}"


# -- options and player counts ---------------------------------------------------------------
def _refused(make: Callable, kwargs: dict, named: str, allowed: Iterable | None) -> None:
    """``make(**kwargs)`` raises ValueError whose message contains ``named`` and every allowed value."""
    try:
        make(**kwargs)
    except ValueError as e:
        msg = str(e)
    else:
        raise AssertionError(f"{kwargs} was accepted; it must raise ValueError naming {named!r}")
    assert named in msg, f"the ValueError for {kwargs} does not name {named!r}: {msg!r}"
    if allowed is None:
        assert "allowed" in msg, f"the ValueError for {kwargs} does not say what is allowed: {msg!r}"
        return
    missing = [a for a in allowed if repr(a) not in msg and str(a) not in msg]
    assert not missing, f"the ValueError for {kwargs} does not name the allowed values {missing}: {msg!r}"


def _bad_values(option) -> list:
    """Values ``option`` must refuse: one outside its choices, and each choice's type twin
    (True for 1, 1 for True: a bool is an int in Python)."""
    if option.choices is None:  # an int >= 1 (or None)
        return [0, -1, True, 1.5, "2", BOGUS]
    bad = [BOGUS]
    for c in option.choices:
        if isinstance(c, bool):
            twin = int(c)
        elif isinstance(c, int):
            twin = bool(c) if c in (0, 1) else None
        else:
            twin = None
        if twin is not None and not any(_same_type_equal(twin, x) for x in option.choices):
            bad.append(twin)
    return bad


def check_options(game, *, games=None) -> None:
    """Bad player counts and option values are refused by the raw env and the vector env with a
    ValueError naming the bad value and the allowed ones; unknown options are refused by name."""
    spec = _resolve(game, games)
    with _reporting(spec, None, "options"):
        from ..vector import vector_env

        def vec(**kwargs):
            with _visible(spec):
                return vector_env(spec.name, 2, **kwargs)

        counts = sorted(spec.player_counts)
        bad_counts = [counts[-1] + 1, counts[0] - 1, 0, True, str(spec.default_players), 2.0]
        bad_counts = [b for b in bad_counts if not any(_same_type_equal(b, c) for c in counts)]
        for make in (spec.raw_env, vec):
            for bad in bad_counts:
                _refused(make, {"num_players": bad}, f"num_players={bad!r}", counts)
            for option in spec.options:
                for bad in _bad_values(option):
                    allowed = None if option.choices is None else option.choices
                    _refused(make, {option.name: bad}, f"{option.name}={bad!r}", allowed)
            _refused(make, {"no_such_option": 1}, "no_such_option", None)
            _refused(make, {"reward": BOGUS}, f"reward={BOGUS!r}", None)
            _refused(make, {"max_steps": 0}, "max_steps=0", None)
        _refused(spec.raw_env, {"render_mode": BOGUS}, f"render_mode={BOGUS!r}", None)
        for option in spec.options:  # every listed value is accepted
            for c in option.choices or (option.default,):
                spec.raw_env(**{option.name: c})


# -- the rules kernels ----------------------------------------------------------------------
def check_rules(game, players=None, *, games=None, seed: int = 0) -> None:
    """The rules kernels, on every option set: ``new_state`` holds the options, ``reset`` is a
    function of the options and the word, ``legal_mask``'s count is the mask's sum and
    ``legal_actions``' count with the same ids (ascending) in every position of uniform-random
    games (zeros once over), ``apply_action`` returns 0, and ``encode_observation`` writes the
    env's whole observation."""
    spec = _resolve(game, games)
    rules, obs_mod = spec.module("rules"), spec.module("observation")
    for n in _player_counts(spec, players):
        with _reporting(spec, n, "rules kernels"):
            rng = np.random.default_rng([seed, n])
            scratch = rules.make_scratch()
            mask = np.zeros(rules.MAX_ACTIONS, dtype=np.int8)
            for options in option_sets(spec):
                env = _raw_env_or_none(spec, n, options)
                if env is None:
                    continue
                where = f"options {options}"
                opts = rules.parse_options(num_players=n, **options)
                row = rules.new_state(**opts)
                assert row.shape == (rules.ROW_SIZE,) and row.dtype == np.int64, \
                    f"{where}: new_state gives {row.dtype} {row.shape}, not int64 ({rules.ROW_SIZE},)"
                assert row[rules.NUM_PLAYERS] == n, f"{where}: new_state's NUM_PLAYERS is {row[rules.NUM_PLAYERS]}"
                assert env.num_actions <= rules.MAX_ACTIONS, \
                    f"{where}: the env has {env.num_actions} actions > MAX_ACTIONS={rules.MAX_ACTIONS}"
                for _ in range(2):
                    word = int(rng.integers(-(1 << 62), 1 << 62))
                    rules.reset(row, word)
                    again = rules.new_state(**opts)
                    rules.reset(again, word)
                    _same_arrays(row, again, f"{where}: two resets with word {word} deal different rows")
                    assert row[rules.NUM_PLAYERS] == n, f"{where}: reset changed NUM_PLAYERS"
                    assert row[rules.PHASE] != rules.PHASE_GAME_OVER, f"{where}: a fresh deal is over"
                    moves = 0
                    while True:
                        at = f"{where}, word {word}, move {moves}"
                        mask[:] = 7
                        count = rules.legal_mask(row, mask, scratch)
                        assert count >= 0, f"{at}: legal_mask returned the engine error {count}"
                        assert set(np.unique(mask[:env.num_actions])) <= {0, 1}, f"{at}: the mask is not 0/1"
                        k = rules.legal_actions(row, scratch)
                        total = int(mask[:env.num_actions].sum())
                        assert count == total == k, \
                            f"{at}: legal_mask counts {count}, its mask sums to {total}, legal_actions counts {k}"
                        ids = scratch[:k].copy()
                        _same_arrays(ids, np.flatnonzero(mask[:env.num_actions]),
                                     f"{at}: legal_actions' ids are not the mask's, ascending")
                        if row[rules.PHASE] == rules.PHASE_GAME_OVER:
                            assert k == 0, f"{at}: the game is over and has {k} legal actions"
                            break
                        assert k > 0, f"{at}: the game runs and has no legal action"
                        seat = int(row[rules.CURRENT_PLAYER])
                        assert 0 <= seat < n, f"{at}: CURRENT_PLAYER is {seat}"
                        assert moves < MOVE_CAP, f"{where}, word {word}: random play did not end in {MOVE_CAP} moves"
                        rc = rules.apply_action(row, int(ids[rng.integers(k)]), scratch)
                        assert rc == 0, f"{at}: apply_action returned {rc} for a legal action"
                        moves += 1
                # The compiled observation is the env's, entry for entry.
                env.reset(seed=seed)
                state = env.unwrapped._state
                for seat, agent in enumerate(env.possible_agents):
                    out = np.full(env.observation_size, np.nan, dtype=np.float32)
                    obs_mod.encode_observation(state, seat, out)
                    assert not np.isnan(out).any(), f"{where}: encode_observation left entries unwritten"
                    got = env.observe(agent)["observation"]
                    assert got.shape == (env.observation_size,) == env.observation_space(agent)["observation"].shape, \
                        f"{where}: observe() gives shape {got.shape}, observation_size is {env.observation_size}"
                    _same_arrays(out, got, f"{where}: encode_observation(seat {seat}) is not observe({agent!r})")


# -- determinism ------------------------------------------------------------------------------
def check_determinism(game, players=None, *, games=None, seed: int = 0) -> None:
    """The same seed gives the same game: two raw envs reset with one seed and given the same
    moves hold equal positions at every move (state dicts, masks, every observation, rewards),
    and a reset with that seed starts that game again. (Different seeds may deal the same game:
    a game without hidden deals, as Sly's, differs by seed only where its options draw.)"""
    spec = _resolve(game, games)
    for n in _player_counts(spec, players):
        with _reporting(spec, n, "determinism"):
            for options in option_sets(spec):
                e, f = _raw_env_or_none(spec, n, options), _raw_env_or_none(spec, n, options)
                if e is None:
                    continue
                where = f"options {options}"
                for s in (seed, seed + 1):
                    e.reset(seed=s)
                    f.reset(seed=s)
                    start = e.state_dict()
                    rng = np.random.default_rng([seed, n, s])
                    moves = 0
                    while True:
                        _same_env_position(e, f, f"{where}, seed {s}, move {moves}: two envs reset with one seed")
                        if _over(e):
                            break
                        assert moves < MOVE_CAP, f"{where}, seed {s}: random play did not end in {MOVE_CAP} moves"
                        a = _random_move(e, rng)
                        e.step(a)
                        f.step(a)
                        assert e.rewards == f.rewards, f"{where}, seed {s}, move {moves}: rewards differ"
                        moves += 1
                    e.reset(seed=s)
                    _same_dicts(e.state_dict(), start, f"{where}: reset(seed={s}) after a game deals another game")


# -- action validation ------------------------------------------------------------------------
def _bad_actions(num_actions: int, mask: np.ndarray) -> list:
    illegal = np.flatnonzero(mask == 0)
    picks = sorted({int(illegal[i]) for i in np.linspace(0, len(illegal) - 1, min(len(illegal), 6)).astype(int)}) \
        if len(illegal) else []
    return picks + [-1, num_actions, num_actions + 1000, 10**12, 1.0, 2.5, True, np.bool_(False), None, "3",
                    np.array([1])]


def _names(msg: str, action) -> bool:
    return repr(action) in msg or str(action) in msg


def check_action_validation(game, players=None, *, games=None, seed: int = 0) -> None:
    """The raw env refuses an illegal id, a negative or out-of-range id and a non-int (float,
    bool, None, str, array) with a ValueError naming the action (and the range ``[0, N)`` for
    what is not an id), and the refused call changes nothing: the position is the same, and the
    next legal move plays as in a twin env that was never sent the bad action."""
    spec = _resolve(game, games)
    for n in _player_counts(spec, players):
        with _reporting(spec, n, "action validation"):
            for g in range(2):
                s = seed + g
                env, twin = spec.raw_env(num_players=n), spec.raw_env(num_players=n)
                env.reset(seed=s)
                twin.reset(seed=s)
                rng = np.random.default_rng([seed, n, g])
                moves = 0
                for stop in (0, 4, 25, 80):
                    while moves < stop and not _over(env):
                        a = _random_move(env, rng)
                        env.step(a)
                        twin.step(a)
                        moves += 1
                    if _over(env):
                        break
                    at = f"seed {s}, move {moves}"
                    for bad in _bad_actions(env.num_actions, env.legal_action_mask()):
                        try:
                            env.step(bad)
                        except ValueError as e:
                            msg = str(e)
                        else:
                            raise AssertionError(f"{at}: step({bad!r}) was accepted; it must raise ValueError")
                        assert _names(msg, bad), f"{at}: the ValueError for step({bad!r}) does not name it: {msg!r}"
                        legal_id = isinstance(bad, int) and not isinstance(bad, bool) and 0 <= bad < env.num_actions
                        if legal_id:
                            assert "illegal" in msg, f"{at}: the ValueError for illegal {bad} does not say so: {msg!r}"
                        else:
                            rng_text = f"[0, {env.num_actions})"
                            assert rng_text in msg, \
                                f"{at}: the ValueError for step({bad!r}) does not name the range {rng_text}: {msg!r}"
                        _same_env_position(env, twin, f"{at}: after the refused step({bad!r})")
                    a = _random_move(env, rng)
                    env.step(a)
                    twin.step(a)
                    moves += 1
                    _same_env_position(env, twin, f"{at}: the legal move {a} after refused ones")


# -- state dicts ------------------------------------------------------------------------------
def _load_refused(env, d: dict, named: str, what: str) -> None:
    """``env.from_state_dict(d)`` raises ValueError naming ``named`` and leaves ``env`` as it was."""
    before = env.state_dict()
    mask = env.legal_action_mask()
    try:
        env.from_state_dict(d)
    except ValueError as e:
        msg = str(e)
    else:
        raise AssertionError(f"{what} was loaded; from_state_dict must raise ValueError naming {named!r}")
    assert named in msg, f"the ValueError for {what} does not name {named!r}: {msg!r}"
    _same_dicts(env.state_dict(), before, f"the refused {what} changed the env")
    _same_arrays(env.legal_action_mask(), mask, f"the refused {what} changed the legal actions")


def check_state_dict(game, players=None, *, games=None, seed: int = 0) -> None:
    """The state dict round trip, on every option set and along uniform-random games: a state
    dict is plain JSON, a fresh env loads it (without changing the dict) into the same position
    (state dict, agent to act, masks, every observation), and the two envs then play the same
    moves to the end identically (the deal generator travels in the dict). Malformed dicts are
    refused naming the field (each field set to a value no field takes; another game; another
    player count; an unknown field) and leave the env as it was; a dropped field is refused by
    name unless the game treats it as optional."""
    spec = _resolve(game, games)
    for n in _player_counts(spec, players):
        with _reporting(spec, n, "state dict round trip"):
            for options in option_sets(spec):
                env = _raw_env_or_none(spec, n, options)
                if env is None:
                    continue
                where = f"options {options}"
                for g in range(2):
                    s = seed + g
                    env.reset(seed=s)
                    rng = np.random.default_rng([seed, n, g])
                    played: list[int] = []
                    for stop, moves in enumerate(_checkpoints(env, rng, played)):
                        at = f"{where}, seed {s}, move {moves}"
                        d = env.state_dict()
                        assert json.loads(json.dumps(d)) == d, f"{at}: state_dict() is not plain JSON"
                        given = copy.deepcopy(d)
                        other = spec.raw_env(num_players=n, **options)
                        other.from_state_dict(given)
                        assert given == d, f"{at}: from_state_dict changed the dict it was given"
                        _same_env_position(env, other, f"{at}: the env that loaded the state dict")
                        if g:
                            continue
                        # The loaded copy plays on as the original does (next deals too), for a while.
                        # (The original: a replay; a deep copy of an env is no copy when its
                        # arrays are views of its state row.)
                        original = spec.raw_env(num_players=n, **options)
                        original.reset(seed=s)
                        for a in played:
                            original.step(a)
                        play = np.random.default_rng([seed, n, g, moves])
                        for k in range(150):
                            if _over(original):
                                break
                            a = _random_move(original, play)
                            original.step(a)
                            other.step(a)
                            assert original.rewards == other.rewards, \
                                f"{at}: rewards differ {k + 1} moves after the load"
                        _same_env_position(original, other, f"{at}: the loaded env, after the original's next moves")
                        if stop == 1:
                            _check_malformed(spec, n, options, d, s, at)


def _check_malformed(spec: GameSpec, n: int, options: dict, d: dict, s: int, at: str) -> None:
    """Malformed versions of the state dict ``d`` are refused by name and change nothing."""
    target = spec.raw_env(num_players=n, **options)
    target.reset(seed=s + 1000)
    for field in d:
        bad = dict(d)
        bad[field] = NOT_A_FIELD_VALUE
        _load_refused(target, bad, field, f"{at}: the state dict with {field!r}={NOT_A_FIELD_VALUE}")
        dropped = {k: v for k, v in d.items() if k != field}
        probe = spec.raw_env(num_players=n, **options)
        probe.reset(seed=s + 1000)
        try:
            probe.from_state_dict(dropped)
        except ValueError as e:  # else the game takes the field as optional
            assert field in str(e), f"{at}: the ValueError for the state dict without {field!r} does not name it: {e}"
            _same_dicts(probe.state_dict(), target.state_dict(),
                        f"{at}: the refused state dict without {field!r} changed the env")
    _load_refused(target, dict(d, no_such_field=1), "no_such_field", f"{at}: the state dict with an unknown field")
    for count in [c for c in spec.player_counts if c != n][:1]:
        stranger = spec.raw_env(num_players=count)
        stranger.reset(seed=s)
        _load_refused(stranger, d, "num_players", f"{at}: a {n}-player state dict in a {count}-player env")
    _load_refused(target, dict(d, game=BOGUS), "game", f"{at}: a state dict of another game")
    _load_refused(target, [], "dict", f"{at}: a list for a state dict")


# -- the vector env ---------------------------------------------------------------------------
@contextlib.contextmanager
def _visible(spec: GameSpec) -> Iterator[None]:
    """Let the package's generic code (the vector env) find ``spec`` by name while inside: a game
    checked from its own registry (``check_game(name, games=...)``) is not in the package's."""
    from .. import games as registry

    if registry._SPECS.get(spec.name) is spec:
        yield
        return
    saved_specs, saved_names = dict(registry._SPECS), registry.GAMES
    registry._SPECS[spec.name] = spec
    registry.GAMES = tuple(registry._SPECS)
    try:
        yield
    finally:
        registry._SPECS.clear()
        registry._SPECS.update(saved_specs)
        registry.GAMES = saved_names


def _pick(masks: np.ndarray, step: int) -> np.ndarray:
    """One legal action per row, a function of the row index, the step and the row's mask only
    (so rows of batches of any size get the same actions); -1 for a row without one."""
    cum = masks.astype(np.int64).cumsum(axis=1)
    count = cum[:, -1]
    rows = np.arange(len(masks))
    k = (step * 7919 + rows * 104729) % np.maximum(count, 1)
    return np.where(count > 0, np.argmax(cum > k[:, None], axis=1), -1)


def check_vector_env(game, players=None, *, games=None, seed: int = 0) -> None:
    """The vector env's rows are the raw env's games: rows seeded like ``raw_env.reset(seed=s)``
    hold the raw envs' positions move for move (state row, observation, mask, seat, rewards,
    terminations; on every option set), and a row's games (autoreset included) are the same
    whatever the batch size and the Numba thread count."""
    spec = _resolve(game, games)
    from ..vector import vector_env

    for n in _player_counts(spec, players):
        with _reporting(spec, n, "vector env"), _visible(spec):
            for options in option_sets(spec):
                if _raw_env_or_none(spec, n, options) is None:
                    continue
                where = f"options {options}"
                seeds = [seed, seed + 17, seed + 4242]
                vec = vector_env(spec.name, len(seeds), num_players=n, autoreset=False, **options)
                obs, infos = vec.reset(seed=seeds)
                envs = [spec.raw_env(num_players=n, **options) for _ in seeds]
                for e, s in zip(envs, seeds):
                    e.reset(seed=s)
                done = np.zeros(len(seeds), dtype=bool)
                rng = np.random.default_rng([seed, n])
                for t in range(MOVE_CAP):
                    for i, e in enumerate(envs):
                        at = f"{where}, row {i} (seed {seeds[i]}), move {t}"
                        _same_arrays(vec.state_row(i), e.unwrapped._state, f"{at}: the row is not the raw env's state")
                        if done[i]:
                            assert not obs["action_mask"][i].any(), f"{at}: a finished row has legal actions"
                            continue
                        view = e.observe(e.agent_selection)
                        assert infos["seat"][i] == e.agent_name_mapping[e.agent_selection], \
                            f"{at}: seat {infos['seat'][i]}, the raw env's agent to act is {e.agent_selection}"
                        _same_arrays(obs["observation"][i], view["observation"], f"{at}: the observation differs")
                        _same_arrays(obs["action_mask"][i], view["action_mask"], f"{at}: the action mask differs")
                    if done.all():
                        break
                    actions = np.array([-1 if done[i] else _random_move(e, rng) for i, e in enumerate(envs)])
                    obs, rewards, terms, truncs, infos = vec.step(actions)
                    for i, e in enumerate(envs):
                        if done[i]:
                            continue
                        e.step(int(actions[i]))
                        at = f"{where}, row {i} (seed {seeds[i]}), move {t}"
                        paid = [e.rewards[a] for a in e.possible_agents]
                        assert np.allclose(rewards[i], paid, rtol=1e-6), \
                            f"{at}: rewards {rewards[i]} != raw env's {paid}"
                        assert bool(terms[i]) == _over(e), f"{at}: termination {terms[i]} != raw env's {_over(e)}"
                        done[i] = _over(e)
                else:
                    raise AssertionError(f"{where}: random play did not end the rows' games in {MOVE_CAP} moves")
            # Batch size and thread count: one small batch and big ones on 1 and on every Numba
            # thread, in lockstep (the thread count is set before each big batch's step).
            import numba

            threads_before = numba.get_num_threads()
            counts = sorted({1, numba.config.NUMBA_NUM_THREADS})
            small = vector_env(spec.name, 3, num_players=n)
            bigs = {threads: vector_env(spec.name, BIG_BATCH, num_players=n) for threads in counts}
            restarted = False
            try:
                o_small = small.reset(seed=seed)[0]
                o_big = {}
                for threads, vec in bigs.items():
                    numba.set_num_threads(threads)
                    o_big[threads] = vec.reset(seed=seed)[0]
                t = 0
                while t < VECTOR_STEPS or not restarted:  # until some game restarted, too
                    assert t < MOVE_CAP, f"no game of {BIG_BATCH} rows ended in {MOVE_CAP} steps"
                    out_small = small.step(_pick(o_small["action_mask"], t))
                    o_small = out_small[0]
                    outs = {}
                    for threads, vec in bigs.items():
                        numba.set_num_threads(threads)
                        outs[threads] = vec.step(_pick(o_big[threads]["action_mask"], t))
                        o_big[threads] = outs[threads][0]
                    ref_threads = counts[0]
                    ref, ref_vec = outs[ref_threads], bigs[ref_threads]
                    for threads in counts[1:]:
                        _same_arrays(_rows(bigs[threads]), _rows(ref_vec),
                                     f"step {t}: {BIG_BATCH} rows on {threads} Numba threads differ from 1 thread")
                    at = f"step {t}: 3 rows differ from the first 3 of {BIG_BATCH} rows in"
                    _same_arrays(_rows(small), _rows(ref_vec)[:3], f"{at} their state rows")
                    _same_arrays(o_small["observation"], ref[0]["observation"][:3], f"{at} their observations")
                    _same_arrays(o_small["action_mask"], ref[0]["action_mask"][:3], f"{at} their masks")
                    _same_arrays(out_small[1], ref[1][:3], f"{at} their rewards")
                    _same_arrays(out_small[2], ref[2][:3], f"{at} their terminations")
                    restarted |= bool(ref[2].any())
                    t += 1
            finally:
                numba.set_num_threads(threads_before)


# -- PettingZoo's own tests ---------------------------------------------------------------------
def check_pettingzoo(game, players=None, *, games=None, seed: int = 0, num_cycles: int = 1000) -> None:
    """PettingZoo's ``api_test`` on the wrapped and the raw env, ``seed_test`` and, when the env
    lists render modes, ``render_test`` (an ``"ansi"`` render must be non-empty text).
    PettingZoo's warnings about Dict observations (as for its own classic envs) and its
    progress lines are kept out of the output. ``seed`` is unused (PettingZoo seeds itself)."""
    spec = _resolve(game, games)
    from pettingzoo.test import api_test, render_test, seed_test

    for n in _player_counts(spec, players):
        make = functools.partial(spec.env, num_players=n)
        with _reporting(spec, n, "PettingZoo"), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
            warnings.filterwarnings("ignore", message="Observation space for each agent")
            for label, env in (("api_test(env())", make()), ("api_test(raw_env())", spec.raw_env(num_players=n))):
                try:
                    api_test(env, num_cycles=num_cycles)
                except AssertionError as e:
                    raise AssertionError(f"{label} failed: {str(e) or 'an assertion without a message'}") from e
            try:
                seed_test(make, num_cycles=max(1, num_cycles // 2))
            except AssertionError as e:
                raise AssertionError(f"seed_test failed: {str(e) or 'an assertion without a message'}") from e
            if make().metadata.get("render_modes"):
                try:
                    render_test(make, custom_tests={"ansi": lambda text: isinstance(text, str) and bool(text.strip())})
                except AssertionError as e:
                    raise AssertionError(f"render_test failed: {str(e) or 'an assertion without a message'}") from e


# -- everything -------------------------------------------------------------------------------
def check_game(name, players=None, *, games=None, seed: int = 0) -> None:
    """Run every check on game ``name`` (see :mod:`sly_scout_env.testing`): the module contract
    and the options once, then, for each player count (``players``: one count, several, or None
    for every count of the spec), the rules kernels, determinism, action validation, the state
    dict round trip, the vector env and PettingZoo's API tests.

    ``games``: where ``name`` is looked up: None (the package registry,
    :func:`sly_scout_env.games.get_game`), a mapping of names to
    :class:`~sly_scout_env.games.GameSpec`, or a function of a name; ``name`` may be a spec
    too. ``seed``: the base of every seed the checks use, an int >= 0 (any seed must pass).

    Raises AssertionError naming the game, the player count and what failed; returns None.
    """
    spec = _resolve(name, games)
    counts = _player_counts(spec, players)
    check_int("seed", seed, 0)
    check_contract(spec)
    check_options(spec)
    for n in counts:
        for check in (check_rules, check_determinism, check_action_validation, check_state_dict, check_vector_env,
                      check_pettingzoo):
            check(spec, n, seed=seed)
