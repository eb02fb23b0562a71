"""The registration, the game type and info, the parameters and the errors of bad input."""

import numpy as np
import pytest

from sly_scout_env.games import all_games, get_game

from .helpers import COUNTS, OS, pyspiel, random_playout


def test_every_game_of_the_registry_is_registered_under_its_name():
    names = set(pyspiel.registered_names())
    assert OS.GAMES == tuple(spec.name for spec in all_games())
    for spec in all_games():
        assert OS.game_name(spec) == f"python_{spec.name}" in names
        game = pyspiel.load_game(f"python_{spec.name}")
        assert game.num_players() == spec.default_players
        assert game.get_type().short_name == f"python_{spec.name}"


@pytest.mark.parametrize("game,players", COUNTS)
def test_the_game_type_and_info_are_the_envs(game, players):
    spec = get_game(game)
    g = OS.load(game, players)
    env = spec.raw_env(num_players=players)
    t = g.get_type()
    T = pyspiel.GameType
    assert t.dynamics == T.Dynamics.SEQUENTIAL
    assert t.information == T.Information.IMPERFECT_INFORMATION
    assert t.utility == T.Utility.GENERAL_SUM and g.utility_sum() is None
    assert t.reward_model == T.RewardModel.TERMINAL
    assert (t.min_num_players, t.max_num_players) == (min(spec.player_counts), max(spec.player_counts))
    assert t.provides_information_state_string and t.provides_observation_string and t.provides_observation_tensor
    assert not t.provides_information_state_tensor
    # The count of this instance (Scout: of the player count), not the largest layout.
    assert g.num_distinct_actions() == env.num_actions
    assert g.observation_tensor_size() == env.observation_size
    assert g.num_players() == players
    state = g.new_initial_state()
    if state.is_chance_node():
        assert t.chance_mode == T.ChanceMode.EXPLICIT_STOCHASTIC
        assert g.max_chance_outcomes() == OS.SEED_BASE
    else:
        assert t.chance_mode == T.ChanceMode.DETERMINISTIC
        assert g.max_chance_outcomes() == 0
    bounds = spec.module("bounds")
    natural = bounds.max_moves(env.options)
    assert g.max_game_length() == (OS.DEFAULT_MAX_STEPS if natural is None else min(natural, OS.DEFAULT_MAX_STEPS))
    assert (g.min_utility(), g.max_utility()) == bounds.score_bounds(env.options, g.max_game_length())
    assert g.min_utility() < 0 < g.max_utility()


def test_each_option_is_a_parameter_with_the_envs_default():
    for spec in all_games():
        g = pyspiel.load_game(f"python_{spec.name}")
        params = pyspiel.registered_games()[[t.short_name for t in pyspiel.registered_games()].index(
            f"python_{spec.name}")].parameter_specification
        assert set(params) == {"players", "max_steps", *spec.option_names}
        assert params["players"] == spec.default_players
        assert g.options == spec.raw_env().options


def test_none_and_mixed_values_are_spelled_and_read_back():
    g = pyspiel.load_game("python_scout(players=3,rounds=0)")
    assert g.options["rounds"] == 3  # 0 = None: the official count
    assert pyspiel.load_game("python_scout(rounds=2)").options["rounds"] == 2
    assert pyspiel.load_game("python_sly(players=4,hen_houses=0)").options["hen_houses"] == 2
    g = pyspiel.load_game("python_sly(first_player=random)")
    assert g.options["first_player"] == "random" and g.new_initial_state().is_chance_node()
    assert pyspiel.load_game("python_sly", {"first_player": "0"}).options["first_player"] == 0
    # The game strings load again (a numeric-looking string default is left out of them).
    for text in ("python_sly", "python_sly(first_player=random,players=2)", "python_scout(players=5,rounds=1)"):
        g = pyspiel.load_game(text)
        assert str(pyspiel.load_game(str(g))) == str(g)
    assert OS.params_for("scout", 3, rounds=None, ii_after_empty_set=False) == {
        "players": 3, "rounds": 0, "ii_after_empty_set": False}
    assert OS.params_for("sly", first_player="random", hen_houses=None, max_steps=50) == {
        "players": 3, "first_player": "random", "hen_houses": 0, "max_steps": 50}


