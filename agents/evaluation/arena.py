"""Tournaments between bots: seat rotation, duplicate deals, parallel games.

    from sly_scout_env.agents.evaluation.arena import run_arena
    result = run_arena("scout", 5, ["ismcts", "greedy", "greedy", "greedy", "greedy"], games=300)
    print(result.table())

The statistics, tables, JSON and CSV of a result live in :mod:`sly_scout_env.agents.evaluation.report`;
why the intervals are computed over deals is explained in ``docs/arena.md``.

Design
------
Entries. ``agents`` is a list of bot specs (registry names, optionally with
parameters ``name:key=value``). Identical specs are **one entry** holding several
seats: ``["ismcts", "greedy", "greedy", "greedy", "greedy"]`` is two entries, ismcts
with one seat per game and greedy with four. To tell copies apart (to see each
copy's own numbers), give them labels:
``"g1@greedy"``, ``"g2@greedy"`` or, the same, ``"greedy:name=g1"``. A label names
the entry in every output; specs with the same label are the same entry (the label
must not name two different specs).

Seatings. Every game is played under a *seating*: a tuple giving the entry at each
seat. A *block* is the list of seatings of one deal; in it each entry holds each
seat equally often, so no entry gains from its seat. The listed specs are *slots*
(``A`` of them); a seating takes ``players`` slots and maps each to its entry:

* when ``A >= players``: every **distinct** seating that uses each entry at most as
  many times as it is listed (one entry against four copies of another at 5 players:
  5 seatings, the lone bot at each seat once; five different bots: all 120
  permutations), when there are at most ``max_permutations`` of them;
* when ``A < players``: the seats are filled cyclically from the slots (slot
  ``(j + k) % A`` at seat ``k``, for each start ``j``, so which entries get an
  extra seat rotates), and every distinct permutation of each such multiset of
  entries is used, when there are at most ``max_permutations`` of them;
* else the balanced rotation: for each start ``j`` the seating with slot
  ``(j + k) % A`` at seat ``k`` (repeats dropped when that keeps the balance).

``max_permutations`` is ``min(MAX_PERMUTATIONS, games // MIN_DEALS)``: the full
permutations only when the games fill at least ``MIN_DEALS`` (10) deals of them, so
that a short run is neither blown up to 120 games nor left with too few deals for
an interval over deals (the rotation balances the seats too).

Duplicate deals. Deal ``d`` is the game seed ``derive_seed(seed, d)``; it is replayed
under every seating of the block. The envs draw every deal from the game seed only
(never from the moves), so the same seed means the same cards whoever sits where:
luck of the deal cancels out between entries. ``games`` is rounded up to whole
blocks: ``deals = ceil(games / len(block))``; the result states the deals and games
played.

Parallelism. Deals are spread over ``workers`` processes by :func:`play_deals`
(``spawn`` start method, so it works the same on every platform); every game's
seeds depend only on ``(seed, deal, seating, seat)``, and results are gathered in
(deal, seating) order, so the result is identical whatever the worker count. Bots
travel to the workers as their registered factories (a lazy ``"module:callable"``
string or a module-level callable), so bots registered at run time work too; a
script that calls ``run_arena(..., workers>1)`` needs the usual
``if __name__ == "__main__":`` guard of the ``spawn`` start method.

Statistics (see :mod:`sly_scout_env.agents.evaluation.report`): per entry, pooled over all the seats
it held, the mean score per seat and the win share per seat (a k-way tie for the
top score gives each 1/k, so parity is 1/players whatever the number of seats),
each with a 95% t-interval over deals; head-to-head shares with the same
intervals; openskill Plackett-Luce ratings. Games cut by the step guard
(``max_steps``) are *truncated*: reported, and left out of every statistic.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import re
import sys
import uuid
from collections import Counter
from dataclasses import dataclass

import numpy as np

from sly_scout_env.agents.bots.registry import format_spec, parse_spec, registration
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.agents.evaluation.report import AgentStats, ArenaResult, summarise  # noqa: F401  (re-exported)
from sly_scout_env.checks import check_int
from sly_scout_env.games import get_game

MAX_PERMUTATIONS = 120  # largest block of full seating permutations (5 entries at 5 seats)
# Full permutations only when the games fill this many deals of them: intervals are over
# deals, and 2 deals of 36 seatings give 1 degree of freedom where 24 deals of the
# 3-seating rotation give 23 (both blocks balance the seats).
MIN_DEALS = 10
# Step guard per game. Endless games are legal (Scout 3-5p scout loops, Sly's Fox-only
# Reveals), and search bots can fall into them: one Sly 2p arena game reached 49,348
# moves. Measured (600 games each): the longest random Scout 5p game took 1,088 moves,
# greedy 226; no Sly game over 60. 10,000 is ten times the longest, and costs a search bot
# at 20 ms a move about 3 minutes where 100,000 cost over half an hour.
DEFAULT_MAX_STEPS = 10_000
LABEL_RE = re.compile(r"[A-Za-z0-9_.#+-]+")  # what a label may contain (no ',', ':', '=', '@', spaces)


def derive_seed(*keys: int) -> int:
    """A non-negative 63-bit seed from integer keys (same keys -> same seed)."""
    word = np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)[0]
    return int(word >> np.uint64(1))


# -- seatings ---------------------------------------------------------------------------
def _multiset_permutations(items: tuple) -> list[tuple]:
    return sorted(set(itertools.permutations(items)))


def _distinct_seatings(counts: dict, players: int, limit: int) -> list[tuple] | None:
    """Every sequence of ``players`` entries using entry ``e`` at most ``counts[e]`` times,
    in lexicographic order; None as soon as there are more than ``limit``."""
    out: list[tuple] = []
    left = dict(counts)
    prefix: list = []

    def extend() -> bool:
        if len(prefix) == players:
            out.append(tuple(prefix))
            return len(out) <= limit
        for e in sorted(left):
            if left[e]:
                left[e] -= 1
                prefix.append(e)
                ok = extend()
                prefix.pop()
                left[e] += 1
                if not ok:
                    return False
        return True

    return out if extend() else None


def _balanced(block: list[tuple], players: int) -> bool:
    """Each entry holds each seat equally often in ``block``."""
    per_seat = [Counter(s[k] for s in block) for k in range(players)]
    return all(per_seat[k] == per_seat[0] for k in range(players))


def seating_block(entries, players: int, max_permutations: int = MAX_PERMUTATIONS) -> list[tuple]:
    """The seatings of one deal (see the module docstring).

    ``entries`` is the entry index of each listed spec (``[0, 1, 1, 1, 1]``: one
    bot against four copies of another), or an int ``A`` for ``A`` distinct entries.
    Each entry holds each seat equally often.
    """
    slots = list(range(entries)) if isinstance(entries, (int, np.integer)) else [int(e) for e in entries]
    if not slots:
        raise ValueError("need at least one bot")
    a = len(slots)
    rotation = [tuple(slots[(j + k) % a] for k in range(players)) for j in range(a)]
    if a >= players:
        full = _distinct_seatings(Counter(slots), players, max_permutations)
    else:
        multisets = sorted({tuple(sorted(r)) for r in rotation})
        full = [p for m in multisets for p in _multiset_permutations(m)]
    if full is not None and len(full) <= max_permutations:
        return full
    distinct = list(dict.fromkeys(rotation))
    return distinct if _balanced(distinct, players) else rotation


# -- entries ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One bot of an arena: its label, its spec, how to build it, and how often it was listed."""

    label: str
    spec: str  # canonical spec, without the label
    factory: object  # registered factory: "module:callable" string or module-level callable
    kwargs: dict  # the spec's parameters
    listed: int  # how many times it appears in ``agents`` (its seats per game when A == players)
    build_kwargs: dict  # what the factory is called with (the parameters, and game= for a bot that takes it)


