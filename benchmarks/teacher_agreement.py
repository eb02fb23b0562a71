"""How often the teacher agrees with itself: two searches of the same position, and the student.

    python benchmarks/teacher_agreement.py scout --players 2 --positions 1000
    python benchmarks/teacher_agreement.py scout --players 2 --teacher ismcts --student neural:path=FILE

A distilled student is scored by its held-out agreement with the teacher's most visited
move (``sly-scout distill``'s ``fit.csv``). How high can that go? A search is random: the
same position searched again, from another seed, may prefer another move, and no student
can predict which. This plays games as a distillation run collects them (the teacher in
one or two seats, ``greedy`` elsewhere, :func:`sly_scout_env.agents.training.distill.teacher_seats`)
and, at each teacher decision with a choice, searches the position a second time with a
second teacher bot of another seed, and asks the ``--student`` bot for its move. It prints
the share of positions where

- the second search's most visited move is (one of) the first's most visited: the
  teacher's agreement with itself;
- the student's move is (one of) the first search's most visited: the student's
  agreement, measured as ``fit.csv`` measures it.

With an interval over games (the positions of a game are not independent). Counts, not
timings: the numbers do not depend on the machine's load unless the teacher is bounded
by time (the defaults are not).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sly_scout_env.agents.bots.registry import make_from_spec  # noqa: E402
from sly_scout_env.agents.bots.views import player_view  # noqa: E402
from sly_scout_env.agents.evaluation.arena import derive_seed  # noqa: E402
from sly_scout_env.agents.evaluation.stats import cluster_interval  # noqa: E402
from sly_scout_env.agents.training.distill import root_visits, teacher_seats  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402


def measure(game: str, players: int, positions: int, *, teacher: str = "expert", student: str = "neural",
            seed: int = 0, progress=None) -> dict:
    """Per game: [positions, teacher agrees with itself, student agrees with the teacher]."""
    env = get_game(game).raw_env(num_players=players)
    rng = np.random.default_rng([seed, 0xA9])
    first = [make_from_spec(teacher, game=game) for _ in range(players)]
    second = [make_from_spec(teacher, game=game) for _ in range(players)]
    pupil = [make_from_spec(student, game=game) for _ in range(players)]
    greedy = [make_from_spec("greedy", game=game) for _ in range(players)]
    per_game, done, g = [], 0, 0
    while done < positions:
        is_teacher = teacher_seats(players, rng)
        env.reset(seed=derive_seed(seed, g))
        for s in range(players):
            for k, bots in enumerate((first, second, pupil, greedy)):
                bots[s].reset(derive_seed(seed, g, s, k), game=game, num_players=players, seat=s, options={})
        counts = [0, 0, 0]
        while not env.terminations[env.agent_selection] and done < positions:
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            ob = env.observe(agent)
            info = {"seat": seat, "game": game, "num_players": players, "view": player_view(env.state_dict(), seat)}
            legal = np.flatnonzero(ob["action_mask"])
            if not is_teacher[seat]:
                env.step(int(greedy[seat].act(ob["observation"], ob["action_mask"], info)))
                continue
            action = first[seat].act(ob["observation"], ob["action_mask"], info)
            if legal.size > 1:
                v1 = root_visits(first[seat], legal)
                second[seat].act(ob["observation"], ob["action_mask"], dict(info))
                v2 = root_visits(second[seat], legal)
                best = set(legal[v1 == v1.max()].tolist())
                counts[0] += 1
                counts[1] += int(legal[int(np.argmax(v2))] in best)
                counts[2] += int(pupil[seat].act(ob["observation"], ob["action_mask"], dict(info)) in best)
                done += 1
                if progress is not None:
                    progress(1)
            env.step(int(action))
        if counts[0]:
            per_game.append(counts)
        g += 1
    return {"games": len(per_game), "positions": done, "per_game": np.array(per_game, dtype=np.int64)}


def share(per_game: np.ndarray, column: int) -> tuple[float, float, float]:
    """The pooled share of column ``column`` over the positions, with a 95% interval over games
    (the games are the independent clusters: :func:`~sly_scout_env.agents.evaluation.stats.cluster_interval`)."""
    p, (lo, hi) = cluster_interval(per_game[:, column], per_game[:, 0], bounds=(0.0, 1.0))
    return p, lo, hi


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", help="a registered game (scout, sly)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--positions", type=int, default=1000, help="teacher decisions with a choice (default 1000)")
    p.add_argument("--teacher", default="expert", help="the search bot spec (default expert, as distill --teacher)")
    p.add_argument("--student", default="neural", help="the student bot spec (default neural: the shipped network)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.positions < 1:
        p.error(f"--positions {args.positions} is not allowed; give a number >= 1")
    from tqdm import tqdm

    with tqdm(total=args.positions, desc="positions", unit="pos") as bar:
        res = measure(args.game, args.players, args.positions, teacher=args.teacher, student=args.student,
                      seed=args.seed, progress=bar.update)
    print(f"\n{args.game} {args.players}p, teacher {args.teacher}, student {args.student}: "
          f"{res['positions']} positions of {res['games']} games (seed {args.seed})\n")
    print("| agreement with the first search's most visited move | share [95% over games] |\n|---|---|")
    for name, col in (("a second search of the teacher", 1), ("the student", 2)):
        s, lo, hi = share(res["per_game"], col)
        print(f"| {name} | {s:.3f} [{lo:.3f}, {hi:.3f}] |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
