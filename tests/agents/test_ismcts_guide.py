"""ISMCTS guided by the network (``ismcts:guide=neural``): PUCT on the checkpoint's prior.

Both engines: the compiled search (the default) and the Python reference search give the
network's softmax to the root's edges and steer the visits by it (the compiled search does not
add a checkpoint's prior bot; the shipped checkpoints have none). The value cut-off and the
root's noise are the compiled search's only: tests/test_ismcts_guided.py.
"""

import hashlib

import numpy as np
import pytest

from sly_scout_env.agents import make
from sly_scout_env.agents.bots.neural import CheckpointError
from sly_scout_env.games import get_game

from ..games import bot_info, play_bots
from ..nets import hide_shipped

SHIPPED = (("sly", 2), ("sly", 3), ("scout", 2), ("scout", 4), ("scout", 5))


# Recorded with the (Python) search before the guide existed (main at 52a6c00): all seats
# ismcts, 25 iterations, deal seed 7, bot seeds 100 + seat. The Python search with guide=None
# must keep every move (the compiled search draws from its own generator: its moves differ).
UNGUIDED = {("sly", 2, ()): "fdfe9c4f578a6a84", ("sly", 3, ()): "6437c8c032e65bb2",
            ("scout", 2, (("rounds", 1),)): "879e796aeb003e54", ("scout", 3, (("rounds", 1),)): "df9897f2e3f1cced"}


@pytest.mark.parametrize("game,players,options", list(UNGUIDED))
def test_without_a_guide_the_moves_are_those_of_the_plain_search(game, players, options):
    bots = [make("ismcts", game=game, iterations=25, engine="python") for _ in range(players)]
    moves = play_bots(game, players, dict(options), 7, bots)
    assert hashlib.sha256(",".join(map(str, moves)).encode()).hexdigest()[:16] == UNGUIDED[(game, players, options)]


ENGINES = ("compiled", "python")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game,players", SHIPPED)
def test_guided_search_plays_legal_full_games(game, players, engine):
    """Every round and phase of a full game (rule defaults), the guided bot in seat 0."""
    guided = make("ismcts", game=game, guide="neural", iterations=6, engine=engine)
    bots = [guided] + [make("greedy", game=game) for _ in range(players - 1)]
    moves = play_bots(game, players, {}, players, bots)
    root = guided.search.last_root
    assert len(moves) > players and root is not None and root.guide  # the prior was used
    assert abs(sum(root.guide.values()) - 1.0) < 1e-6 or game == "scout"  # Scout prunes some moves


def _positions(game, players, count, seed=0):
    """Running positions (env, seat to move) from random play, several legal moves each."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        env = get_game(game).raw_env(num_players=players)
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 12))):
            if env.terminations[env.agent_selection]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        if not env.terminations[env.agent_selection] and env.observe(env.agent_selection)["action_mask"].sum() >= 3:
            out.append(env)
    return out


def _guided_root(game, players, env, **kw):
    """The guided search's root at ``env``'s position, its network and the env's observation."""
    seat = env.agent_name_mapping[env.agent_selection]
    o = env.observe(env.agent_selection)
    bot = make("ismcts", game=game, guide="neural", **kw)
    bot.reset(5, game=game, num_players=players, seat=seat, options={})
    bot.act(o["observation"], o["action_mask"], bot_info(env, seat))
    return bot.search.last_root, bot._guide_agent, o


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game,players", (("sly", 2), ("sly", 3), ("scout", 2), ("scout", 4)))
def test_root_priors_are_the_networks_softmax_from_the_observers_observation(game, players, engine):
    """The observer's edges (action ids) get the masked softmax of the checkpoint's logits: the
    network's, plus its prior bot's weight on one legal move (Scout's greedy breaks ties at random)."""
    for env in _positions(game, players, 4):
        root, agent, o = _guided_root(game, players, env, iterations=3, engine=engine)
        legal = np.flatnonzero(o["action_mask"])
        z = agent.policy.logits(o["observation"], o["action_mask"]).astype(np.float64)[legal]
        assert set(root.guide) <= set(legal.tolist())  # (Scout: pruned moves have no edge)
        edges = np.isin(legal, list(root.guide))
        got = np.array([root.guide[int(a)] for a in legal[edges]])
        if agent.policy.prior is None:
            candidates = [z]
        else:
            candidates = [z + agent.policy.prior["weight"] * (legal == a) for a in legal]
        # the compiled search renormalises over its (pruned) edges; the Python one over every legal move
        tol = 1e-9 if engine == "python" else 1e-5  # (float32 sums in the compiled forward pass)
        assert any(np.allclose(got, _softmax(c)[edges] / (_softmax(c)[edges].sum() if engine == "compiled" else 1),
                               atol=tol) for c in candidates)


