"""What the action scorer's inputs are worth: its fit with and without the observation.

    python benchmarks/scorer_inputs.py runs/scout2p_expert2              # both fits, 12 epochs
    python benchmarks/scorer_inputs.py runs/scout2p_expert2 --embedding 32 --epochs 12

The shipped Scout networks score each legal move from its feature row alone
(:mod:`sly_scout_env.scout.features`: a few dozen columns of context, the move and the
hand it leaves). Do they miss something the raw observation holds (the hand card by card,
every count)? This fits, on the decisions of a ``sly-scout distill`` run (``RUN/data``,
the game and player count from ``RUN/config.json``), two scorers the way the run's fit
does (:func:`sly_scout_env.agents.training.distill_fit.fit`: the same targets, held-out
split, seeds and optimiser):

- **rows only**: the shipped architecture, an MLP over each move's feature row (it
  reproduces the run's own ``fit.csv`` epoch by epoch);
- **rows and observation**: the same MLP over the feature row next to an embedding of the
  mover's observation (an MLP of one hidden layer of 128 to ``--embedding`` units, shared by
  the decision's moves), the two trained together.

It prints one line per epoch and fit, and a table of the last epoch: train loss, held-out
loss and held-out agreement with the teacher's most visited move. A lower held-out loss
with the observation would say the feature rows leave out what the teacher's choices
depend on. It needs torch (the ``train`` extra); one thread per fit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sly_scout_env.agents.training.distill import load_data  # noqa: E402
from sly_scout_env.agents.training.distill_fit import Scorer, feature_rows, heldout_split, train_scorer  # noqa: E402
from sly_scout_env.agents.ui.arg_types import positive_int  # noqa: E402

EMBEDDING_HIDDEN = 128  # the observation embedding's hidden layer


def fit(rows: np.ndarray, data: dict, *, embedding: int = 0, hidden=(128, 128), epochs: int = 12, lr: float = 1e-3,
        batch: int = 256, temperature: float = 0.2, val_frac: float = 0.1, seed: int = 0, log=print) -> list[dict]:
    """Fit a scorer over the feature rows (and, with ``embedding`` > 0, an embedding of the
    observation beside each row) by ``distill_fit``'s training loop; one record per epoch."""
    import torch
    from torch import nn

    torch.set_num_threads(1)
    split = heldout_split(len(data["offsets"]) - 1, val_frac, seed)
    scorer = Scorer(rows.shape[1] + embedding, hidden, seed=seed).net  # the shipped scorer's initial weights
    X = torch.from_numpy(rows)
    obs = torch.from_numpy(np.ascontiguousarray(data["obs"], dtype=np.float32))
    embed = (nn.Sequential(nn.Linear(obs.shape[1], EMBEDDING_HIDDEN), nn.ReLU(),
                           nn.Linear(EMBEDDING_HIDDEN, embedding), nn.ReLU()) if embedding else None)

    def logits(r, seg, decisions):
        x = X[r] if embed is None else torch.cat([X[r], embed(obs[decisions])[seg]], 1)
        return scorer(x).squeeze(1)

    params = list(scorer.parameters()) + ([] if embed is None else list(embed.parameters()))
    return train_scorer(logits, params, data, split, epochs=epochs, lr=lr, batch=batch, temperature=temperature,
                        log=log, name=f"embedding {embedding}, ")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a sly-scout distill output directory (its data/ and config.json)")
    p.add_argument("--embedding", type=int, default=32, help="observation embedding units (default 32)")
    p.add_argument("--epochs", type=positive_int, default=None, help="(default: the run's)")
    args = p.parse_args(argv)
    if args.embedding < 1:
        p.error(f"--embedding {args.embedding} is not allowed; give a number of units >= 1")
    try:
        with open(os.path.join(args.run, "config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        files = sorted(os.path.join(args.run, "data", x) for x in os.listdir(os.path.join(args.run, "data")))
    except OSError as e:
        p.error(f"{args.run!r} is not a sly-scout distill directory with config.json and data/: {e}")
    data = load_data([f for f in files if f.endswith(".npz")])
    rows = feature_rows(data, cfg["game"], cfg["players"])
    common = dict(hidden=tuple(cfg["hidden"]), epochs=args.epochs or cfg["epochs"], lr=cfg["learning_rate"],
                  batch=cfg["batch_size"], temperature=cfg["temperature"], seed=cfg["seed"])
    print(f"{len(data['obs'])} decisions, feature rows {rows.shape[1]} wide, observation {data['obs'].shape[1]}")
    results = {"rows only": fit(rows, data, **common)[-1],
               f"rows and observation ({args.embedding})": fit(rows, data, embedding=args.embedding, **common)[-1]}
    print("\n| inputs | train loss | held-out loss | agreement |\n|---|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['train_loss']:.4f} | {r['val_loss']:.4f} | {r['val_agreement']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
