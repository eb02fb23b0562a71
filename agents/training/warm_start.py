"""Behaviour-cloning warm start: teach a MaskablePPO policy a teacher bot's moves before PPO.

    sly-scout train scout --players 4 --fast --opponents greedy --self-play 0 \
        --warm-start greedy --warm-start-samples 400000 ...

PPO from scratch does not find Scout's hand management in the budget of these machines
(docs/experiments/scout.md): the untrained policy loses almost every game to ``greedy``, so the
win/loss reward is nearly always -1 and carries little signal. Starting from a copy of a
good teacher turns the problem into improving on that teacher.

How (``pretrain(model, cfg)``):

1. **Data.** ``cfg.n_envs`` games on the fast batched engine
   (:class:`sly_scout_env.sb3_vec.SingleAgentVecEnv`, the compiled ``--opponents`` policy
   at every other seat, learner seat rotating, ``cfg.reward``) are played with the
   teacher (any registered bot that reads only its observation and mask,
   ``needs_view = False``, e.g. ``greedy``) in the learner's seat, until
   ``samples`` learner decisions are recorded: observation, legal mask, teacher action,
   and the discounted return (``cfg.gamma``) that followed, for the value head.
2. **Fit.** The policy's actor and critic are trained together with Adam on
   cross-entropy of the teacher's action under the masked softmax plus
   ``0.5 * MSE(value, return)``, ``epochs`` passes in minibatches of 1024 (a tenth of the
   data is held out; its accuracy is logged). The critic matters: PPO's first updates
   from a random critic would undo much of the cloned policy.

This is plain supervised learning on SB3's own policy object (``evaluate_actions``),
which is what the ``imitation`` library's BC does; ``imitation`` is not used because
its latest release (1.0.1) pins ``gymnasium~=0.29`` and ``stable-baselines3~=2.2.1``,
older than this project's Gymnasium 1.x and SB3 2.9 (checked with ``pip install --dry-run``).
The teacher plays as the learner, so the states are those of the teacher's own games
(no DAgger rounds: the clone is then refined by PPO on its own games).
"""

from __future__ import annotations

import time

import numpy as np

BATCH = 1024
BC_LEARNING_RATE = 1e-3  # the fit's Adam step (PPO's own learning rate may be much smaller for fine-tuning)


def collect(cfg, teacher: str, samples: int, seed: int, log=print) -> dict:
    """Teacher games on the batched engine: ``{"obs", "masks", "actions", "returns"}`` arrays."""
    from sly_scout_env.agents.bots.registry import make_from_spec
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    venv = SingleAgentVecEnv(cfg.game, cfg.n_envs, opponents=cfg.opponents[0], learner_seat="rotate",
                             reward=cfg.reward, seed=seed, num_players=cfg.players, **cfg.options)
    n = venv.num_envs
    bots = []
    for i in range(n):
        bot = make_from_spec(teacher, game=cfg.game)
        if getattr(bot, "needs_view", True):
            raise ValueError(f"warm_start={teacher!r}: the teacher must read only its observation and mask "
                             "(a bot with needs_view = False, e.g. greedy)")
        bot.reset(seed * 1_000_003 + i, game=cfg.game, num_players=cfg.players, seat=0, options=dict(cfg.options))
        bots.append(bot)
    steps = -(-samples // n)
    D, A = venv.observation_space.shape[0], venv.action_space.n
    obs_buf = np.zeros((steps, n, D), dtype=np.float32)
    mask_buf = np.zeros((steps, n, A), dtype=np.bool_)
    act_buf = np.zeros((steps, n), dtype=np.int64)
    rew_buf = np.zeros((steps, n), dtype=np.float32)
    done_buf = np.zeros((steps, n), dtype=np.bool_)
    obs = venv.reset()
    t0 = time.perf_counter()
    for t in range(steps):
        masks = venv.action_masks()
        acts = np.array([bots[i].act(obs[i], masks[i], {}) for i in range(n)], dtype=np.int64)
        obs_buf[t], mask_buf[t], act_buf[t] = obs, masks, acts
        obs, rew, done, _ = venv.step(acts)
        rew_buf[t], done_buf[t] = rew, done
    # Discounted returns; a game still running at the end is cut there (its tail bootstraps 0).
    ret = np.zeros((steps, n), dtype=np.float32)
    running = np.zeros(n, dtype=np.float32)
    for t in range(steps - 1, -1, -1):
        running = rew_buf[t] + cfg.gamma * running * (~done_buf[t])
        ret[t] = running
    log(f"warm start: {steps * n} {teacher} decisions from {int(done_buf.sum())} games in "
        f"{time.perf_counter() - t0:.1f} s")
    return {"obs": obs_buf.reshape(-1, D), "masks": mask_buf.reshape(-1, A), "actions": act_buf.reshape(-1),
            "returns": ret.reshape(-1)}


def fit(policy, data: dict, epochs: int, learning_rate: float, seed: int, log=print) -> dict:
    """Supervised fit of a MaskableActorCriticPolicy on teacher data; returns held-out metrics."""
    import torch

    gen = np.random.default_rng(seed)
    m = data["actions"].shape[0]
    order = gen.permutation(m)
    hold = order[: max(1, m // 10)]
    train = order[max(1, m // 10):]
    tensors = {k: torch.as_tensor(v) for k, v in data.items()}
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    t0 = time.perf_counter()
    metrics = {}
    for epoch in range(epochs):
        gen.shuffle(train)
        for s in range(0, train.size, BATCH):
            idx = torch.as_tensor(train[s:s + BATCH])
            values, log_prob, _ = policy.evaluate_actions(tensors["obs"][idx], tensors["actions"][idx],
                                                          action_masks=tensors["masks"][idx])
            loss = -log_prob.mean() + 0.5 * torch.mean((values.flatten() - tensors["returns"][idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
        metrics = _held_out(policy, tensors, hold)
        log(f"warm start: epoch {epoch + 1}/{epochs}  held-out accuracy {metrics['accuracy']:.3f}  "
            f"value MSE {metrics['value_mse']:.3f}  ({time.perf_counter() - t0:.0f} s)")
    policy.set_training_mode(False)
    return metrics


def _held_out(policy, tensors, hold) -> dict:
    import torch

    policy.set_training_mode(False)
    hits, se = 0, 0.0
    with torch.no_grad():
        for s in range(0, hold.size, 8192):
            idx = torch.as_tensor(hold[s:s + 8192])
            obs = tensors["obs"][idx]
            dist = policy.get_distribution(obs, action_masks=tensors["masks"][idx].numpy())
            pred = dist.distribution.probs.argmax(dim=1)
            hits += int((pred == tensors["actions"][idx]).sum())
            se += float(((policy.predict_values(obs).flatten() - tensors["returns"][idx]) ** 2).sum())
    policy.set_training_mode(True)
    return {"accuracy": hits / hold.size, "value_mse": se / hold.size}


def pretrain(model, cfg, log=print) -> dict | None:
    """Warm-start ``model``'s policy from ``cfg.warm_start`` (a bot spec) when it is set."""
    if not cfg.warm_start:
        return None
    data = collect(cfg, cfg.warm_start, cfg.warm_start_samples, cfg.seed + 7919, log=log)
    return fit(model.policy, data, cfg.warm_start_epochs, BC_LEARNING_RATE, cfg.seed, log=log)
