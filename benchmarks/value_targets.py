"""Can a value network stand in for the search's rollouts? Value networks fitted on cheap self-play.

    python benchmarks/value_targets.py scout --players 2 --games 16000 --epochs 6 --write runs/value/scout_2p.npz
    python benchmarks/value_targets.py scout --players 4 --games 1200 --inputs own,all --epochs 4

The compiled search scores a new leaf with a rollout of its compiled rollout policy (the
``ismcts`` bot's ``rollout``, ``greedy`` by default) played to the end of its horizon, or,
with a value network inside (``expert``, ``guide_value``), with that network's estimate for
every seat from the seat's own observation. A rollout costs most of an iteration at 3 to 5
Scout players ([benchmarks](../docs/benchmarks.md#search-speed)), so a value network as good
as a rollout would buy several times the iterations. Self-play of the compiled policies is
nearly free, so data is not what limits such a network; this measures what does.

1. **Positions**: ``--games`` games (and ``--val-games`` held-out games of other seeds) in
   which every seat plays the compiled ``--policy`` (default: the search's rollout policy).
   At every position the run records every seat's observation (as the env gives it) and,
   once the search's horizon ends (Scout: the round), every seat's reward there in the
   search's own measure (``value`` and ``score_scale`` of the game's ``ismcts`` defaults;
   :func:`sly_scout_env.ismcts.reward` of the adapter's ``returns``), which is what a
   rollout from that position would score.
2. **Fits** (torch, one thread), per ``--inputs``: ``own``, the seat's observation (what the
   search's value cut-off reads); ``all``, every seat's observation, rotated to start at the
   seat's (the whole position, hidden cards included: the determinization the search holds
   at a leaf). An MLP of ``--hidden`` layers to one logit, the logistic loss to the reward,
   Adam with a cosine schedule, minibatches of 512 positions.

It prints one line per epoch and a table: positions, train and held-out loss, the held-out
loss of a constant (the mean reward) and the targets' own entropy (the floor), and the
held-out mean absolute error of the estimate. ``--write FILE`` saves the network the table's
``expert`` searches with (its ``experts/`` network where it has one, else its ``neural``
checkpoint) with the ``own`` value network beside its policy, so that
``expert:path=FILE`` searches with it (``value_mix`` to mix it with the rollout); the
arena then says what the network is worth inside the search. It needs torch (the
``train`` extra). Memory: ``all`` holds players x observation floats per position and seat.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sly_scout_env.agents.ui.arg_types import positive_int  # noqa: E402

INPUTS = ("own", "all")
BATCH = 512  # positions per minibatch
STEP_CAP = 20_000  # moves in one game before it is called a bug (games end far sooner)


def _search_parts(game: str, players: int, options: dict):
    """The game's search adapter and the ``ismcts`` bot's value measure (mode code, score scale, rollout)."""
    from sly_scout_env.agents.bots.registry import make
    from sly_scout_env.ismcts import VALUE_CODES

    bot = make("ismcts", game=game)
    bot.reset(0, game=game, num_players=players, seat=0, options=dict(options))
    p = bot.params
    return bot.search.adapter, VALUE_CODES[p["value"]], float(p["score_scale"]), str(p["rollout"])


def positions(game: str, players: int, games: int, seed: int, policy: str | None = None,
              options: dict | None = None) -> dict:
    """Self-play of the compiled ``policy`` at every seat (None: the search's rollout policy).

    Returns ``obs`` (positions, players, observation size) float32, every seat's observation;
    ``value`` (positions, players) float32, every seat's reward at the end of the search's
    horizon in the search's measure; ``game`` and ``horizon`` (positions,) int32; ``policy``.
    """
    from sly_scout_env.games import get_game
    from sly_scout_env.ismcts import reward
    from sly_scout_env.netpolicy import compiled_policies, obs_size

    options = dict(options or {})
    spec = get_game(game)
    rules, observation, pol = spec.module("rules"), spec.module("observation"), spec.module("policies")
    adapter, mode, scale, rollout = _search_parts(game, players, options)
    policy = policy or rollout
    ids, nets = compiled_policies(game, [policy], players, options)
    pid = int(ids[0])
    env_options = rules.parse_options(num_players=players, **{k: v for k, v in options.items()
                                                               if k in spec.option_names})
    row = rules.new_state(**env_options)
    d = adapter.observation_size
    work = np.zeros(obs_size(d, nets), np.float32)
    scratch = np.zeros(pol.CHOOSE_SCRATCH, np.int64)
    prng = np.zeros(1, np.int64)
    ret = np.zeros(players)
    obs, value, game_ids, horizons = [], [], [], []
    words = np.random.SeedSequence(seed).generate_state(games, dtype=np.uint64).astype(np.int64)
    for g in range(games):
        rules.reset(row, words[g])
        prng[0] = pol.policy_seed(row, words[g])
        key, start = adapter.horizon_of(row), len(obs)
        for _ in range(STEP_CAP):
            if row[rules.PHASE] == rules.PHASE_GAME_OVER:
                break
            here = np.zeros((players, d), np.float32)
            for s in range(players):
                observation.encode_observation(row, s, here[s])
            obs.append(here)
            value.append(np.full(players, np.nan, np.float32))
            game_ids.append(g)
            horizons.append(key)
            a = pol.choose(pid, row, scratch, work, prng, nets)
            if a < 0 or rules.apply_action(row, a, scratch) != 0:
                raise RuntimeError(f"{game}: the compiled policy {policy!r} found no legal move (game {g})")
            k = adapter.horizon_of(row)
            if row[rules.PHASE] == rules.PHASE_GAME_OVER or k != key:
                reward(np.asarray(adapter.returns(row), np.float64), players, mode, scale, ret)
                for i in range(start, len(obs)):
                    value[i][:] = ret
                key, start = k, len(obs)
        else:
            raise RuntimeError(f"a {game} game did not end within {STEP_CAP} moves")
    return {"obs": np.array(obs, np.float32).reshape(-1, players, d),
            "value": np.array(value, np.float32).reshape(-1, players),
            "game": np.array(game_ids, np.int32), "horizon": np.array(horizons, np.int32), "policy": policy}


def inputs_of(data: dict, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``, one row per position and seat (position-major): ``own``, the seat's observation;
    ``all``, every seat's, starting at the seat's and going round the table."""
    if kind not in INPUTS:
        raise ValueError(f"inputs {kind!r} is not allowed; allowed: {', '.join(INPUTS)}")
    obs, y = data["obs"], data["value"].reshape(-1)
    t, p, d = obs.shape
    if kind == "own":
        return obs.reshape(t * p, d), y
    x = np.stack([np.roll(obs, -s, axis=1).reshape(t, p * d) for s in range(p)], axis=1)
    return x.reshape(t * p, p * d), y


def entropy(y: np.ndarray) -> float:
    """Mean binary entropy of the targets (nats): the lowest logistic loss any estimate reaches."""
    q = np.clip(y.astype(np.float64), 1e-6, 1 - 1e-6)
    return float(-(q * np.log(q) + (1 - q) * np.log(1 - q)).mean())


def fit_value(x, y, xv, yv, *, hidden=(128, 128), epochs: int = 6, lr: float = 1e-3, seed: int = 0,
              log=print) -> tuple[list, list]:
    """An MLP value network fitted to ``(x, y)``, judged on ``(xv, yv)``: (one record per epoch,
    the layers as ``(weight, bias)`` arrays, the output layer last)."""
    import torch

    from sly_scout_env.agents.training.exit import _arrays, _mlp

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    X, Y, Xv, Yv = (torch.from_numpy(np.ascontiguousarray(a, np.float32)) for a in (x, y, xv, yv))
    net = _mlp(torch, X.shape[1], hidden, 1)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    rng = np.random.default_rng(seed)
    records, t = [], time.perf_counter()
    for e in range(epochs):
        order = torch.from_numpy(rng.permutation(len(X)))
        total = 0.0
        for i in range(0, len(X), BATCH):
            b = order[i : i + BATCH]
            loss = bce(net(X[b])[:, 0], Y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
        sched.step()
        with torch.no_grad():
            z = net(Xv)[:, 0]
            val, mae = float(bce(z, Yv)), float((torch.sigmoid(z) - Yv).abs().mean())
        records.append({"epoch": e, "train_loss": total / len(X), "val_loss": val, "val_mae": mae})
        log(f"epoch {e}: train {total / len(X):.4f}, held-out {val:.4f} (MAE {mae:.4f}), "
            f"{time.perf_counter() - t:.0f} s")
    return records, _arrays(torch, net)


def write_checkpoint(path: str, game: str, players: int, options: dict, layers: list, note: dict) -> None:
    """The network the table's ``expert`` searches with, ``layers`` as its value network, to ``path``."""
    from sly_scout_env.netfile import NeuralPolicy, shipped_expert_for, shipped_for

    base = shipped_expert_for(game, players, options) or shipped_for(game, players, options)
    meta = dict(base.meta)
    meta["value_training"] = note
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    NeuralPolicy(base.layers, base.head, meta, source=path, value_net=(layers[:-1], layers[-1])).save(path)


def main(argv=None) -> int:
    from sly_scout_env.games import get_game

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", help="a game with a search role (scout, sly)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=positive_int, default=16000, help="self-play games to fit on (default 16000)")
    p.add_argument("--val-games", type=positive_int, default=1000, help="held-out games (default 1000)")
    p.add_argument("--policy", default=None, help="the compiled policy at every seat (default: the search's "
                   "rollout policy)")
    p.add_argument("--inputs", default="own", help=f"comma-separated, of: {', '.join(INPUTS)} (default own)")
    p.add_argument("--hidden", default="128,128", help="hidden layers (default 128,128)")
    p.add_argument("--epochs", type=positive_int, default=6)
    p.add_argument("--seed", type=int, default=1, help="seed of the fitted games (the held-out ones: seed + 1)")
    p.add_argument("--write", metavar="FILE", help="save the expert's network with the 'own' value network")
    args = p.parse_args(argv)
    kinds = [k.strip() for k in args.inputs.split(",") if k.strip()]
    bad = [k for k in kinds if k not in INPUTS]
    if not kinds or bad:
        p.error(f"--inputs {args.inputs!r} is not allowed; give one or more of: {', '.join(INPUTS)}")
    if args.write and "own" not in kinds:
        p.error("--write saves the 'own' value network (what the search reads); add own to --inputs")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
        if min(hidden) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--hidden {args.hidden!r} is not allowed; give sizes >= 1, e.g. 128,128")
    try:
        get_game(args.game).check_players(args.players, "--players")
        t = time.perf_counter()
        train = positions(args.game, args.players, args.games, args.seed, args.policy)
        held = positions(args.game, args.players, args.val_games, args.seed + 1, args.policy)
    except ValueError as e:
        p.error(str(e))
    print(f"{args.game} {args.players}p, policy {train['policy']}: {len(train['obs'])} positions of {args.games} "
          f"games, {len(held['obs'])} held out, in {time.perf_counter() - t:.1f} s")
    yv = held["value"].reshape(-1)
    const = float(np.clip(train["value"].mean(), 1e-6, 1 - 1e-6))
    const_loss = float(-(yv * np.log(const) + (1 - yv) * np.log(1 - const)).mean())
    rows = []
    for kind in kinds:
        x, y = inputs_of(train, kind)
        xv, _ = inputs_of(held, kind)
        records, layers = fit_value(x, y, xv, yv, hidden=hidden, epochs=args.epochs, seed=0,
                                    log=lambda s, k=kind: print(f"{k}: {s}", flush=True))
        rows.append((kind, x.shape[1], len(x), records[-1]))
        if kind == "own" and args.write:
            write_checkpoint(args.write, args.game, args.players, {}, layers,
                             {"command": "python benchmarks/value_targets.py " + " ".join(argv or sys.argv[1:]),
                              "policy": train["policy"], "positions": int(len(train["obs"])),
                              "val_loss": records[-1]["val_loss"], "date": time.strftime("%Y-%m-%d")})
            print(f"wrote {args.write} (expert:path={args.write})")
    print("\n| inputs | width | samples | train loss | held-out loss | constant | targets' entropy | held-out MAE |"
          "\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind, width, n, r in rows:
        print(f"| {kind} | {width} | {n:,} | {r['train_loss']:.4f} | {r['val_loss']:.4f} | {const_loss:.4f} | "
              f"{entropy(yv):.4f} | {r['val_mae']:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
