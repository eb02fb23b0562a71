"""Export a MaskablePPO checkpoint to the torch-free ``neural`` format (``agents/bots/neural.py``).

    python -m sly_scout_env.agents.training.export_neural runs/scout4/final.zip runs/scout4/final.npz
    python -m sly_scout_env.agents.training.export_neural runs/scout4/checkpoints/step_002000000.zip best.npz \
        --game scout --players 4 --command "sly-scout train scout --players 4 ..." --wall-time-s 2400

``sly-scout train`` calls :func:`export_model` on its final policy, so every run leaves
``OUT/final.npz`` next to ``OUT/final.zip``. Only the actor is kept (the value network
plays no part in choosing a move), as float32 arrays; reading it back needs numpy only.
Importing this module needs torch and sb3-contrib (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import datetime
import sys

from sly_scout_env.agents.bots.neural import FORMAT_VERSION, NeuralPolicy, table_sizes
from sly_scout_env.agents.bots.ppo import FrozenPolicy


def export_model(model, path: str, *, game: str, players: int, options: dict | None = None,
                 trained: dict | None = None) -> NeuralPolicy:
    """Write ``model``'s actor (a MaskablePPO model or policy with an MLP) as a checkpoint at ``path``."""
    import json

    frozen = FrozenPolicy.from_sb3(model, meta={})
    options = dict(options or {})
    obs_size, num_actions = table_sizes(game, players, json.dumps(options, sort_keys=True, default=str))
    meta = {
        "format_version": FORMAT_VERSION,
        "inputs": "observation",  # an MLP over the observation (netfile's first kind)
        "game": game,
        "players": int(players),
        "observation_size": obs_size,
        "num_actions": num_actions,
        "activation": frozen.activation,
        "hidden": [int(w.shape[0]) for w, _ in frozen.layers],
        "options": options,
        "trained": dict(trained or {}, exported=datetime.datetime.now(datetime.UTC).isoformat(
            timespec="seconds")),
    }
    sb3_policy = getattr(model, "policy", model)
    # sly_scout_env.agents.training.prior_policy.PriorPolicy: the prior's move joins the logits
    if getattr(sb3_policy, "prior", None):
        meta["prior"] = {"bot": sb3_policy.prior, "weight": sb3_policy.prior_weight}
    policy = NeuralPolicy(frozen.layers, frozen.head, meta, source=path)
    policy.save(path)
    return policy


def export_zip(zip_path: str, path: str, *, game: str | None = None, players: int | None = None,
               options: dict | None = None, trained: dict | None = None, exporter=None) -> NeuralPolicy:
    """Export a MaskablePPO zip; game, players and options default to those ``sly-scout train`` stored in it.

    ``exporter``: what writes the model (default :func:`export_model`, an MLP policy; the
    action scorer's is ``scorer_policy.export_scorer``), called as ``exporter(model, path,
    game=, players=, options=, trained=)``.
    """
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(zip_path, device="cpu")
    stored = dict(getattr(model, "sly_scout_meta", None) or {})
    game = game or stored.get("game")
    players = players or stored.get("players")
    if game is None or players is None:
        raise ValueError(f"{zip_path} does not say which game and player count it was trained on: "
                         "give --game and --players")
    options = stored.get("options", {}) if options is None else options
    info = {k: stored[k] for k in ("timesteps", "reward", "seed") if k in stored}
    return (exporter or export_model)(model, path, game=game, players=players, options=options,
                                      trained=dict(info, source=zip_path, **(trained or {})))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m sly_scout_env.agents.training.export_neural",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("zip", help="a MaskablePPO checkpoint zip (sly-scout train's final.zip or checkpoints/*.zip)")
    p.add_argument("out", help="the .npz to write")
    p.add_argument("--game", default=None, help="override the game stored in the zip")
    p.add_argument("--players", type=int, default=None, help="override the player count stored in the zip")
    p.add_argument("--command", default=None, help="the training command, kept in the metadata")
    p.add_argument("--wall-time-s", type=float, default=None, help="the training wall time, kept in the metadata")
    args = p.parse_args(argv)
    trained = {k: v for k, v in (("command", args.command), ("wall_time_s", args.wall_time_s)) if v is not None}
    pol = export_zip(args.zip, args.out, game=args.game, players=args.players, trained=trained)
    print(f"wrote {args.out}: {pol.game}, {pol.players} players, layers "
          f"{[w.shape for w, _ in pol.layers + [pol.head]]}, options {pol.meta['options']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
