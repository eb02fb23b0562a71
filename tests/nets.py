"""Test helpers for ``neural`` checkpoints: seeded random-weight action scorers (netfile's
``inputs: "action_features"``) and networks over the observation; the comparison of compiled
and numpy moves."""

import json

import numpy as np

from sly_scout_env.games import get_game
from sly_scout_env.netfile import FORMAT_VERSION, NeuralPolicy, table_sizes


def random_scorer(players, hidden=(32, 16), activation="ReLU", seed=0, game="scout", options=None) -> NeuralPolicy:
    """A scorer for ``game`` (its ``features`` module's names) with seeded random weights."""
    options = dict(options or {})
    D, A = table_sizes(game, players, json.dumps(options, sort_keys=True))
    names = list(get_game(game).optional_module("features").FEATURE_NAMES)
    rng = np.random.default_rng(seed)
    sizes = [len(names), *hidden]
    layers = [(rng.normal(size=(o, i)).astype(np.float32), rng.normal(size=o).astype(np.float32) * 0.1)
              for i, o in zip(sizes[:-1], sizes[1:])]
    head = (rng.normal(size=(1, sizes[-1])).astype(np.float32), rng.normal(size=1).astype(np.float32))
    meta = {"format_version": FORMAT_VERSION, "inputs": "action_features", "features": names, "game": game,
            "players": players, "observation_size": D, "num_actions": A, "activation": activation,
            "hidden": list(hidden), "options": options, "trained": {"command": "tests/nets.py"}}
    return NeuralPolicy(layers, head, meta)


def random_mlp(game, players, hidden=(24,), seed=0) -> NeuralPolicy:
    """A network over the observation (``inputs: "observation"``), Tanh, seeded random weights."""
    D, A = table_sizes(game, players, json.dumps({}))
    rng = np.random.default_rng(seed)
    sizes = [D, *hidden, A]
    weights = [(rng.normal(size=(o, i)).astype(np.float32) * 0.3, rng.normal(size=o).astype(np.float32) * 0.1)
               for i, o in zip(sizes[:-1], sizes[1:])]
    meta = {"format_version": FORMAT_VERSION, "inputs": "observation", "game": game, "players": players,
            "observation_size": D, "num_actions": A, "activation": "Tanh", "hidden": list(hidden), "options": {},
            "trained": {}}
    return NeuralPolicy(weights[:-1], weights[-1], meta)


def assert_same_moves(results):
    """``results``: (compiled move, numpy move, numpy logits) per position. Equal moves; the
    float32 sums run in another order than numpy's, so a different move is allowed only at a
    tie to rounding (the two logits within 1e-4), and rarely."""
    near_ties = 0
    for a, b, z in results:
        if a != b:
            assert abs(z[a] - z[b]) < 1e-4, (a, b, z[a], z[b])
            near_ties += 1
    assert near_ties <= len(results) // 200


def hide_shipped(monkeypatch, game: str, players: int) -> None:
    """Make the shipped checkpoint of ``game`` with ``players`` players look absent (every count
    has one now): for the refusals and offers of a table without a network."""
    from sly_scout_env import netfile
    from sly_scout_env.agents.ui.web import words

    real = netfile.shipped
    monkeypatch.setattr(netfile, "shipped", lambda: [p for p in real() if (p.game, p.players) != (game, players)])
    words.neural_counts.cache_clear()
    monkeypatch.setattr(words, "neural_counts", words.neural_counts.__wrapped__)


def random_expert(game, players, hidden=(16,), seed=0, value_bias=None, favourite=None, options=None) -> NeuralPolicy:
    """An observation network with a value network (what ``sly-scout exit`` writes), ReLU,
    seeded random weights. ``value_bias``: zero value weights and this output bias (the value
    is then the logistic of it everywhere); ``favourite``: zero policy weights, logit 20 for
    that action id and 0 for the others."""
    options = dict(options or {})
    D, A = table_sizes(game, players, json.dumps(options, sort_keys=True))
    rng = np.random.default_rng(seed)

    def mlp(outs):
        sizes = [D, *hidden, outs]
        return [(rng.normal(size=(o, i)).astype(np.float32) * 0.3, rng.normal(size=o).astype(np.float32) * 0.1)
                for i, o in zip(sizes[:-1], sizes[1:])]

    policy, value = mlp(A), mlp(1)
    if favourite is not None:
        w, b = policy[-1]
        policy[-1] = (np.zeros_like(w), np.zeros_like(b))
        policy[-1][1][favourite] = 20.0
    if value_bias is not None:
        w, b = value[-1]
        value[-1] = (np.zeros_like(w), np.full_like(b, value_bias))
    meta = {"format_version": FORMAT_VERSION, "inputs": "observation", "game": game, "players": players,
            "observation_size": D, "num_actions": A, "activation": "ReLU", "hidden": list(hidden),
            "options": options, "trained": {"command": "tests/nets.py"}}
    return NeuralPolicy(policy[:-1], policy[-1], meta, value_net=(value[:-1], value[-1]))