@pytest.mark.parametrize("temperature", (0.5, 3.0))
@pytest.mark.parametrize("game,players", (("sly", 2), ("scout", 3)))
def test_the_prior_temperature_divides_the_logits(game, players, temperature):
    """``guide_temperature=T``: the root's priors are the softmax of the logits / T (renormalised
    over the compiled search's edges); T above 1 gives a flatter prior than the network's own."""
    for env in _positions(game, players, 3, seed=2):
        root, agent, o = _guided_root(game, players, env, iterations=3, guide_temperature=temperature)
        plain, _, _ = _guided_root(game, players, env, iterations=3)
        legal = np.flatnonzero(o["action_mask"])
        z = agent.policy.logits(o["observation"], o["action_mask"]).astype(np.float64)[legal]
        edges = np.isin(legal, list(root.guide))
        got = np.array([root.guide[int(a)] for a in legal[edges]])
        want = _softmax(z / temperature)[edges]
        assert np.allclose(got, want / want.sum(), atol=1e-5)
        mine, theirs = max(root.guide.values()), max(plain.guide.values())
        assert mine < theirs if temperature > 1 else mine > theirs  # (the positions have 3+ unequal moves)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game,players", (("sly", 2), ("scout", 2)))
def test_the_prior_steers_the_visits_to_the_networks_move(game, players, engine):
    """Tiny budget: guided visits pile on the prior's favourite; plain UCB tries moves in turn."""
    for env in _positions(game, players, 5, seed=1):
        root, agent, o = _guided_root(game, players, env, iterations=12, guide_c=20.0, engine=engine)
        visits = {k: ch.visits for k, ch in root.children.items()}
        favourite = max(root.guide, key=root.guide.get)
        assert visits[favourite] == max(visits.values())  # (a near-even second may tie it)
        # ... and that is the network's favourite among the edges (with its prior bot's move,
        # whichever legal move that was: Scout's greedy breaks ties at random)
        edges = np.array(sorted(root.guide))
        z = agent.policy.logits(o["observation"], o["action_mask"]).astype(np.float64)[edges]
        w = 0.0 if agent.policy.prior is None else agent.policy.prior["weight"]
        assert any(edges[np.argmax(z + w * (edges == a))] == favourite
                   for a in np.flatnonzero(o["action_mask"]))
        assert visits[favourite] >= 12 * min(0.5, root.guide[favourite])
        seat = env.agent_name_mapping[env.agent_selection]
        plain = make("ismcts", game=game, iterations=12, top_k=None)
        plain.reset(5, game=game, num_players=players, seat=seat, options={})
        plain.act(o["observation"], o["action_mask"], bot_info(env, seat))
        tried = [ch.visits for ch in plain.search.last_root.children.values()]
        assert len(tried) >= min(3, len(root.guide)) and max(tried) < 12  # no concentration without the prior


