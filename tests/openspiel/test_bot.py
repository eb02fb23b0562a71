"""``openspiel_ismcts``: OpenSpiel's ISMCTSBot as a bot of our arena, from the seat's view only."""

import time

import pytest

from sly_scout_env.agents.bots.openspiel_ismcts import OpenSpielISMCTSAgent
from sly_scout_env.agents.bots.registry import available, register
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.games import get_game

from .helpers import COUNTS  # (skips without OpenSpiel: the bot imports it when built)

FACTORY = "sly_scout_env.agents.bots.openspiel_ismcts:OpenSpielISMCTSAgent"


def _play(game, players, bots, seed, options):
    env = get_game(game).raw_env(num_players=players, **options)
    env.reset(seed=seed)
    for s, b in enumerate(bots):
        b.reset(seed * 10 + s, game=game, num_players=players, seat=s, options=options)
    moves = 0
    while not env.terminations[env.agent_selection]:
        seat = env.agent_name_mapping[env.agent_selection]
        o = env.observe(env.agent_selection)
        info = {"seat": seat, "game": game, "num_players": players, "view": player_view(env.state_dict(), seat)}
        a = int(bots[seat].act(o["observation"], o["action_mask"], info))
        assert o["action_mask"][a] == 1
        env.step(a)
        moves += 1
    return moves


@pytest.mark.parametrize("game,players", COUNTS)
def test_it_plays_legal_moves_in_full_games(game, players):
    options = {"rounds": 1} if game == "scout" else {}
    bot = OpenSpielISMCTSAgent(game, iterations=4)
    others = [OpenSpielISMCTSAgent(game, iterations=2) for _ in range(players - 1)]
    assert _play(game, players, [bot, *others], 3, options) > 0


def test_the_same_seed_plays_the_same_moves():
    a = [OpenSpielISMCTSAgent("sly", iterations=10) for _ in range(2)]
    b = [OpenSpielISMCTSAgent("sly", iterations=10) for _ in range(2)]
    env_moves = []
    for bots in (a, b):
        env = get_game("sly").raw_env(num_players=2)
        env.reset(seed=4)
        for s, bot in enumerate(bots):
            bot.reset(40 + s, game="sly", num_players=2, seat=s, options={})
        moves = []
        while not env.terminations[env.agent_selection]:
            seat = env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            moves.append(bots[seat].act(o["observation"], o["action_mask"],
                                        {"seat": seat, "view": player_view(env.state_dict(), seat)}))
            env.step(moves[-1])
        env_moves.append(moves)
    assert env_moves[0] == env_moves[1]


def test_a_time_limit_sizes_the_simulations_from_the_time_per_simulation():
    bot = OpenSpielISMCTSAgent("sly", time_limit=0.05, iterations=None)
    env = get_game("sly").raw_env(num_players=3)
    env.reset(seed=1)
    bot.reset(1, game="sly", num_players=3, seat=0, options={})
    o = env.observe("player_0")
    t = time.perf_counter()
    a = bot.act(o["observation"], o["action_mask"], {"seat": 0, "view": player_view(env.state_dict(), 0)})
    assert o["action_mask"][a] == 1 and bot.last_simulations >= 1
    assert time.perf_counter() - t < 1.0  # shared machines: a loose bound; the budget is ~0.05 s


@pytest.mark.parametrize("kwargs,message", [
    ({"iterations": 1}, r"iterations=1 is not allowed; allowed values: an int >= 2"),
    ({"time_limit": -1}, r"time_limit=-1 is not allowed; allowed values: None or seconds > 0"),
    ({"c": "big"}, r"c='big' is not allowed"),
    ({"final": "best"}, r"final='best' is not allowed; allowed values: 'max_visit_count'"),
    ({"max_world_samples": 0}, r"max_world_samples=0 is not allowed"),
])
def test_bad_parameters_are_refused_when_built(kwargs, message):
    with pytest.raises(ValueError, match=message):
        OpenSpielISMCTSAgent("scout", **kwargs)


def test_it_plays_in_the_arena():
    from sly_scout_env.agents.evaluation.arena import run_arena

    if "openspiel_ismcts" not in available():
        register("openspiel_ismcts", FACTORY, takes_game=True, description="OpenSpiel's ISMCTSBot")
    result = run_arena("sly", 2, ["openspiel_ismcts:iterations=5", "random"], games=4, workers=1, progress=False)
    assert result.games == 4 and result.truncated == 0
