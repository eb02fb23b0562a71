"""The ``sly-scout`` command line: one parser (:func:`build_parser`) and one :func:`main`.

    sly-scout simulate scout --players 4 --hands 100000 --seed 0
    sly-scout arena scout --players 4 --agents random,greedy,ismcts --games 2000
    sly-scout play scout --players 3 --opponents greedy,ismcts
    sly-scout train sly --players 2 --timesteps 400000
    sly-scout exit scout --players 2 --hours 3 --out runs/exit_scout2
    sly-scout demo            # the main job of `make run`
    sly-scout serve --open    # the web table

Each sub-command is an ``add_<command>_parser`` / ``run_<command>`` pair; ``simulate``,
``demo`` and ``serve`` live in their own modules of this room (``ui/``). Game options are
spelled ``--option KEY=VALUE`` in every command. ``python -m sly_scout_env.agents`` is the
same command.

    sly-scout arena scout --players 4 --agents random,greedy,ismcts --games 2000
    sly-scout play sly --players 3 --opponents greedy,ismcts --seat 1 --seed 7
"""

from __future__ import annotations

import argparse
import sys

from sly_scout_env.agents.bots.registry import describe
from sly_scout_env.agents.training.rllib import add_rllib_arguments
from sly_scout_env.agents.ui.arg_types import add_options_argument, non_negative_int, positive_int, probability
from sly_scout_env.agents.ui.demo import add_demo_parser, run_demo_args
from sly_scout_env.agents.ui.simulate import add_simulate_parser, run_simulate
from sly_scout_env.agents.ui.web.cli import add_serve_parser, run_serve
from sly_scout_env.games import GAMES, all_games, get_game
from sly_scout_env.ray_tasks import add_ray_option


def _layer_sizes(text: str) -> list:
    try:
        sizes = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one or more layer sizes >= 1, e.g. 128,128")
    return sizes


def _fractions(text: str) -> list:
    try:
        shares = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None
    if not shares or any(not (0 < f <= 1) for f in shares) or shares != sorted(set(shares)) or shares[-1] != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give increasing shares in (0, 1] ending at 1, e.g. 0.25,0.5,1")
    return shares


def _players_help() -> str:
    return "player count (" + "; ".join(
        f"{g.name} {g.player_counts[0]}-{g.player_counts[-1]}, default {g.default_players}" for g in all_games()) + ")"


def _add_game(p) -> None:
    """The GAME argument and --players (its default and range come from the game registry)."""
    p.add_argument("game", choices=GAMES, metavar="GAME", help=" or ".join(GAMES))
    p.add_argument("--players", type=int, default=None, help=_players_help())


def resolve_players(command: str, game: str, players: int | None) -> int:
    """``players`` (the game's default when None); SystemExit naming the allowed counts."""
    spec = get_game(game)
    if players is None:
        return spec.default_players
    if players not in spec.player_counts:
        raise SystemExit(f"sly-scout {command}: --players {players} is not allowed for {game}; "
                         f"allowed: {', '.join(map(str, spec.player_counts))}")
    return players


def _bot_list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError("give at least one bot name, e.g. random")
    return items


def _bots_epilog() -> str:
    return "registered bots:\n" + "\n".join("  " + line for line in describe().splitlines())


def _add_common(p) -> None:
    add_options_argument(p)


