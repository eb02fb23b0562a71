"""Load test of the web table (``sly-scout serve``) on loopback: concurrent players, a slow bot, memory.

    python benchmarks/web_load.py                          # 8 players, 3 games each
    python benchmarks/web_load.py --players 16 --games 4 --ismcts-iterations 50
    python benchmarks/web_load.py --url http://127.0.0.1:8765   # a server already running

What is measured: the server runs as a real process (``sly-scout serve`` on a free
127.0.0.1 port, a temporary state directory, ``--max-games`` a little above the player
count, so finished games are forgotten as new ones start). ``--players`` clients play at
once over HTTP (httpx, asyncio), each ``--games`` whole games one after the other,
alternately Sly (3 players) and Scout (3 players, ``--scout-rounds`` rounds) against
``greedy`` and a low-budget ``ismcts`` (``--ismcts-iterations``), choosing a random legal
move each turn. A move's latency is one ``POST /moves``: the move, the bots' replies to
the player's next turn, the save. Reported: the moves, p50/p99/max latency, errors (any
answer other than 200/201, or a lost connection: expected 0), games lost (a game that
disappeared or could not be finished: expected 0), the server's resident memory after
the first games and at the end (flat: the games beyond ``--max-games`` are forgotten).

A slow bot does not stall the others: in the middle of the run one more game is played
against bots that think ``--slow`` seconds per answer (three time-limited ``ismcts`` seats
of 4-player Sly); the moves of the other games answered while those bots were thinking are
counted, with their p99 (well under SLOW: moves run in worker threads, one game's search
does not hold up another's).

The numbers of a shared two-core machine are noisy: they are reported, never asserted
here; tests/web/test_load.py runs a small version and asserts only errors == 0,
games lost == 0 and that the others went on while the slow bot thought.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
JSON = {"Content-Type": "application/json"}


@dataclass
class Report:
    players: int
    games: int
    moves: list = field(default_factory=list)  # (start, end) of every POST /moves of the ordinary games
    errors: list = field(default_factory=list)
    lost: list = field(default_factory=list)
    finished: int = 0
    slow_window: tuple | None = None  # (start, end) of the slow bot's answer
    rss_kb: list = field(default_factory=list)  # (games finished, server RSS in kB)

    def latencies(self, within=None) -> list[float]:
        lo, hi = within or (float("-inf"), float("inf"))
        return sorted(e - s for s, e in self.moves if s >= lo and e <= hi)

    def summary(self) -> dict:
        lat = self.latencies()
        out = {"players": self.players, "games": self.finished, "moves": len(lat),
               "p50_ms": _pct(lat, 50) * 1000, "p99_ms": _pct(lat, 99) * 1000, "max_ms": (lat[-1] if lat else 0) * 1000,
               "errors": len(self.errors), "games_lost": len(self.lost)}
        if self.slow_window:
            during = self.latencies(self.slow_window)
            out |= {"slow_s": self.slow_window[1] - self.slow_window[0], "moves_during_slow": len(during),
                    "p99_during_slow_ms": _pct(during, 99) * 1000}
        if self.rss_kb:
            out |= {"rss_first_mb": self.rss_kb[0][1] / 1024, "rss_last_mb": self.rss_kb[-1][1] / 1024}
        return out


def _pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def setups(iterations: int, scout_rounds: int) -> list[dict]:
    bots = ["greedy", f"ismcts:iterations={iterations}"]
    return [{"game": "sly", "players": 3, "bots": bots},
            {"game": "scout", "players": 3, "bots": bots, "options": {"rounds": scout_rounds}}]


async def play_game(client: httpx.AsyncClient, body: dict, rng: random.Random, report: Report, *,
                    record=True, max_moves: int | None = None) -> dict | None:
    """One whole game (or ``max_moves`` of my moves): the last table, or None when it failed."""
    r = await client.post("/api/games", json=body | {"seed": str(rng.randrange(2**63))})
    if r.status_code != 201:
        report.errors.append(f"POST /api/games: {r.status_code} {r.text[:200]}")
        return None
    t = r.json()
    made = 0
    while not t["over"] and (max_moves is None or made < max_moves):
        move = rng.choice(t["legal"])["id"]
        start = time.perf_counter()
        try:
            r = await client.post(f"/api/games/{t['id']}/moves", json={"action": move, "turn": t["moves_played"]})
        except httpx.HTTPError as exc:
            report.errors.append(f"move: {type(exc).__name__}: {exc}")
            report.lost.append(t["id"])
            return None
        end = time.perf_counter()
        if r.status_code != 200:
            report.errors.append(f"move: {r.status_code} {r.text[:200]}")
            if r.status_code == 404:
                report.lost.append(t["id"])
            return None
        if record:
            report.moves.append((start, end))
        t = r.json()["table"]
        made += 1
    return t


async def player(client, k: int, games: int, iterations: int, scout_rounds: int, report: Report, rss) -> None:
    rng = random.Random(1000 + k)
    kinds = setups(iterations, scout_rounds)
    for g in range(games):
        t = await play_game(client, kinds[(k + g) % len(kinds)], rng, report)
        if t is not None:
            report.finished += 1
            rss(report)


async def slow_probe(client, slow: float, delay: float, report: Report, tries: int = 8) -> None:
    """After ``delay`` s, moves in a game against slow bots until one answer takes their whole
    time (``slow`` s: three ``ismcts`` seats of 4-player Sly, ``slow / 3`` s each, as the web
    caps iterations at 5000 and a search that finishes them sooner is not the slow one):
    the window of the longest answer."""
    await asyncio.sleep(delay)
    bot = f"ismcts:iterations=5000:time_limit={slow / 3:.3f}"
    body = {"game": "sly", "players": 4, "bots": [bot] * 3}
    rng = random.Random(5)
    r = await client.post("/api/games", json=body | {"seed": "5"})
    if r.status_code != 201:
        report.errors.append(f"POST /api/games (slow bot): {r.status_code} {r.text[:200]}")
        return
    t = r.json()
    for _ in range(tries):
        if t["over"]:
            break
        start = time.perf_counter()
        r = await client.post(f"/api/games/{t['id']}/moves", json={"action": rng.choice(t["legal"])["id"]})
        end = time.perf_counter()
        if r.status_code != 200:
            report.errors.append(f"move (slow bot): {r.status_code} {r.text[:200]}")
            return
        t = r.json()["table"]
        if report.slow_window is None or end - start > report.slow_window[1] - report.slow_window[0]:
            report.slow_window = (start, end)
        if end - start >= 0.9 * slow:
            break


async def run_load(url: str, *, players: int = 8, games: int = 3, iterations: int = 30, scout_rounds: int = 1,
                   slow: float = 2.0, slow_delay: float = 1.0, server_pid: int | None = None) -> Report:
    """Play the load against the server at ``url``; the report."""
    report = Report(players, games)

    def rss(rep: Report) -> None:
        if server_pid is not None:
            rep.rss_kb.append((rep.finished, rss_kb(server_pid)))

    limits = httpx.Limits(max_connections=players + 4)
    async with httpx.AsyncClient(base_url=url, timeout=120, headers=JSON, limits=limits) as client:
        tasks = [player(client, k, games, iterations, scout_rounds, report, rss) for k in range(players)]
        if slow:
            tasks.append(slow_probe(client, slow, slow_delay, report))
        await asyncio.gather(*tasks)
    return report


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``sly-scout serve`` as a process on a free loopback port, in a temporary state directory."""

    def __init__(self, max_games: int, state_dir: str | None = None):
        self.tmp = None if state_dir else tempfile.TemporaryDirectory(prefix="sly-scout-load-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sly_scout_env.agents", "serve", "--port", str(self.port),
             "--state-dir", state_dir or self.tmp.name, "--max-games", str(max_games)],
            stderr=subprocess.DEVNULL, env=env, cwd=str(ROOT))
        deadline = time.monotonic() + 90
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("sly-scout serve stopped at start")
            try:
                if httpx.get(self.url + "/api/setup", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("sly-scout serve did not answer")
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        if self.tmp:
            self.tmp.cleanup()


def table(s: dict, iterations: int, max_games: int) -> str:
    lines = [
        "| players | games | moves | p50 | p99 | max | errors | games lost | server memory |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {s['players']} | {s['games']} | {s['moves']} | {s['p50_ms']:.0f} ms | {s['p99_ms']:.0f} ms | "
        f"{s['max_ms']:.0f} ms | {s['errors']} | {s['games_lost']} | "
        + (f"{s['rss_first_mb']:.0f} MB after the first game, {s['rss_last_mb']:.0f} MB at the end "
           f"(--max-games {max_games}) |" if "rss_first_mb" in s else "n/a |"),
    ]
    if "slow_s" in s:
        lines.append("")
        lines.append(f"While one game's time-limited `ismcts` bots thought for {s['slow_s']:.1f} s, "
                     f"{s['moves_during_slow']} moves of the other games were answered "
                     f"(p99 {s['p99_during_slow_ms']:.0f} ms).")
    lines.append("")
    lines.append(f"Bots: greedy and ismcts:iterations={iterations}; a move's latency is one POST /moves "
                 "(the move, the bots' replies, the save).")
    return "\n".join(lines)


def _package_on_path() -> None:
    """The package of this checkout importable (the timing runs the bots in this process)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def hard_timing(spec: str | None = None, moves: int = 40, seed: int = 2, tables=None) -> list[tuple]:
    """Seconds per move of the Hard opponent (every seat played by it; ``spec``: the web
    table's Hard bot of each table, ``words.level_spec``), by game and players (``tables``:
    only these (game, players) pairs): [(game, players, spec, median, slowest)] (the
    numbers of ``words.HARD_SECONDS``)."""
    _package_on_path()
    from sly_scout_env.agents.bots.registry import make_from_spec
    from sly_scout_env.agents.ui.web.words import LEVELS, level_spec
    from sly_scout_env.games import all_games
    from sly_scout_env.views import player_view

    out = []
    for g in all_games():
        for n in g.player_counts:
            if tables is not None and (g.name, n) not in tables:
                continue
            table_spec = spec or level_spec("Hard", dict(LEVELS)["Hard"], g.name, n)
            env = g.raw_env(num_players=n)
            env.reset(seed=seed)
            bots = [make_from_spec(table_spec, game=g.name) for _ in range(n)]
            for s, b in enumerate(bots):
                b.reset(s, game=g.name, num_players=n, seat=s, options=g.default_options())
            times = []
            while not all(env.terminations.values()) and len(times) < moves:
                s = env.agent_name_mapping[env.agent_selection]
                o = env.observe(env.agent_selection)
                info = {"seat": s, "game": g.name, "num_players": n, "view": player_view(env.state_dict(), s)}
                t0 = time.perf_counter()
                a = bots[s].act(o["observation"], o["action_mask"], info)
                times.append(time.perf_counter() - t0)
                env.step(int(a))
            times = sorted(times[1:])  # the first move compiles
            out.append((g.name, n, table_spec, statistics.median(times), times[-1]))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=8, help="clients playing at once (default 8)")
    p.add_argument("--games", type=int, default=3, help="whole games per client (default 3)")
    p.add_argument("--ismcts-iterations", type=int, default=30, help="the ismcts opponent's budget (default 30)")
    p.add_argument("--scout-rounds", type=int, default=1, help="rounds of each Scout match (default 1)")
    p.add_argument("--slow", type=float, default=2.0, help="seconds per move of the slow bot (0: none; default 2)")
    p.add_argument("--max-games", type=int, default=None, help="the server's --max-games (default players + 4)")
    p.add_argument("--url", default=None, help="a server already running (no memory figures then)")
    p.add_argument("--hard-timing", action="store_true",
                   help="only time the web table's Hard opponent's moves by game and players")
    p.add_argument("--hard-spec", default=None,
                   help="with --hard-timing: time this bot spec at every table instead of each table's Hard bot")
    p.add_argument("--hard-table", action="append", default=None, metavar="GAME:PLAYERS",
                   help="with --hard-timing: only this table (repeatable; default every game and count)")
    args = p.parse_args(argv)
    if args.hard_timing:
        tables = None
        if args.hard_table:
            _package_on_path()
            from sly_scout_env.games import all_games

            known = {(g.name, n) for g in all_games() for n in g.player_counts}
            tables = set()
            for t in args.hard_table:
                game, _, n = t.partition(":")
                if not n.isdigit() or (game, int(n)) not in known:
                    p.error(f"--hard-table {t!r} is not a table; give GAME:PLAYERS, one of "
                            + ", ".join(f"{g}:{k}" for g, k in sorted(known)))
                tables.add((game, int(n)))
        print("| game | players | bot | median s per move | slowest |\n|---|---|---|---|---|")
        for g, n, spec, med, top in hard_timing(args.hard_spec, tables=tables):
            print(f"| {g} | {n} | `{spec}` | {med:.2f} | {top:.2f} |")
        return 0
    max_games = args.max_games or args.players + 4
    server = None if args.url else Server(max_games)
    try:
        url = args.url or server.url
        report = asyncio.run(run_load(url, players=args.players, games=args.games, iterations=args.ismcts_iterations,
                                      scout_rounds=args.scout_rounds, slow=args.slow,
                                      server_pid=None if server is None else server.proc.pid))
    finally:
        if server:
            server.stop()
    s = report.summary()
    print(table(s, args.ismcts_iterations, max_games))
    for e in report.errors[:10]:
        print("error:", e, file=sys.stderr)
    return 0 if not report.errors and not report.lost else 1


if __name__ == "__main__":
    sys.exit(main())
