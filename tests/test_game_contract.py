"""Both game folders honour the one per-game contract of ``sly_scout_env/contract.py``.

The generic checks are ``sly_scout_env.testing``'s (``tests/test_check_game.py`` runs them all);
this file calls the contract's and the rules kernels' and keeps what compares the games with
each other or needs a game's own layout."""

import inspect

import numpy as np
import pytest

from sly_scout_env.contract import OPTIONAL
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.netpolicy import NO_NETS
from sly_scout_env.testing import check_contract, check_rules
from sly_scout_env.testing.game_checks import SIGNATURES


@pytest.mark.parametrize("game", GAMES)
def test_every_game_module_defines_the_contract_names(game):
    # Every role's names, the optional modules' names, the shared signatures.
    check_contract(game)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("role", sorted(OPTIONAL))
def test_an_optional_module_a_game_lacks_is_not_importable(game, role):
    if get_game(game).optional_module(role) is None:
        with pytest.raises(ModuleNotFoundError):
            get_game(game).module(role)


def test_scout_has_features_and_sly_has_none():
    assert get_game("scout").optional_module("features").FEATURE_SIZE == len(
        get_game("scout").optional_module("features").FEATURE_NAMES)
    assert get_game("sly").optional_module("features") is None


def _params(fn):
    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: its Python function
    return list(inspect.signature(fn).parameters)


@pytest.mark.parametrize("role, name", SIGNATURES)
def test_the_contract_functions_have_one_signature(role, name):
    sigs = {game: _params(getattr(get_game(game).module(role), name)) for game in GAMES}
    assert len({tuple(s) for s in sigs.values()}) == 1, sigs


@pytest.mark.parametrize("game", GAMES)
def test_observation_size_is_the_length_the_env_observes(game):
    spec = get_game(game)
    obs = spec.module("observation")
    for n in spec.player_counts:
        env = spec.raw_env(num_players=n)
        env.reset(seed=n)
        row = env.unwrapped._state
        size = obs.observation_size(*_size_args(game, row, spec))
        assert size == env.observation_size == len(env.observe(env.agent_selection)["observation"])
        out = np.full(size, np.nan, dtype=np.float32)
        obs.encode_observation(row, 0, out)
        assert not np.isnan(out).any()  # every entry is written, none past the end


def _size_args(game, row, spec):
    """observation_size's arguments for a row: the player count, then the game's layout options."""
    rules = spec.module("rules")
    n = int(row[rules.NUM_PLAYERS])
    return (n,) if game == "scout" else (n, int(row[rules.HEN_HOUSES]))


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_kernels_agree_with_each_other_at_every_move(game):
    # new_state holds the options, reset is a function of the options and the word, and
    # legal_mask's count is the mask's sum and legal_actions' in every position of every
    # option set (sly/rules.py says why that needs checking: it counts per space/house).
    check_rules(game)


def _play_recording_deals(game, word, policy, rounds):
    """Play one game from ``word`` with compiled ``policy`` at every seat, as simulate and
    the SB3 opponents do; return every deal (the row at each round start) and the row's
    generator word at the end (a vector env row's next game is seeded from it)."""
    spec = get_game(game)
    rules, pol = spec.module("rules"), spec.module("policies")
    extra = {"rounds": rounds} if "rounds" in spec.option_names else {}
    row = rules.new_state(**rules.parse_options(num_players=3, **extra))
    rules.reset(row, word)
    rng = np.array([pol.policy_seed(row, np.int64(word))], dtype=np.int64)
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(env_observation_size(spec, row), dtype=np.float32)
    pid = pol.policy_id(policy)
    deals = [row.copy()]
    moves = 0
    while row[rules.PHASE] != rules.PHASE_GAME_OVER and moves < 5000:
        before = row.copy()
        a = pol.choose(pid, row, scratch, obs, rng, NO_NETS)
        assert a >= 0 and rules.apply_action(row, a, scratch) == 0
        moves += 1
        if _new_deal(game, rules, before, row):
            deals.append(row.copy())
    return deals, int(row[rules.RNG]), moves


