"""The bot protocol and the registry."""

import numpy as np
import pytest

import sly_scout_env.agents as agents
from sly_scout_env.agents import Agent, AgentProtocol, available, make, make_from_spec, parse_spec, register, unregister
from sly_scout_env.agents.bots.random import RandomAgent


class _Const(Agent):
    """Always the lowest legal action; ``offset`` shows that keyword parameters arrive."""

    def __init__(self, offset=0):
        super().__init__()
        self.offset = offset

    def act(self, observation, action_mask, info):
        return int(np.flatnonzero(action_mask)[min(self.offset, int(action_mask.sum()) - 1)])


def test_random_is_registered_for_both_games():
    assert "random" in available()
    assert "random" in available("scout")
    assert "random" in available("sly")
    bot = make("random")
    assert isinstance(bot, RandomAgent)
    assert isinstance(bot, AgentProtocol)
    assert bot.name == "random"


def test_unknown_name_lists_the_registered_names():
    with pytest.raises(ValueError) as err:
        make("no_such_bot")
    assert "no_such_bot" in str(err.value) and "random" in str(err.value)
    with pytest.raises(ValueError, match="random"):
        parse_spec("nope:x=1")


def test_bad_game_is_rejected():
    with pytest.raises(ValueError, match="chess"):
        available("chess")


def test_register_make_and_parameters():
    register("const_t", _Const, games=("sly",), description="test bot")
    try:
        assert "const_t" in available("sly") and "const_t" not in available("scout")
        bot = make_from_spec("const_t:offset=2", game="sly")
        assert bot.offset == 2 and bot.name == "const_t:offset=2"
        with pytest.raises(ValueError, match="does not play scout"):
            make("const_t", game="scout")
        with pytest.raises(ValueError, match="already registered"):
            register("const_t", _Const)
    finally:
        unregister("const_t")
    assert "const_t" not in available()


def test_per_game_factories():
    register("dual_t", {"scout": _Const, "sly": RandomAgent}, description="test")
    try:
        assert isinstance(make("dual_t", game="sly"), RandomAgent)
        assert isinstance(make("dual_t", game="scout"), _Const)
        with pytest.raises(ValueError, match="game="):
            make("dual_t")
    finally:
        unregister("dual_t")


def test_lazy_string_factory():
    register("lazy_t", "sly_scout_env.agents.bots.random:RandomAgent")
    try:
        assert isinstance(make("lazy_t"), RandomAgent)
    finally:
        unregister("lazy_t")


def test_parse_spec_values():
    assert parse_spec("random") == ("random", {})
    assert parse_spec("random:a=1:b=0.5:c=true:d=text") == ("random", {"a": 1, "b": 0.5, "c": True, "d": "text"})
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("random:oops")


def test_parse_spec_refuses_comma_separated_parameters_with_a_hint():
    with pytest.raises(ValueError) as err:
        parse_spec("ismcts:iterations=16,guide=neural")
    msg = str(err.value)
    assert "'iterations=16,guide=neural'" in msg and "separate parameters with ':'" in msg
    assert "ismcts:iterations=16:" in msg
    # a comma inside a value that is not followed by key= still passes (a path, a list)
    assert parse_spec("random:d=a,b") == ("random", {"d": "a,b"})


def test_random_agent_legal_uniform_and_seeded():
    mask = np.zeros(20, dtype=np.int8)
    mask[[3, 7, 11]] = 1
    bot = RandomAgent()
    bot.reset(5, game="sly", num_players=3, seat=0, options={})
    picks = [bot.act(np.zeros(4, np.float32), mask, {}) for _ in range(3000)]
    assert set(picks) == {3, 7, 11}
    counts = np.bincount(picks, minlength=20)[[3, 7, 11]]
    assert counts.min() > 900  # uniform: about 1000 each
    bot.reset(5, game="sly", num_players=3, seat=0, options={})
    assert [bot.act(None, mask, {}) for _ in range(50)] == picks[:50]
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(None, np.zeros(5, np.int8), {})


def test_lazy_package_attributes():
    assert callable(agents.run_arena)
    from sly_scout_env.agents.ui.play import play

    assert callable(play)