def _split_label(spec: str) -> tuple[str | None, str]:
    """``"g1@greedy:x=1"`` -> ``("g1", "greedy:x=1")``; a spec without a label -> ``(None, spec)``.

    Only an ``@`` before the first ``:`` starts a label, so parameter values (paths) may contain ``@``.
    """
    spec = spec.strip()
    head = spec.split(":", 1)[0]
    if "@" not in head:
        return None, spec
    label, _, rest = spec.partition("@")
    return label.strip(), rest.strip()


def _check_label(label, spec: str) -> str:
    if not isinstance(label, str) or not LABEL_RE.fullmatch(label):
        raise ValueError(
            f"bot spec {spec!r}: label {label!r} is not allowed; give letters, digits or _.#+- "
            "(e.g. g1@greedy or greedy:name=g1)"
        )
    return label


def resolve_entries(agents, game: str) -> tuple[list[Entry], list[int]]:
    """The entries of ``agents`` (identical specs merged, labels applied) and the entry of each slot."""
    if isinstance(agents, str):
        agents = [a for a in agents.split(",") if a.strip()]
    if not agents:
        raise ValueError("agents is empty; give at least one registered bot name, e.g. ['random']")
    order: dict[str, dict] = {}
    slots = []
    for text in agents:
        if not isinstance(text, str):
            raise ValueError(f"bot spec {text!r} is not a string; give a registered name, e.g. 'random'")
        label, body = _split_label(text)
        name, kwargs = parse_spec(body)
        if "name" in kwargs:
            if label is not None and str(kwargs["name"]) != label:
                raise ValueError(f"bot spec {text!r} gives two labels ({label!r} and name={kwargs['name']!r}); "
                                 "give one")
            label = str(kwargs.pop("name"))
        reg = registration(name)
        if game not in reg.games:
            raise ValueError(f"bot {name!r} does not play {game}; it plays {', '.join(reg.games)}")
        spec = format_spec(name, kwargs)
        label = spec if label is None else _check_label(label, text)
        known = order.get(label)
        if known is None:
            order[label] = {"spec": spec, "factory": reg.factory_for(game), "kwargs": kwargs,
                            "build_kwargs": reg.build_kwargs(game, kwargs), "listed": 1, "index": len(order)}
        elif known["spec"] != spec:
            raise ValueError(
                f"label {label!r} names two different bots ({known['spec']!r} and {spec!r}); "
                "give each its own label (e.g. a@greedy,b@random)"
            )
        else:
            known["listed"] += 1
        slots.append(order[label]["index"])
    entries = [Entry(lb, d["spec"], d["factory"], d["kwargs"], d["listed"], d["build_kwargs"])
               for lb, d in order.items()]
    return entries, slots