def add_arena_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``arena`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "arena",
        help="a tournament between bots: seat rotation, duplicate deals, win shares with intervals over deals",
        description=(
            "Play bots against each other. Every deal is replayed under every seating of a balanced "
            "block (all distinct seatings when at most 120 and GAMES fill 10 deals of them, else a rotation), "
            "so no bot gains from its seat or its cards; GAMES is rounded up to whole deals. The same bot listed "
            "several times is one entry holding several seats (ismcts,greedy,greedy,greedy,greedy: 5 "
            "seatings per deal); label copies to tell them apart (g1@greedy or greedy:name=g1). Prints, "
            "per entry and pooled over its seats, the mean score and the win share per seat (ties split, "
            "parity 1/players), each with a 95% t-interval over deals (the deal is the independent unit; "
            "see docs/arena.md), openskill Plackett-Luce ratings and the head-to-head matrix."
        ),
        epilog=_bots_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_game(p)
    p.add_argument(
        "--agents",
        type=_bot_list,
        required=True,
        metavar="A,B,...",
        help=(
            "bots by registered name, comma-separated; parameters as name:key=value (e.g. ismcts:iterations=200); "
            "a repeated spec is one entry holding several seats; LABEL@spec or name=LABEL keeps copies apart"
        ),
    )
    p.add_argument(
        "--games", type=positive_int, required=True,
        help="games to play (rounded up to whole deals: one game per seating of a deal)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the deals and the bots (default 0)")
    p.add_argument("--workers", type=positive_int, default=2, help="worker processes (default 2)")
    p.add_argument("--max-steps", type=positive_int, default=None,
                   help="step guard per game (default 10000; truncated games are reported and left out "
                   "of the statistics)")
    add_ray_option(p, "the deals (instead of --workers processes)")
    p.add_argument("--json", metavar="PATH", default=None, help="save the results as JSON")
    p.add_argument(
        "--csv", metavar="PATH", default=None, help="save the per-entry results (with intervals over deals) as CSV"
    )
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    _add_common(p)
    return p


def run_arena(args, out=None):
    """Run the ``arena`` sub-command from parsed ``args``; prints the table, returns the ArenaResult."""
    from sly_scout_env.agents.evaluation.arena import DEFAULT_MAX_STEPS
    from sly_scout_env.agents.evaluation.arena import run_arena as _run

    out = out or sys.stdout
    args.players = resolve_players("arena", args.game, args.players)
    try:
        result = _run(
            args.game,
            args.players,
            args.agents,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            options=dict(args.options),
            progress=args.progress,
            max_steps=args.max_steps or DEFAULT_MAX_STEPS,
            ray=args.ray,
        )
    except ValueError as exc:
        raise SystemExit(f"sly-scout arena: {exc}") from None
    print(result.table(), file=out)
    if args.json:
        result.write_json(args.json)
        print(f"results saved to {args.json}", file=out)
    if args.csv:
        result.write_csv(args.csv)
        print(f"results saved to {args.csv}", file=out)
    return result


def add_play_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``play`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "play",
        help="play a full match in the terminal against chosen bots",
        description=(
            "Play a match against bots in the terminal. Pick moves by number or by a unique piece "
            "of their text; commands: help, moves, table, quit. quit, end of input and Ctrl-C save "
            "the game to a JSON file; continue it with --resume FILE. --seed replays a deal."
        ),
        epilog=_bots_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_game(p)
    p.add_argument(
        "--opponents",
        type=_bot_list,
        default=None,
        metavar="A,B,...",
        help="bots for the other seats, in seat order (fewer than the seats: repeated cyclically; default random)",
    )
    p.add_argument("--seat", type=non_negative_int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--seed", type=non_negative_int, default=None, help="seed of the deal (default: fresh, printed)")
    p.add_argument("--resume", metavar="FILE", default=None, help="continue a saved game")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="where to save on quit (default sly-scout-GAME-save.json)")
    _add_common(p)
    return p


def run_play(args, input_stream=None, output_stream=None) -> dict:
    """Run the ``play`` sub-command from parsed ``args``."""
    from sly_scout_env.agents.ui.play import play

    players = args.players
    if args.resume is None:
        players = resolve_players("play", args.game, players)
    try:
        return play(
            args.game,
            players,
            args.opponents or ["random"],
            seed=args.seed,
            seat=args.seat,
            input_stream=input_stream,
            output_stream=output_stream,
            resume=args.resume,
            options=dict(args.options),
            save_path=args.save,
        )
    except ValueError as exc:
        raise SystemExit(f"sly-scout play: {exc}") from None


