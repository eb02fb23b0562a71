"""Distilling search into a network: ISMCTS's decisions as training targets.

Step 1 of the distillation recipe (``sly-scout distill``, docs/training.md): play games
in which some seats are ``ismcts`` (the teacher, default budget) and the others
``greedy``, and record, at every decision of a teacher seat with more than one legal
move, the seat's observation, its legal action ids and the visit count the search gave
each of them at its root. Step 2 (:mod:`agents.distill_fit`) fits a network to the
visit distributions.

Why visits and not only the move played: the visit distribution says how much better
the search found each move (a near-tie and a clear choice look different), which is
more to learn from per (expensive) search than one label.

Why greedy seats: the learned bot plays against ``greedy`` and ``ismcts``; mixing them
puts positions of both kinds in the data, and greedy's moves cost nothing to make.

Data (one ``.npz`` per worker, appended in chunks so a stopped run keeps its data)::

    obs      float32 (N, observation size)   the teacher seat's observation
    offsets  int64   (N + 1,)                decision i's legal moves are ids[offsets[i]:offsets[i+1]]
    ids      int64   (M,)                    legal action ids
    visits   float32 (M,)                    root visits of each (0: never tried)
"""

from __future__ import annotations

import os
import time

import numpy as np

from sly_scout_env.games import get_game

from .arena import derive_seed
from .registry import make
from .views import player_view


def teacher_seats(players: int, rng: np.random.Generator) -> list[bool]:
    """Which seats the teacher plays in one game: 1 or 2 seats (2 players: one or both)."""
    k = int(rng.integers(1, 3))
    seats = rng.permutation(players)[:k]
    return [s in seats for s in range(players)]


def collect(game: str, players: int, *, seconds: float, seed: int, out: str, options: dict | None = None,
            teacher: str = "ismcts", worker: int = 0, progress=None) -> dict:
    """Play teacher-labelled games for about ``seconds``; write the data to ``out`` (npz).

    Returns counts. ``progress(decisions)`` is called after each game.
    """
    options = dict(options or {})
    env = get_game(game).raw_env(num_players=players, **options)
    rng = np.random.default_rng([seed, worker, 0xD157])
    greedy = [make("greedy", game=game) for _ in range(players)]
    teachers = [make(teacher, game=game) for _ in range(players)]
    obs_rows, offsets, ids, visits = [], [0], [], []
    deadline = time.monotonic() + seconds
    games = 0
    while time.monotonic() < deadline:
        g = derive_seed(seed, worker, games)
        is_teacher = teacher_seats(players, rng)
        bots = [teachers[s] if is_teacher[s] else greedy[s] for s in range(players)]
        env.reset(seed=g)
        for s, bot in enumerate(bots):
            bot.reset(derive_seed(seed, worker, games, s), game=game, num_players=players, seat=s, options=options)
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            ob = env.observe(agent)
            info = {"seat": seat, "game": game, "num_players": players, "view": player_view(env.state_dict(), seat)}
            action = bots[seat].act(ob["observation"], ob["action_mask"], info)
            legal = np.flatnonzero(ob["action_mask"])
            if is_teacher[seat] and legal.size > 1:
                root = bots[seat].search.last_root
                v = np.array([root.children[int(a)].visits if int(a) in root.children else 0 for a in legal],
                             dtype=np.float32)
                obs_rows.append(np.asarray(ob["observation"], np.float32))
                ids.append(legal)
                visits.append(v)
                offsets.append(offsets[-1] + legal.size)
            env.step(int(action))
        games += 1
        if progress is not None:
            progress(len(obs_rows))
        if games % 20 == 0:
            _save(out, obs_rows, offsets, ids, visits)
    _save(out, obs_rows, offsets, ids, visits)
    return {"games": games, "decisions": len(obs_rows)}


def _save(out, obs_rows, offsets, ids, visits) -> None:
    if not obs_rows:
        return
    tmp = out + ".tmp.npz"
    np.savez(tmp, obs=np.stack(obs_rows), offsets=np.array(offsets, np.int64), ids=np.concatenate(ids),
             visits=np.concatenate(visits))
    os.replace(tmp, out)


def load_data(paths) -> dict:
    """The decisions of several collect files, concatenated."""
    obs, offsets, ids, visits = [], [0], [], []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            obs.append(z["obs"])
            off = z["offsets"]
            ids.append(z["ids"])
            visits.append(z["visits"])
            offsets.extend((off[1:] + offsets[-1]).tolist())
    return {"obs": np.concatenate(obs), "offsets": np.array(offsets, np.int64), "ids": np.concatenate(ids),
            "visits": np.concatenate(visits)}


if __name__ == "__main__":  # pragma: no cover - a quick way to run one collector from a shell
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", type=int, default=0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    print(collect("scout", a.players, seconds=a.seconds, seed=a.seed, out=a.out, worker=a.worker), flush=True)