# -- one game -----------------------------------------------------------------------------
@dataclass
class GameRecord:
    deal: int
    seating_index: int
    seating: tuple  # entry index at each seat
    scores: list  # game totals per seat
    steps: int
    truncated: bool
    deal_digest: str = ""  # hash of the initial state dict: equal across the seatings of a deal


def play_game(env, bots: list, game: str, game_seed: int, bot_seeds: list, options: dict, max_steps: int):
    """Play one game on a raw env; returns (scores per seat, steps, truncated, digest of the deal)."""
    env.reset(seed=game_seed)
    digest = hashlib.sha1(json.dumps(env.state_dict(), sort_keys=True).encode()).hexdigest()
    n = len(bots)
    for seat, bot in enumerate(bots):
        bot.reset(bot_seeds[seat], game=game, num_players=n, seat=seat, options=dict(options))
    steps = 0
    truncated = False
    while not env.terminations[env.agent_selection]:
        if steps >= max_steps:
            truncated = True
            break
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        bot = bots[seat]
        obs = env.observe(agent)
        info = {"seat": seat, "game": game, "num_players": n}
        if getattr(bot, "needs_view", True):
            info["view"] = player_view(env.state_dict(), seat)
        action = bot.act(obs["observation"], obs["action_mask"], info)
        try:
            env.step(int(action))
        except ValueError as exc:
            raise ValueError(f"bot {bot.name!r} at seat {seat} chose an illegal move: {exc}") from None
        steps += 1
    scores = [int(s) for s in env.state_dict()["scores"]]
    return scores, steps, truncated, digest


# -- worker side ----------------------------------------------------------------------------
_ENV_CACHE: dict = {}
_BOT_CACHE: dict = {}


def _build_bot(factory, kwargs: dict, label: str):
    if isinstance(factory, str):
        from sly_scout_env.agents.bots.registry import resolve

        factory = resolve(factory)
    bot = factory(**kwargs)
    try:
        bot.name = label
    except AttributeError:
        pass
    return bot


def _run_deal(task: dict) -> list[GameRecord]:
    """Play one deal under the given seatings (runs in a worker process or in-process)."""
    game, players, options = task["game"], task["players"], task["options"]
    key = (game, players, tuple(sorted(options.items())))
    env = _ENV_CACHE.get(key)
    if env is None:
        env = get_game(game).raw_env(num_players=players, **options)
        _ENV_CACHE[key] = env
    seed, deal = task["seed"], task["deal"]
    game_seed = derive_seed(seed, deal)
    if _BOT_CACHE and next(iter(_BOT_CACHE))[0] != task["run_id"]:
        _BOT_CACHE.clear()  # bots of an earlier run in this process
    records = []
    for k, seating in task["seatings"]:
        bots = []
        for seat, e in enumerate(seating):
            bkey = (task["run_id"], e, seat)
            bot = _BOT_CACHE.get(bkey)
            if bot is None:
                factory, kwargs, label = task["entries"][e]
                bot = _build_bot(factory, kwargs, label)
                _BOT_CACHE[bkey] = bot
            bots.append(bot)
        bot_seeds = [derive_seed(seed, deal, k, seat, 1) for seat in range(players)]
        scores, steps, truncated, digest = play_game(env, bots, game, game_seed, bot_seeds, options, task["max_steps"])
        records.append(GameRecord(deal, k, tuple(seating), scores, steps, truncated, digest))
    return records


