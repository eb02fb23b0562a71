"""Fuzzing state dicts, for every game's codec tests: random edits of real positions' dicts.

``mutate(d, rng, pool)`` edits a deep copy of ``d`` once or twice (a node replaced by a value
of ``pool``, a key deleted or added); ``fuzz(make_env, bases, rng, pool, count, same)`` loads
``count`` such dicts into one env and checks that each is either refused with a
``ValueError``/``TypeError`` naming the state dict, the env's state unchanged, or loaded,
reads back (``same(given, read)``) and round-trips through a fresh env. Returns how many loaded.
"""

from __future__ import annotations

import copy

import numpy as np


def set_at(path, value):
    """An edit that puts ``value`` at ``path`` (keys and indices) of a nested dict."""
    def edit(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def nodes(x, path=()):
    """Every node of a nested dict/list with its path, the root first."""
    yield path, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from nodes(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from nodes(v, path + (i,))


def mutate(d, rng, pool):
    """A deep copy of ``d`` with one or two random edits: a node replaced by a value of
    ``pool``, a key deleted or a key added."""
    d = copy.deepcopy(d)
    for _ in range(int(rng.integers(1, 3))):
        found = list(nodes(d))
        op = rng.random()
        if op < 0.75:
            path, _ = found[int(rng.integers(1, len(found)))]
            set_at(path, copy.deepcopy(pool[int(rng.integers(len(pool)))]))(d)
        else:
            dicts = [x for _, x in found if isinstance(x, dict) and x]
            x = dicts[int(rng.integers(len(dicts)))]
            if op < 0.9:
                del x[list(x)[int(rng.integers(len(x)))]]
            else:
                x["extra" if rng.random() < 0.5 else 0] = 1
    return d


def fuzz(make_env, bases, rng, pool, count=300, same=None) -> int:
    """Load ``count`` mutated dicts of ``bases`` into one env made by ``make_env()`` (see the module docstring)."""
    same = same or (lambda given, read: {k: read[k] for k in given} == given)
    env = make_env()
    env.reset(seed=0)
    loaded = 0
    for i in range(count):
        m = mutate(bases[i % len(bases)], rng, pool)
        before = env.state_dict()
        try:
            env.from_state_dict(m)
        except (ValueError, TypeError) as e:
            assert "state dict" in str(e), (m, e)
            assert env.state_dict() == before, m
            continue
        loaded += 1
        out = env.state_dict()
        again = make_env()
        again.from_state_dict(copy.deepcopy(out))
        assert again.state_dict() == out
        assert np.array_equal(again._state, env._state)
        assert same(m, out), m  # what was given reads back
    return loaded