def add_train_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``train`` sub-command to an argparse ``subparsers`` object (no torch import)."""
    from sly_scout_env.agents.training.ppo import TrainConfig

    d = TrainConfig()
    p = subparsers.add_parser(
        "train",
        help="train a MaskablePPO bot by self-play (needs the train extra: torch, sb3-contrib)",
        description=(
            "Train a MaskablePPO bot (sb3-contrib) on the single-agent view of GAME with a rotating "
            "learner seat. The other seats are drawn per episode from a pool of frozen snapshots of "
            "the learner (probability --self-play) and the baseline bots (--opponents). Every "
            "--eval-every steps the policy is saved and played in the arena against random (and "
            "greedy when registered); win shares with 95% intervals over deals go to OUT/eval.csv, "
            "training means to OUT/progress.csv, the final policy to OUT/final.zip (use it as "
            "ppo:path=OUT/final.zip in arena and play). See docs/training.md."
        ),
    )
    _add_game(p)
    p.add_argument("--timesteps", type=positive_int, default=d.timesteps, help=f"learner steps (default {d.timesteps})")
    p.add_argument("--seed", type=non_negative_int, default=d.seed, help=f"seed (default {d.seed})")
    p.add_argument("--out", default=d.out, metavar="DIR", help=f"output directory (default {d.out})")
    p.add_argument("--eval-every", type=positive_int, default=d.eval_every, metavar="K",
                   help=f"evaluate and checkpoint every K steps (default {d.eval_every})")
    p.add_argument("--eval-games", type=positive_int, default=d.eval_games, metavar="G",
                   help=f"arena games per evaluation and bot (default {d.eval_games})")
    p.add_argument("--eval-opponents", type=_bot_list, default=None, metavar="A,B",
                   help="evaluation bots (default: random, and greedy when registered)")
    p.add_argument("--eval-workers", type=positive_int, default=d.eval_workers,
                   help=f"arena worker processes (default {d.eval_workers})")
    p.add_argument("--opponents", type=_bot_list, default=d.opponents, metavar="A,B",
                   help="baseline bots of the opponent pool (default random), e.g. random,greedy; with --fast "
                        "one compiled policy for every other seat, or one per other seat in seat order")
    p.add_argument("--self-play", type=probability, default=d.self_play, metavar="P",
                   help=f"probability that an opponent seat is a snapshot of the learner (default {d.self_play})")
    p.add_argument("--snapshot-every", type=positive_int, default=d.snapshot_every, metavar="K",
                   help=f"add a snapshot to the pool every K steps (default {d.snapshot_every})")
    p.add_argument("--pool-size", type=positive_int, default=d.pool_size,
                   help=f"snapshots kept (default {d.pool_size})")
    p.add_argument("--reward", choices=("win", "score", "margin"), default=d.reward,
                   help=f"learner reward: win, score, or margin (points minus the others' mean) (default {d.reward})")
    p.add_argument("--n-envs", type=positive_int, default=d.n_envs, help=f"parallel envs (default {d.n_envs})")
    p.add_argument("--vec-env", choices=("dummy", "subproc"), default=d.vec_env,
                   help="dummy (one process; best for these fast envs) or subproc (default dummy)")
    p.add_argument("--fast", action="store_true",
                   help="play the n-envs games in one compiled batch against compiled opponent policies "
                        "(--opponents random, greedy or neural, --self-play 0); much faster, see docs/training.md")
    p.add_argument("--n-steps", type=positive_int, default=d.n_steps,
                   help=f"rollout steps per env (default {d.n_steps})")
    p.add_argument("--batch-size", type=positive_int, default=d.batch_size, help=f"minibatch (default {d.batch_size})")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    p.add_argument("--net-arch", type=_layer_sizes, default=d.net_arch, metavar="H1,H2",
                   help=f"hidden layer sizes of the policy and value MLPs (default {','.join(map(str, d.net_arch))})")
    p.add_argument("--warm-start", default=d.warm_start, metavar="BOT",
                   help="behaviour-clone this bot (e.g. greedy) before PPO; needs --fast (see docs/training.md)")
    p.add_argument("--warm-start-samples", type=positive_int, default=d.warm_start_samples, metavar="M",
                   help=f"teacher decisions to clone (default {d.warm_start_samples})")
    p.add_argument("--warm-start-epochs", type=positive_int, default=d.warm_start_epochs, metavar="E",
                   help=f"passes over them (default {d.warm_start_epochs})")
    p.add_argument("--prior", default=d.prior, metavar="BOT",
                   help="add this bot's move (e.g. greedy) to the policy's logits; PPO learns corrections to it; "
                        "needs --fast (see docs/training.md)")
    p.add_argument("--prior-weight", type=float, default=d.prior_weight, metavar="W",
                   help=f"weight of the prior's move in the logits (default {d.prior_weight})")
    p.add_argument("--policy", choices=("mlp", "scorer"), default="mlp",
                   help="mlp: an MLP over the observation (default); scorer: one MLP scores each legal move from its "
                        "per-action features (games with a features module; needs --fast; plays as neural:path="
                        "OUT/final.npz; see docs/training.md)")
    p.add_argument("--init-from", default=d.init_from, metavar="PATH",
                   help="--policy scorer: start the scorer from this action-scorer .npz (e.g. a shipped "
                        "sly_scout_env/scout/checkpoints/scout_2p.npz; its hidden sizes are kept)")
    _add_common(p)
    add_rllib_arguments(p)
    return p


def config_from_args(args):
    from sly_scout_env.agents.training.ppo import TrainConfig

    return TrainConfig(
        game=args.game, players=args.players, timesteps=args.timesteps, seed=args.seed, out=args.out,
        options=dict(args.options), reward=args.reward, opponents=list(args.opponents), self_play=args.self_play,
        snapshot_every=args.snapshot_every, pool_size=args.pool_size, eval_every=args.eval_every,
        eval_games=args.eval_games, eval_opponents=args.eval_opponents, eval_workers=args.eval_workers,
        n_envs=args.n_envs, vec_env=args.vec_env, fast=args.fast, n_steps=args.n_steps, batch_size=args.batch_size,
        learning_rate=args.learning_rate, net_arch=list(args.net_arch), warm_start=args.warm_start,
        warm_start_samples=args.warm_start_samples, warm_start_epochs=args.warm_start_epochs, prior=args.prior,
        prior_weight=args.prior_weight, policy=None if args.policy == "mlp" else args.policy,
        init_from=args.init_from,
    )


def run_train(args, log=print) -> dict:
    """Run the ``train`` sub-command from parsed ``args``."""
    from sly_scout_env.agents.training.ppo import ResumeError, train

    args.players = resolve_players("train", args.game, args.players)
    if args.backend == "rllib":
        return _run_train_rllib(args, log=log)
    try:
        cfg = config_from_args(args).check()
    except ValueError as exc:
        raise SystemExit(f"sly-scout train: {exc}") from None
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        raise SystemExit("sly-scout train needs the train extra: pip install 'sly-scout-env[train]'") from None
    try:
        result = train(cfg, log=log)
    except ResumeError as exc:  # --out holds a run with other settings
        raise SystemExit(f"sly-scout train: {exc}") from None
    log(f"final policy: {result['final']}")
    final = result["final"]
    bot = f"neural:path={final[: -len('.zip')]}.npz" if cfg.scorer else f"ppo:path={final}"  # scorer: final.npz
    log(f"  arena: sly-scout arena {cfg.game} --players {cfg.players} --agents {bot},random "
        f"--games 1000" + "".join(f" --option {k}={v}" for k, v in cfg.options.items()))
    return result


def _run_train_rllib(args, log=print) -> dict:
    """The ``train --backend rllib`` sub-command from parsed ``args``."""
    from sly_scout_env.agents.training.rllib import train_rllib
    from sly_scout_env.ray_tasks import EXTRA_HINT

    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise SystemExit(f"sly-scout train --backend rllib: {EXTRA_HINT}") from None
    try:
        if args.policy != "mlp" or args.init_from is not None:
            raise ValueError("--policy scorer and --init-from are SB3 options (sly_scout_env.agents.training."
                             "scorer_policy); leave them out with --backend rllib")
        cfg = config_from_args(args).check()
        if args.fast or args.vec_env != "dummy":
            raise ValueError("--fast and --vec-env are SB3 options; RLlib samples with --num-env-runners")
        result = train_rllib(cfg, args.num_env_runners, args.address, log=log)
    except ValueError as exc:
        raise SystemExit(f"sly-scout train: {exc}") from None
    log(f"final policy: {result['final']}, {result['neural']} (RLlib checkpoint: {result['rllib']})")
    log(f"  arena: sly-scout arena {cfg.game} --players {cfg.players} --agents ppo:path={result['final']},random "
        f"--games 1000" + "".join(f" --option {k}={v}" for k, v in cfg.options.items()))
    return result


def add_distill_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``distill`` sub-command (agents/training/distill.py)."""
    from sly_scout_env.agents.training.distill import DistillConfig

    d = DistillConfig("scout", 2)
    p = subparsers.add_parser(
        "distill",
        help="distil ISMCTS into an action-scoring network (a torch-free neural checkpoint; needs the train extra)",
        description=("Collect the decisions of a search bot (--teacher, default ismcts) in games against greedy "
                     "for --minutes, fit an action-scoring network to its root visits, and evaluate it in the "
                     "arena (one learned seat) at a quarter, half and all of the data. A stopped run resumes when "
                     "the same command is run again. Writes OUT/final.npz (neural:path=OUT/final.npz); see "
                     "docs/training.md, 'Distilling ISMCTS'."),
    )
    _add_game(p)
    p.add_argument("--minutes", type=float, default=d.minutes, help=f"collection time in all (default {d.minutes})")
    p.add_argument("--decisions", type=positive_int, default=None, help="also stop collecting after this many")
    p.add_argument("--workers", type=positive_int, default=d.workers, help=f"collector processes (default {d.workers})")
    p.add_argument("--teacher", default=d.teacher, metavar="BOT", help=f"search bot spec (default {d.teacher})")
    p.add_argument("--label-searches", type=positive_int, default=d.label_searches, metavar="K",
                   help="teacher searches per labelled position, their root visits summed "
                        f"(default {d.label_searches}; K costs K times the search)")
    p.add_argument("--dagger", type=float, default=d.dagger, metavar="SHARE",
                   help="share of the minutes in a second stage where a first fit plays and the teacher labels its "
                        f"positions (DAgger; default {d.dagger}: off)")
    p.add_argument("--hidden", type=_layer_sizes, default=d.hidden, metavar="H1,H2",
                   help=f"hidden layers of the scorer (default {','.join(map(str, d.hidden))})")
    p.add_argument("--epochs", type=positive_int, default=d.epochs, help=f"(default {d.epochs})")
    p.add_argument("--temperature", type=float, default=d.temperature,
                   help=f"targets are visits ** (1/T), normalised (default {d.temperature})")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    p.add_argument("--batch-size", type=positive_int, default=d.batch_size, help=f"decisions (default {d.batch_size})")
    p.add_argument("--curve", type=_fractions, default=d.curve, metavar="F1,F2,...",
                   help="shares of the decisions fitted and evaluated, increasing, ending at 1 "
                        f"(default {','.join(map(str, d.curve))}; 1: only the final fit)")
    p.add_argument("--eval-games", type=positive_int, default=d.eval_games,
                   help=f"arena games per curve point and bot (default {d.eval_games})")
    p.add_argument("--eval-opponents", type=_bot_list, default=d.eval_opponents, metavar="A,B",
                   help="bots in every other seat in the evaluation (default greedy)")
    p.add_argument("--eval-workers", type=positive_int, default=d.eval_workers, help="arena processes")
    p.add_argument("--seed", type=non_negative_int, default=d.seed, help=f"(default {d.seed})")
    p.add_argument("--out", default=d.out, metavar="DIR", help=f"output directory (default {d.out})")
    _add_common(p)
    return p