def env_observation_size(spec, row):
    return spec.module("observation").observation_size(*_size_args(spec.name, row, spec))


def _new_deal(game, rules, before, after):
    """Whether ``after`` starts a round that ``before`` did not (Scout deals every round)."""
    return (game == "scout" and after[rules.PHASE] != rules.PHASE_GAME_OVER
            and after[rules.O_ROUND] != before[rules.O_ROUND])


def _hands(game, rules, row):
    """The dealt cards of a row at a round start (Scout: hands and set-aside; Sly: the whole row,
    its deal being the first player and every card in hand)."""
    if game == "scout":
        return row[rules.O_HAND_LEN : rules.O_SET_ASIDE + rules.SET_ASIDE_CAP].copy()
    return row.copy()


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_deals_whatever_the_policies(game):
    """One generator discipline: compiled policies never draw from the row's deal generator.

    Scout deals every round (3 rounds here); Sly deals at reset, and the row's generator
    word at the end seeds the row's next game in the vector envs. Before the policies had
    generators of their own, a Sly greedy seat moved that word (so the next deal)."""
    rules = get_game(game).module("rules")
    played_differently = 0
    for word in (1, 2, 3, -77):
        (deals_r, end_r, moves_r), (deals_g, end_g, moves_g) = (
            _play_recording_deals(game, word, p, rounds=3) for p in ("random", "greedy"))
        played_differently += moves_r != moves_g
        assert len(deals_r) == len(deals_g) == (3 if game == "scout" else 1)
        for a, b in zip(deals_r, deals_g):
            assert np.array_equal(_hands(game, rules, a), _hands(game, rules, b))
        assert end_r == end_g
    assert played_differently  # the policies did play different games


# -- the batched kernels: written out per game, pinned together ----------------------------
# Numba never caches closures, so each game's batch.py writes its step and simulation
# kernels out (sly_scout_env/sly/batch.py says why). They must stay the same code: every
# function both batch modules define has the same source in both, except these per-game
# hooks (what the row layout decides) and the option parsing.
BATCH_HOOKS = {"points_into", "scores_into", "_observation_size", "_unit_result", "new_batch", "sim_template"}
# Renames applied to a game's batch source before comparing: {game: {old: new}}. None are
# needed today (the contract gives both games the same names); a new game whose offsets
# differ in name would list them here.
BATCH_RENAMES: dict[str, dict[str, str]] = {}
PINNED_AT_LEAST = {"reset_rows", "_reset_row", "step_rows", "_step_row", "_step_parallel", "_step_serial",
                   "legal_masks", "observe_rows", "play_rows", "_observe_current", "game_over",
                   "learner_reset_rows", "learner_step_rows", "_learner_step_row", "_learner_start",
                   "_learner_play_opponents"}


def _own_functions(module):
    """name -> source of the functions (plain or compiled) defined in ``module`` itself."""
    out = {}
    for name, obj in vars(module).items():
        fn = getattr(obj, "py_func", obj)
        if inspect.isfunction(fn) and fn.__module__ == module.__name__:
            out[name] = inspect.getsource(fn)
    return out


def _renamed(game, source):
    for old, new in BATCH_RENAMES.get(game, {}).items():
        source = source.replace(old, new)
    return source


def test_the_batched_kernels_of_the_games_are_the_same_source():
    sources = {g: _own_functions(get_game(g).module("batch")) for g in GAMES}
    common = set.intersection(*(set(s) for s in sources.values())) - BATCH_HOOKS
    assert PINNED_AT_LEAST <= common
    first, *others = GAMES
    for name in sorted(common):
        want = _renamed(first, sources[first][name])
        for g in others:
            assert _renamed(g, sources[g][name]) == want, f"batch.{name} differs between {first} and {g}"

