"""Fingerprints of what the suite computes: simulations, arena records, replays, vector batches.

    python benchmarks/hashes.py                 # print the fingerprints as JSON
    python benchmarks/hashes.py --check FILE    # compare with a saved run; exit 1 on a difference
    python benchmarks/hashes.py --out FILE      # save them

A refactor or a speed-up must leave every number here unchanged: the same seed gives the
same deals, moves, scores and observations. ``benchmarks/hashes.json`` holds the run made
before the app layer was reorganised (every fingerprint was equal after it); its two
``arena/*`` entries were recorded again when ``ismcts`` became the compiled search, whose
random stream differs from the Python search's (the other 42 stayed equal).
``tests/test_hashes.py`` recomputes the fast part (``hashes_quick.json``: no arena) in the
test suite and compares.

Each fingerprint is the SHA-256 (first 16 hex digits) of the bytes of the arrays or the
canonical JSON of the records it covers:

``simulate/<game>/<players>/<policies>``
    :func:`sly_scout_env.simulation.simulate` (scores, winners, steps, end reasons) on a
    few hundred units, two threads.
``replay/<game>/<players>``
    A PettingZoo game played with seeded random legal moves: every move id and the final
    ``state_dict()`` (as sorted JSON).
``vector/<game>/<players>/<batch>``
    :class:`sly_scout_env.vector.CardGameVectorEnv` stepped with seeded random legal moves:
    every observation, mask and reward.
``arena/<game>/<players>``
    :func:`run_arena` records (deal, seating, scores, steps, move digest) of random, greedy
    and a small ismcts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def simulate_hashes(units: int = 300) -> dict:
    from sly_scout_env.games import all_games
    from sly_scout_env.simulation import simulate

    out = {}
    for spec in all_games():
        for players in spec.player_counts:
            for pols in ("random", "greedy"):
                r = simulate(spec.name, units, players=players, policies=",".join([pols] * players), seed=7,
                             threads=2)
                out[f"simulate/{spec.name}/{players}/{pols}"] = _digest(
                    *(np.asarray(r[k]) for k in ("scores", "winners", "steps", "end_reason")))
    return out


def replay_hashes(games: int = 20) -> dict:
    from sly_scout_env.games import all_games

    out = {}
    for spec in all_games():
        for players in spec.player_counts:
            env = spec.raw_env(num_players=players)
            rng = np.random.default_rng(11)
            moves, finals = [], []
            for g in range(games):
                env.reset(seed=1000 + g)
                while env.agents:
                    agent = env.agent_selection
                    if env.terminations[agent] or env.truncations[agent]:
                        env.step(None)
                        continue
                    legal = np.flatnonzero(env.observe(agent)["action_mask"])
                    a = int(rng.choice(legal))
                    moves.append(a)
                    env.step(a)
                finals.append(env.unwrapped.state_dict())
            out[f"replay/{spec.name}/{players}"] = _digest(moves, finals)
    return out


def vector_hashes(steps: int = 60, batches=(1, 7, 64)) -> dict:
    from sly_scout_env.games import all_games
    from sly_scout_env.vector import CardGameVectorEnv

    out = {}
    for spec in all_games():
        for players in spec.player_counts:
            for n in batches:
                envs = CardGameVectorEnv(spec.name, n, num_players=players)
                obs, _ = envs.reset(seed=5)
                rng = np.random.default_rng(3)
                parts = [obs["observation"].copy(), obs["action_mask"].copy()]
                for _ in range(steps):
                    mask = obs["action_mask"]
                    acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)
                    obs, rew, term, trunc, _ = envs.step(acts)
                    parts += [obs["observation"].copy(), obs["action_mask"].copy(), np.asarray(rew).copy(),
                              np.asarray(term).copy()]
                # Game i of a batch is the same game whatever the batch size: hash per row so that
                # the rows of batch 7 are comparable with those of batch 64 by eye too.
                out[f"vector/{spec.name}/{players}/{n}"] = _digest(*parts)
    return out


def arena_hashes(games: int = 12) -> dict:
    from sly_scout_env.agents.evaluation.arena import run_arena
    from sly_scout_env.games import all_games

    out = {}
    for spec in all_games():
        players = spec.player_counts[0]
        res = run_arena(spec.name, players, ["random", "greedy", "ismcts:iterations=20"], games=games, seed=3,
                        workers=1, progress=False)
        recs = [[r.deal, r.seating_index, list(r.seating), list(map(float, r.scores)), int(r.steps),
                 bool(r.truncated), r.deal_digest] for r in res.records]
        out[f"arena/{spec.name}/{players}"] = _digest(recs)
    return out


def all_hashes(quick: bool = False) -> dict:
    out = {}
    out.update(simulate_hashes(100 if quick else 300))
    out.update(replay_hashes(5 if quick else 20))
    out.update(vector_hashes(20 if quick else 60))
    if not quick:
        out.update(arena_hashes())
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="the smaller set the test suite recomputes")
    p.add_argument("--out", default=None, help="save the fingerprints (JSON) to this file")
    p.add_argument("--check", default=None, help="compare with a saved JSON file; exit 1 on any difference")
    args = p.parse_args(argv)
    hashes = all_hashes(args.quick)
    text = json.dumps(hashes, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.check:
        with open(args.check) as f:
            saved = json.load(f)
        diff = {k: (saved.get(k), v) for k, v in hashes.items() if saved.get(k) != v}
        for k, (old, new) in sorted(diff.items()):
            print(f"DIFFERENT {k}: saved {old}, now {new}")
        print(f"{len(hashes) - len(diff)} of {len(hashes)} fingerprints equal")
        return 1 if diff else 0
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