@pytest.mark.parametrize("text,message", [
    ("python_scout(players=7)", r"players=7 is not allowed for scout; allowed values: 2, 3, 4, 5"),
    ("python_sly(players=5)", r"players=5 is not allowed for sly; allowed values: 2, 3, 4"),
    ("python_sly(hen_houses=3)", r"hen_houses=3 is not allowed; allowed values: 0 \(None\), 1, 2"),
    ("python_sly(reveal_scope=some)", r"reveal_scope='some' is not allowed; allowed values: 'house', 'all'"),
    ("python_sly(first_player=last)", r"first_player='last' is not allowed; allowed values: '0', 'random'"),
    ("python_scout(rounds=-2)", r"rounds=-2 is not allowed; allowed values: 0 \(None: the default\) or an int >= 1"),
    ("python_scout(max_steps=0)", r"max_steps=0 is not allowed; allowed values: an int >= 1"),
])
def test_a_bad_value_raises_naming_it_and_what_is_allowed(text, message):
    with pytest.raises(OS.ParameterError, match=message) as info:
        pyspiel.load_game(text)
    assert isinstance(info.value, pyspiel.SpielError) and isinstance(info.value, ValueError)


def test_unknown_or_mistyped_parameters_get_openspiels_own_errors():
    with pytest.raises(pyspiel.SpielError, match=r"Unknown parameter 'colour'. Available parameters are: "
                                                 r"first_player, hen_houses, max_steps, players, reveal_scope"):
        pyspiel.load_game("python_sly(colour=red)")
    with pytest.raises(pyspiel.SpielError, match=r"Wrong type for parameter ii_after_empty_set"):
        pyspiel.load_game("python_scout(ii_after_empty_set=1)")
    with pytest.raises(OS.ParameterError, match=r"unknown option 'colour' for sly; allowed options: hen_houses"):
        OS.params_for("sly", colour="red")
    cls = type(pyspiel.load_game("python_sly"))  # the game class built from a dict directly: the same check
    with pytest.raises(OS.ParameterError, match=r"Unknown parameter 'colour'. Available parameters are: "
                                                r"first_player, hen_houses, max_steps, players, reveal_scope"):
        cls({"colour": "red"})
    with pytest.raises(OS.ParameterError, match=r"players='3' is not allowed for sly"):
        cls({"players": "3"})


@pytest.mark.parametrize("game,players", [("scout", 3), ("sly", 2)])
def test_an_illegal_action_raises_naming_the_legal_ones_and_changes_nothing(game, players):
    state = OS.load(game, players).new_initial_state()
    rng = np.random.default_rng(0)
    if state.is_chance_node():
        with pytest.raises(OS.IllegalActionError, match=r"chance outcome 256 is illegal; legal outcomes: 0..255"):
            state.apply_action(OS.SEED_BASE)
        random_playout(state, rng, max_moves=0)
        for d in OS.seed_digits(12):
            state.apply_action(d)
    before = str(state)
    legal = state.legal_actions()
    bad = next(a for a in range(state.get_game().num_distinct_actions()) if a not in legal)
    with pytest.raises(OS.IllegalActionError, match=rf"action {bad} \(.+\) is illegal for player "
                                                    rf"{state.current_player()} now; legal actions: {legal[0]}, "):
        state.apply_action(bad)
    with pytest.raises(OS.IllegalActionError, match=r"out of range"):
        state.apply_action(10**6)
    assert str(state) == before and state.legal_actions() == legal
    random_playout(state, rng)
    with pytest.raises(OS.IllegalActionError, match=r"applied to a finished game"):
        state.apply_action(legal[0])


@pytest.mark.parametrize("game,players", COUNTS)
def test_action_strings_are_the_envs_words(game, players):
    spec = get_game(game)
    env = spec.raw_env(num_players=players)
    env.reset(seed=3)
    state = OS.load(game, players).new_initial_state()
    if state.is_chance_node():
        for d in OS.seed_digits(3):
            assert state.action_to_string(d).startswith("deal seed digit")
            state.apply_action(d)
    else:
        env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(30):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        for a in legal[:5]:
            assert state.action_to_string(a) == env.action_to_str(a)
        a = legal[int(rng.integers(len(legal)))]
        env.step(a)
        state.apply_action(a)
        if state.is_chance_node():
            break