# -- dispatch -------------------------------------------------------------------------------
def play_deals(tasks: list[dict], workers: int, on_done=None, ray=None) -> list[GameRecord]:
    """Play every deal of ``tasks`` (see :func:`_run_deal`), in-process, on ``workers``
    processes, or as Ray tasks when ``ray`` is given (True, ``"auto"`` or ``"HOST:PORT"``).

    ``on_done(records)`` is called as each deal finishes (progress). The order of the
    returned records does not matter: :func:`run_arena` sorts them.
    """
    if ray not in (None, False):
        from sly_scout_env.ray_tasks import map_tasks

        out = []
        for recs in map_tasks(_run_deal, tasks, address=ray, per_task=max(1, len(tasks) // 64),
                              on_result=lambda i, recs: on_done is not None and on_done(recs)):
            out += recs
        return out
    if workers == 1 or len(tasks) == 1:
        out = []
        for t in tasks:
            recs = _run_deal(t)
            out += recs
            if on_done is not None:
                on_done(recs)
        return out
    try:
        import pickle

        pickle.dumps(tasks[0]["entries"])
    except Exception as exc:
        raise ValueError(
            "a bot factory cannot be sent to worker processes; register it with a "
            f"'module:callable' string or a module-level callable, or use workers=1 ({exc})"
        ) from None
    ctx = multiprocessing.get_context("spawn")
    chunk = max(1, len(tasks) // (workers * 8))
    out = []
    with ctx.Pool(min(workers, len(tasks))) as pool:
        for recs in pool.imap_unordered(_run_deal, tasks, chunksize=chunk):
            out += recs
            if on_done is not None:
                on_done(recs)
    return out


def run_arena(
    game: str,
    players: int,
    agents: list[str],
    games: int,
    seed: int = 0,
    workers: int = 2,
    options: dict | None = None,
    progress: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
    ray=None,
) -> ArenaResult:
    """Play ``games`` games (rounded up to whole blocks of seatings, one block per deal) and summarise them.

    ``agents``: bot specs; identical specs are one entry holding several seats, a
    label (``"g1@greedy"`` or ``"greedy:name=g1"``) keeps copies apart.

    ``ray`` (True, ``"auto"`` or ``"HOST:PORT"``): deals run as Ray tasks instead of
    ``workers`` processes, with the same result (docs/ray.md).
    """
    spec = get_game(game)
    options = dict(options or {})
    for name, value in (("games", games), ("workers", workers), ("max_steps", max_steps)):
        check_int(name, value)
    check_int("seed", seed, lo=0)
    spec.raw_env(num_players=players, **options)  # validates players and options up front
    entries, slots = resolve_entries(agents, game)
    # Full permutations only when the games fill MIN_DEALS deals of them; else the
    # (smaller) balanced rotation: more deals, hence a usable interval over deals.
    block = seating_block(slots, players, max_permutations=min(MAX_PERMUTATIONS, int(games) // MIN_DEALS))
    deals = -(-int(games) // len(block))
    run_id = uuid.uuid4().hex  # keys the per-process bot cache (never affects results)
    base = {"game": game, "players": players, "options": options, "seed": int(seed), "max_steps": int(max_steps),
            "entries": [(e.factory, e.build_kwargs, e.label) for e in entries], "run_id": run_id}
    tasks = [dict(base, deal=d, seatings=list(enumerate(block))) for d in range(deals)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals * len(block), unit="game", file=sys.stderr, dynamic_ncols=True, leave=False,
                   desc=f"arena {game}")
    try:
        records = play_deals(tasks, int(workers), None if bar is None else (lambda recs: bar.update(len(recs))),
                             ray=ray)
    finally:
        if bar is not None:
            bar.close()
    records.sort(key=lambda r: (r.deal, r.seating_index))
    result = ArenaResult(game, players, [e.label for e in entries], options, int(seed), int(games), block, records,
                         specs=[e.spec for e in entries])
    summarise(result)
    return result
