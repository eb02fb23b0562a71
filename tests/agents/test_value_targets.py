"""benchmarks/value_targets.py: value targets from compiled self-play, the two input kinds, a tiny fit."""

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
require("torch", INSTALL_TRAIN)

from benchmarks.value_targets import entropy, fit_value, inputs_of, main, positions  # noqa: E402
from sly_scout_env.agents.bots.registry import make  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402
from sly_scout_env.netfile import load, shipped_expert_for  # noqa: E402
from sly_scout_env.views import player_view  # noqa: E402


@pytest.fixture(scope="module")
def scout2():
    return positions("scout", 2, 6, seed=5)


def test_targets_are_the_searchs_reward_at_the_end_of_each_round(scout2):
    obs, value, games, horizons = scout2["obs"], scout2["value"], scout2["game"], scout2["horizon"]
    assert scout2["policy"] == "greedy"  # Scout's rollout policy
    assert obs.shape == (len(value), 2, get_game("scout").module("observation").observation_size(2))
    assert np.isfinite(value).all() and ((0 <= value) & (value <= 1)).all()
    # Scout's search values the squashed margin ("score"): with two seats the two rewards sum to one
    np.testing.assert_allclose(value.sum(axis=1), 1.0, atol=1e-6)
    # one reward per seat for a whole round, and the rounds do not all end alike
    stretches = {}
    for g, h, v in zip(games, horizons, value):
        stretches.setdefault((g, h), set()).add(tuple(np.round(v, 6)))
    assert all(len(s) == 1 for s in stretches.values())
    assert len({next(iter(s)) for s in stretches.values()}) > 1
    assert len(stretches) > 6  # every game has more than one round
    # every seat's row is that seat's own observation: the two differ at every position
    assert all((o[0] != o[1]).any() for o in obs)


def test_a_target_is_what_a_rollout_from_the_round_start_scores():
    """The first position of a game, played on by the same compiled policy with the search's own
    rollout, ends the round with the recorded rewards."""
    from sly_scout_env.ismcts import VALUE_CODES, reward

    data = positions("scout", 3, 1, seed=9)
    bot = make("ismcts", game="scout")
    bot.reset(0, game="scout", num_players=3, seat=0, options={})
    adapter = bot.search.adapter
    rules = get_game("scout").module("rules")
    pol = get_game("scout").module("policies")
    row = rules.new_state(**rules.parse_options(num_players=3))
    word = np.random.SeedSequence(9).generate_state(1, dtype=np.uint64).astype(np.int64)[0]
    rules.reset(row, word)
    row[rules.O_ROUNDS] = row[rules.O_ROUND] + 1  # the search's horizon: this round (the adapter's root)
    adapter.seed_row(row, 0)
    adapter._prng[0] = pol.policy_seed(row, word)  # the self-play's policy word
    adapter.rollout(row, adapter.policy_id("greedy"))
    out = np.zeros(3)
    rounds = get_game("scout").module("rules").parse_options(num_players=3)["rounds"]
    assert rounds > 1
    # a row cut to one round scores it as the search does, with the real game's weights
    reward(np.asarray(adapter.returns(row), np.float64), 3, VALUE_CODES[bot.params["value"]],
           float(bot.params["score_scale"]), out)
    np.testing.assert_allclose(data["value"][0], out, atol=1e-6)


def test_positions_are_deterministic_and_seeded():
    a, b, c = positions("sly", 3, 3, seed=2), positions("sly", 3, 3, seed=2), positions("sly", 3, 3, seed=3)
    np.testing.assert_array_equal(a["obs"], b["obs"])
    np.testing.assert_array_equal(a["value"], b["value"])
    assert a["obs"].shape != c["obs"].shape or (a["obs"] != c["obs"]).any()


def test_inputs_own_and_all(scout2):
    x, y = inputs_of(scout2, "own")
    t, p, d = scout2["obs"].shape
    assert x.shape == (t * p, d) and y.shape == (t * p,)
    np.testing.assert_array_equal(x[3], scout2["obs"][1, 1])
    assert y[3] == scout2["value"][1, 1]
    xa, ya = inputs_of(scout2, "all")
    assert xa.shape == (t * p, p * d)
    np.testing.assert_array_equal(xa[3, :d], scout2["obs"][1, 1])  # the seat's own first
    np.testing.assert_array_equal(xa[3, d:], scout2["obs"][1, 0])  # then round the table
    np.testing.assert_array_equal(ya, y)
    with pytest.raises(ValueError, match="'none' is not allowed; allowed: own, all"):
        inputs_of(scout2, "none")


def test_fit_and_entropy(scout2):
    x, y = inputs_of(scout2, "own")
    records, layers = fit_value(x, y, x, y, hidden=(8,), epochs=2, log=lambda s: None)
    assert [r["epoch"] for r in records] == [0, 1]
    assert all(np.isfinite(r["val_loss"]) and r["val_loss"] >= entropy(y) - 1e-6 for r in records)
    assert [w.shape for w, _ in layers] == [(8, x.shape[1]), (1, 8)]
    assert entropy(np.array([0.5, 0.5])) == pytest.approx(np.log(2))
    assert entropy(np.array([0.0, 1.0])) < 1e-4


def test_main_writes_a_checkpoint_the_expert_searches_with(tmp_path, capsys):
    path = tmp_path / "v.npz"
    assert main(["scout", "--players", "2", "--games", "4", "--val-games", "2", "--epochs", "1", "--hidden", "8",
                 "--inputs", "own,all", "--write", str(path)]) == 0
    out = capsys.readouterr().out
    assert "| own | 149 |" in out and "| all | 298 |" in out
    p, base = load(str(path)), shipped_expert_for("scout", 2)
    assert p.has_value and len(p.value_net[0]) == 1
    for (w, b), (w0, b0) in zip(p.layers + [p.head], base.layers + [base.head]):  # the expert's policy, untouched
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    assert p.meta["value_training"]["policy"] == "greedy"
    env = get_game("scout").raw_env(num_players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    ob = env.observe(agent)
    bot = make("expert", game="scout", path=str(path), iterations=20)
    bot.reset(0, game="scout", num_players=2, seat=seat, options={})
    a = bot.act(ob["observation"], ob["action_mask"], {"view": player_view(env.state_dict(), seat)})
    assert ob["action_mask"][a] == 1


@pytest.mark.parametrize("argv, message", [
    (["scout", "--inputs", "own,bogus"], "--inputs 'own,bogus' is not allowed; give one or more of: own, all"),
    (["scout", "--inputs", "all", "--write", "x.npz"], "--write saves the 'own' value network"),
    (["scout", "--hidden", "0"], "--hidden '0' is not allowed"),
    (["scout", "--players", "7"], "--players=7 is not allowed for scout; allowed values: 2, 3, 4, 5"),
])
def test_main_refuses_bad_input(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err
