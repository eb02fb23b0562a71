"""Step 2 of the distillation recipe: fit an action-scoring network to ISMCTS's visits.

The network (the ``action_features`` kind of ``neural`` checkpoint,
:mod:`sly_scout_env.netfile`) maps each legal action's feature row (the game's
``features`` module) to one logit through a small MLP. Trained by plain supervised
learning in torch (this is not an RL algorithm: the cross-entropy between the network's
masked softmax over the legal actions and the teacher's normalised root visits); the
result is saved as a torch-free ``.npz``.

Rows of one decision are contiguous (``offsets``), so a minibatch of decisions is a
block of rows plus a segment index, and the softmax runs per segment
(``scatter_reduce``/``index_add``): no padding to the largest legal-move count.
"""

from __future__ import annotations

import time

import numpy as np

from sly_scout_env.games import get_game


def feature_rows(data: dict, game: str, num_players: int) -> np.ndarray:
    """The feature row of every (decision, legal action) of ``data``
    (sly_scout_env.agents.training.distill.load_data)."""
    feat = get_game(game).module("features")
    obs, off, ids = data["obs"], data["offsets"], data["ids"]
    rows = np.zeros((len(ids), feat.FEATURE_SIZE), dtype=np.float32)
    work = feat.make_work()
    values = np.zeros(int(np.diff(off).max()), dtype=np.int64)
    for i in range(len(obs)):
        a, b = off[i], off[i + 1]
        feat.action_features(obs[i], ids[a:b], b - a, num_players, work, values, rows[a:b])
    return rows


def _targets(data: dict, temperature: float) -> np.ndarray:
    """Per row: the teacher's visit share within its decision (visits ** (1 / temperature))."""
    off = data["offsets"]
    v = data["visits"].astype(np.float64) ** (1.0 / temperature)
    seg = np.repeat(np.arange(len(off) - 1), np.diff(off))
    tot = np.bincount(seg, weights=v, minlength=len(off) - 1)
    tot[tot == 0] = 1.0
    return (v / tot[seg]).astype(np.float32)


def _batch_rows(off: np.ndarray, decisions: np.ndarray):
    """Row indices of ``decisions`` (in order) and each row's position in the batch."""
    lengths = off[decisions + 1] - off[decisions]
    starts = off[decisions]
    seg = np.repeat(np.arange(len(decisions)), lengths)
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    rows = np.repeat(starts, lengths) + (np.arange(lengths.sum()) - first)
    return rows, seg


class Scorer:
    """The MLP (torch) and its conversion to checkpoint arrays."""

    def __init__(self, in_size: int, hidden=(64, 64), activation: str = "ReLU", seed: int = 0):
        import torch
        from torch import nn

        torch.manual_seed(seed)
        act = {"ReLU": nn.ReLU, "Tanh": nn.Tanh}[activation]
        layers, d = [], in_size
        for h in hidden:
            layers += [nn.Linear(d, h), act()]
            d = h
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)
        self.activation = activation
        self.hidden = tuple(hidden)

    def arrays(self) -> tuple[list, tuple]:
        lin = [m for m in self.net if hasattr(m, "weight")]
        layers = [(m.weight.detach().numpy().astype(np.float32), m.bias.detach().numpy().astype(np.float32))
                  for m in lin[:-1]]
        head = (lin[-1].weight.detach().numpy().astype(np.float32), lin[-1].bias.detach().numpy().astype(np.float32))
        return layers, head


def _segment_log_softmax(torch, z, seg, nseg):
    mx = torch.full((nseg,), -1e30, dtype=z.dtype).scatter_reduce(0, seg, z, reduce="amax", include_self=True)
    e = torch.exp(z - mx[seg])
    s = torch.zeros(nseg, dtype=z.dtype).index_add(0, seg, e)
    return z - mx[seg] - torch.log(s[seg])


def fit(rows: np.ndarray, data: dict, *, hidden=(64, 64), epochs: int = 10, lr: float = 1e-3, batch: int = 256,
        temperature: float = 1.0, val_frac: float = 0.1, seed: int = 0, log=print) -> tuple[Scorer, list[dict]]:
    """Fit a :class:`Scorer` to the visit shares; returns it and one record per epoch
    (train loss, held-out loss, held-out agreement with the teacher's most visited move)."""
    import torch

    torch.set_num_threads(1)  # small matmuls: more threads only contend with the collectors and arena workers
    split = heldout_split(len(data["offsets"]) - 1, val_frac, seed)
    model = Scorer(rows.shape[1], hidden, seed=seed)
    X = torch.from_numpy(rows)

    def logits(r, seg, decisions):
        return model.net(X[r]).squeeze(1)

    history = train_scorer(logits, list(model.net.parameters()), data, split, epochs=epochs, lr=lr, batch=batch,
                           temperature=temperature, log=log)
    return model, history


def heldout_split(n: int, val_frac: float, seed: int):
    """``(rng, val, train)``: the held-out decisions (sorted) and the training ones, from ``seed``;
    ``rng`` then shuffles the training decisions every epoch."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_val = int(n * val_frac)
    return rng, np.sort(perm[:n_val]), perm[n_val:]


def train_scorer(logits, parameters, data: dict, split, *, epochs: int, lr: float, batch: int, temperature: float,
                 log=print, name: str = "") -> list[dict]:
    """Adam on ``parameters`` to the cross-entropy between the masked softmax of
    ``logits(rows, seg, decisions)`` (torch tensors: one logit per feature row of ``decisions``,
    in order) and the teacher's visit shares at ``temperature``; ``split`` from
    :func:`heldout_split`. One record per epoch (train loss, held-out loss, held-out agreement)."""
    import torch

    off = data["offsets"]
    target = _targets(data, temperature)
    T = torch.from_numpy(target)
    rng, val, train = split
    opt = torch.optim.Adam(parameters, lr=lr)

    def forward(decisions):
        r, seg = _batch_rows(off, decisions)
        sg = torch.from_numpy(seg)
        z = logits(r, sg, torch.from_numpy(decisions))
        return r, z, _segment_log_softmax(torch, z, sg, len(decisions))

    def evaluate(decisions):
        with torch.no_grad():
            r, z, lp = forward(decisions)
            loss = float(-(T[r] * lp).sum() / len(decisions))
        zn = z.numpy()
        tn = target[r]
        # agreement: the network's argmax is (one of) the teacher's most visited moves
        agree = 0
        bounds = np.concatenate([[0], np.cumsum(off[decisions + 1] - off[decisions])])
        for i in range(len(decisions)):
            a, b = bounds[i], bounds[i + 1]
            agree += tn[a + int(np.argmax(zn[a:b]))] >= tn[a:b].max() - 1e-6
        return loss, agree / max(len(decisions), 1)

    history = []
    t0 = time.monotonic()
    for epoch in range(epochs):
        rng.shuffle(train)
        total = 0.0
        for k in range(0, len(train), batch):
            d = train[k : k + batch]
            r, _, lp = forward(d)
            loss = -(T[r] * lp).sum() / len(d)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(d)
        vloss, vagree = evaluate(val) if len(val) else (float("nan"), float("nan"))
        rec = {"epoch": epoch + 1, "train_loss": total / len(train), "val_loss": vloss, "val_agreement": vagree,
               "seconds": round(time.monotonic() - t0, 1)}
        history.append(rec)
        log(f"{name}epoch {rec['epoch']}: train loss {rec['train_loss']:.4f}, held-out loss {vloss:.4f}, "
            f"agreement with the teacher {vagree:.3f} ({rec['seconds']} s)")
    return history