def run_distill(args, log=print) -> dict:
    """Run the ``distill`` sub-command from parsed ``args``."""
    import shlex

    from sly_scout_env.agents.training.distill import DistillConfig, run

    players = resolve_players("distill", args.game, args.players)
    cfg = DistillConfig(
        game=args.game, players=players, minutes=args.minutes, decisions=args.decisions, workers=args.workers,
        teacher=args.teacher, label_searches=args.label_searches, dagger=args.dagger, hidden=list(args.hidden),
        epochs=args.epochs, temperature=args.temperature,
        learning_rate=args.learning_rate, batch_size=args.batch_size, curve=list(args.curve),
        eval_games=args.eval_games,
        eval_opponents=list(args.eval_opponents), eval_workers=args.eval_workers, seed=args.seed, out=args.out,
        options=dict(args.options), command="sly-scout " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
    )
    try:
        cfg.check()
    except ValueError as exc:
        raise SystemExit(f"sly-scout distill: {exc}") from None
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit(
            "sly-scout distill needs the train extra (torch): pip install 'sly-scout-env[train]'"
        ) from None
    return run(cfg, log=log)


def add_exit_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``exit`` sub-command (expert iteration, agents/training/exit.py; no torch import)."""
    from sly_scout_env.agents.training.exit import GUIDE_USES, ExitConfig

    d = ExitConfig("scout", 2)
    p = subparsers.add_parser(
        "exit",
        help="expert iteration: the search with the network inside plays, a new network learns its moves and "
             "outcomes, a gate keeps the better (needs the train extra)",
        description=("Each generation the expert (the compiled ismcts guided by the best network so far: its "
                     "policy as the PUCT prior, its value network ending the simulations; the plain search "
                     "before any network) plays --games self-play games; a new network is fitted to the root "
                     "visits and the outcomes of the last --window generations; it becomes the best when its "
                     "expert scores above parity against the best expert in the arena. Logs OUT/log.csv and "
                     "OUT/curve.svg; every OUT/gen_*/net.npz is a neural checkpoint with a value network. A "
                     "stopped run continues when the same command is run again. See docs/training.md, "
                     "'Expert iteration'."),
    )
    _add_game(p)
    p.add_argument("--hours", type=float, default=d.hours, help=f"wall-time budget across runs (default {d.hours})")
    p.add_argument("--generations", type=positive_int, default=None, help="also stop after this many generations")
    p.add_argument("--iterations", type=positive_int, default=d.iterations,
                   help=f"search iterations per move, self-play and gate (default {d.iterations})")
    p.add_argument("--games", type=positive_int, default=d.games, help=f"self-play games per generation "
                   f"(default {d.games})")
    p.add_argument("--shard-games", type=positive_int, default=d.shard_games,
                   help=f"games per self-play file (default {d.shard_games})")
    p.add_argument("--temperature-moves", type=non_negative_int, default=d.temperature_moves,
                   help=f"decisions per game drawn in proportion to the visits (default {d.temperature_moves})")
    p.add_argument("--noise", type=probability, default=d.noise,
                   help=f"Dirichlet share in the root's prior in self-play (default {d.noise})")
    p.add_argument("--noise-alpha", type=float, default=d.noise_alpha, help=f"(default {d.noise_alpha})")
    p.add_argument("--window", type=positive_int, default=d.window,
                   help=f"generations of self-play each fit reads (default {d.window})")
    p.add_argument("--hidden", type=_layer_sizes, default=d.hidden, metavar="H1,H2",
                   help=f"hidden layers of both networks (default {','.join(map(str, d.hidden))})")
    p.add_argument("--epochs", type=positive_int, default=d.epochs, help=f"(default {d.epochs})")
    p.add_argument("--batch-size", type=positive_int, default=d.batch_size, help=f"(default {d.batch_size})")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    p.add_argument("--value-weight", type=float, default=d.value_weight, help=f"(default {d.value_weight})")
    p.add_argument("--guide", choices=tuple(GUIDE_USES), default=d.guide,
                   help="what the expert takes from its network: the prior (PUCT), the value (ends simulations) "
                        f"or both (default {d.guide})")
    p.add_argument("--guide-c", type=float, default=d.guide_c, metavar="C",
                   help="the expert's PUCT constant, weighing the prior against the values found (> 0; default: "
                        "the search's default for the game)")
    p.add_argument("--init", default=d.init, metavar="NET",
                   help="the first expert's network: none (the plain search, default), shipped (the shipped neural "
                        "network's prior) or a checkpoint path")
    p.add_argument("--gate-games", type=positive_int, default=d.gate_games,
                   help=f"arena games of each gate (default {d.gate_games})")
    p.add_argument("--workers", type=positive_int, default=d.workers, help=f"gate processes (default {d.workers})")
    p.add_argument("--seed", type=non_negative_int, default=d.seed, help=f"(default {d.seed})")
    p.add_argument("--out", default=d.out, metavar="DIR", help=f"output directory (default {d.out})")
    _add_common(p)
    return p


def run_exit(args, log=print) -> dict:
    """Run the ``exit`` sub-command from parsed ``args``."""
    import shlex

    from sly_scout_env.agents.training.exit import ExitConfig, ResumeError, run

    players = resolve_players("exit", args.game, args.players)
    cfg = ExitConfig(
        game=args.game, players=players, hours=args.hours, generations=args.generations, iterations=args.iterations,
        games=args.games, shard_games=args.shard_games, temperature_moves=args.temperature_moves, noise=args.noise,
        noise_alpha=args.noise_alpha, window=args.window, hidden=list(args.hidden), epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.learning_rate, value_weight=args.value_weight,
        guide=args.guide, guide_c=args.guide_c, init=args.init, gate_games=args.gate_games, workers=args.workers,
        seed=args.seed, out=args.out, options=dict(args.options),
        command="sly-scout " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
    )
    try:
        cfg.check()
    except ValueError as exc:
        raise SystemExit(f"sly-scout exit: {exc}") from None
    try:
        import torch  # noqa: F401
    except ImportError:
        raise SystemExit("sly-scout exit needs the train extra (torch): pip install 'sly-scout-env[train]'") from None
    try:
        return run(cfg, log=log)
    except ResumeError as exc:
        raise SystemExit(f"sly-scout exit: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    """The ``sly-scout`` parser: every sub-command, one parser."""
    parser = argparse.ArgumentParser(prog="sly-scout", description="Scout and Sly: simulate, compare bots, play, "
                                     "train, and the web table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_simulate_parser(sub)
    add_arena_parser(sub)
    add_play_parser(sub)
    add_train_parser(sub)
    add_distill_parser(sub)
    add_exit_parser(sub)
    add_demo_parser(sub)
    add_serve_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``sly-scout`` command (``python -m sly_scout_env.agents`` too); returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        try:
            run_simulate(args)
        except ValueError as e:  # bad --policies / --threads / --option: a usage error, not a traceback
            print(f"sly-scout simulate: error: {e}", file=sys.stderr)
            return 2
    elif args.command == "arena":
        run_arena(args)
    elif args.command == "play":
        result = run_play(args)
        return 0 if result["status"] in ("finished", "saved") else 1
    elif args.command == "train":
        run_train(args)
    elif args.command == "distill":
        run_distill(args)
    elif args.command == "exit":
        run_exit(args)
    elif args.command == "demo":
        run_demo_args(args)
    elif args.command == "serve":
        return run_serve(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