def test_a_checkpoint_of_another_table_is_refused(monkeypatch):
    scout2 = str(get_game("scout").checkpoint_file("scout_2p.npz"))
    sly2 = str(get_game("sly").checkpoint_file("sly_2p.npz"))
    bot = make("ismcts", game="sly", guide="neural", guide_path=scout2)
    with pytest.raises(CheckpointError, match="trained on scout with 2 players; this table is sly with 2 players"):
        bot.reset(0, game="sly", num_players=2, seat=0, options={})
    bot = make("ismcts", game="sly", guide="neural", guide_path=sly2)
    with pytest.raises(CheckpointError, match="trained on sly with 2 players; this table is sly with 3 players"):
        bot.reset(0, game="sly", num_players=3, seat=0, options={})
    hide_shipped(monkeypatch, "sly", 4)  # a count without a network
    bot = make("ismcts", game="sly", guide="neural")
    with pytest.raises(CheckpointError, match="player counts with one: 2, 3"):
        bot.reset(0, game="sly", num_players=4, seat=0, options={})
    bot.reset(0, game="sly", num_players=2, seat=0, options={})  # the shipped one fits


def test_bad_guide_parameters_name_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match=r"guide='network' is not allowed; allowed values: none, neural"):
        make("ismcts", game="sly", guide="network")
    for bad in (-1, 0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=f"guide_c={bad!r} is not allowed; give a PUCT exploration constant > 0"):
            make("ismcts", game="scout", guide="neural", guide_c=bad)
    for bad in (0, -2.0, float("inf"), True, "hot"):
        with pytest.raises(ValueError, match=f"guide_temperature={bad!r} is not allowed; give a number > 0"):
            make("ismcts", game="sly", guide="neural", guide_temperature=bad)
    with pytest.raises(ValueError, match="give guide=neural with them"):
        make("ismcts", game="sly", guide_temperature=2)
    with pytest.raises(ValueError, match="run on engine=compiled only"):
        make("ismcts", game="sly", guide="neural", guide_temperature=2, engine="python")
    for bad in (0, "no", None):
        with pytest.raises(ValueError, match=f"guide_opponents={bad!r} is not allowed; give true or false"):
            make("ismcts", game="scout", guide="neural", guide_opponents=bad)
    with pytest.raises(ValueError, match="give guide=neural with them"):
        make("ismcts", game="scout", guide_opponents=False)
    with pytest.raises(ValueError, match="run on engine=compiled only"):
        make("ismcts", game="scout", guide="neural", guide_opponents=False, engine="python")
    with pytest.raises(ValueError, match="needs a guide"):
        make("ismcts", game="sly", guide_path="x.npz")
    with pytest.raises(CheckpointError, match="missing.npz"):
        make("ismcts", game="sly", guide="neural", guide_path=str(tmp_path / "missing.npz"))


def test_spec_with_a_guide():
    from sly_scout_env.agents.bots.registry import make_from_spec

    bot = make_from_spec("ismcts:guide=neural:guide_c=0.5:iterations=4", game="scout")
    assert bot.guide == "neural" and bot.guide_c == 0.5
    assert make_from_spec("ismcts:guide=none", game="sly").guide is None
    # Scout's widening is on by default only without a guide (the guide ranks the moves itself)
    assert make_from_spec("ismcts", game="scout").params["top_k"] == 3
    assert make_from_spec("ismcts:guide=neural", game="scout").params["top_k"] is None
    assert make_from_spec("ismcts:guide=neural:top_k=3:engine=python", game="scout").params["top_k"] == 3
    assert make_from_spec("expert:guide_opponents=false", game="scout").guide_options["guide_opponents"] is False


def test_neural_logits_are_what_act_plays():
    for game, players in SHIPPED:
        bot = make("neural")
        bot.reset(0, game=game, num_players=players, seat=0, options={})
        for env in _positions(game, players, 3, seed=2):
            o = env.observe(env.agent_selection)
            legal = np.flatnonzero(o["action_mask"])
            z = bot.logits(o["observation"], o["action_mask"])
            assert bot.act(o["observation"], o["action_mask"], {}) == legal[int(np.argmax(z[legal]))]
