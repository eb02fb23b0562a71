"""The ``neural`` bot: a trained policy network stored as a torch-free numpy ``.npz``.

    sly-scout arena scout --players 4 --agents neural,greedy,greedy,greedy --games 1000
    sly-scout arena sly --players 2 --agents neural:path=runs/sly2/final.npz,ismcts --games 300
    sly-scout play sly --players 2 --opponents neural

    from sly_scout_env.agents import make
    bot = make("neural")                          # the shipped checkpoint for the game and count
    bot = make("neural", path="my_run/final.npz")  # a checkpoint of your own

Without ``path`` the bot picks, at ``reset``, the checkpoint shipped in
``sly_scout_env/<game>/checkpoints/`` for the game, player count and observation size (Sly's Hen
House count changes the observation); a count without one is refused with an error that
names the counts that have one. Checkpoints are written by ``sly-scout train`` (next to
``final.zip``) or by ``python -m sly_scout_env.agents.training.export_neural RUN/final.zip OUT.npz``.

The file format and its reader are in :mod:`sly_scout_env.netfile` (shared with the compiled
``neural`` policy of :mod:`sly_scout_env.netpolicy`, which plays the same checkpoints inside
Numba: ``simulate``, the fast learner's opponents, ISMCTS rollouts). The forward pass is
``act(W x + b)`` per hidden layer, then the logits; with a prior, ``W`` is added to the
logit of the prior bot's move in this position (the bot, e.g. ``greedy``, reads the same
observation and mask; agents/training/prior_policy.py explains why). An action scorer (format
version 2, ``inputs: "action_features"``: Scout's per-action features, one logit per legal
action) plays the same way, from the same observation and mask. The bot plays the masked
argmax (``deterministic=False``: a sample from the masked softmax drawn with the bot's own
generator, seeded in ``reset``). One move costs tens of microseconds in numpy. Every check
is made at load time or reset, with an error naming the file and what is wrong (see
``netfile``), and at reset another game, player count or observation size than the table's.
"""

from __future__ import annotations

import json

import numpy as np

from sly_scout_env import netfile
from sly_scout_env.agents.bots.base import Agent
from sly_scout_env.games import get_game
from sly_scout_env.netfile import (  # noqa: F401  (the format's names, re-exported for the bot's users)
    ACTIVATIONS,
    FORMAT,
    FORMAT_VERSION,
    CheckpointError,
    NeuralPolicy,
    shipped,
    shipped_for,
    table_sizes,
)


def load(path) -> NeuralPolicy:
    """:func:`sly_scout_env.netfile.load`, plus: a prior bot must be a registered bot of the game."""
    policy = netfile.load(path)
    prior = policy.prior
    if prior is not None:
        from sly_scout_env.agents.bots.registry import parse_spec, registration

        try:
            plays = policy.game in registration(parse_spec(prior["bot"])[0]).games
        except ValueError as exc:
            raise CheckpointError(f"neural checkpoint {policy.source}: prior bot {prior['bot']!r}: {exc}") from None
        if not plays:
            raise CheckpointError(f"neural checkpoint {policy.source}: prior bot {prior['bot']!r} does not play "
                                  f"{policy.game}")
    return policy


class NeuralAgent(Agent):
    """Plays a neural checkpoint (see the module docstring).

    ``path``: a checkpoint of your own (default: the shipped one for the table, picked at
    reset); ``deterministic`` (default True): masked argmax, else a masked-softmax sample.
    """

    name = "neural"
    needs_view = False  # reads the observation vector and the mask only

    def __init__(self, path: str | None = None, deterministic: bool = True):
        super().__init__()
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic={deterministic!r} is not allowed; give true or false")
        self.path = path
        self.deterministic = deterministic
        self.policy: NeuralPolicy | None = load(path) if path is not None else None
        self._prior = None  # the prior bot of a checkpoint with one (agents/training/prior_policy.py), built in reset

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        if self.path is None:
            self.policy = shipped_for(game, num_players, self.options)
        else:
            self._check_table(game, num_players)
        self._prior = None
        if self.policy.prior is not None:
            from sly_scout_env.agents.bots.registry import make_from_spec

            self._prior = make_from_spec(self.policy.prior["bot"], game=game)
            if getattr(self._prior, "needs_view", True):  # this bot passes on no view: its prior must not need one
                raise CheckpointError(f"the neural checkpoint {self.policy.source}: its prior bot "
                                      f"{self.policy.prior['bot']!r} reads the game view; a prior must read only its "
                                      "observation and mask")
            self._prior.reset(int(self.rng.integers(2**62)), game=game, num_players=num_players, seat=seat,
                              options=self.options)

    def _check_table(self, game, num_players) -> None:
        p = self.policy
        if p.game != game or p.players != num_players:
            raise CheckpointError(f"the neural checkpoint {p.source} was trained on {p.game} with {p.players} players; "
                                  f"this table is {game} with {num_players} players")
        spec_options = {k: v for k, v in self.options.items() if k in get_game(game).option_names}
        size = table_sizes(game, num_players, json.dumps(spec_options, sort_keys=True, default=str))[0]
        if size != p.observation_size:
            raise CheckpointError(f"the neural checkpoint {p.source} expects observations of size {p.observation_size} "
                                  f"(options {p.meta['options']}); this table's options {spec_options} give {size}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int:
        if self.policy is None:
            raise ValueError("NeuralAgent.act called before reset(); call reset(seed, game=..., ...) first")
        return self.policy.act(observation, action_mask, self.deterministic, self.rng,
                               self._prior_action(observation, action_mask, info))

    def logits(self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None) -> np.ndarray:
        """The logits ``act`` chooses from (all actions; the prior bot's move included), float64;
        an action scorer's are -inf off the legal actions.

        ``act`` plays the masked argmax of these (or samples their masked softmax); ISMCTS
        guided by the network (``ismcts:guide=neural``) uses their masked softmax as its prior.
        """
        if self.policy is None:
            raise ValueError("NeuralAgent.logits called before reset(); call reset(seed, game=..., ...) first")
        z = self.policy.logits(observation, action_mask).astype(np.float64)
        prior = self._prior_action(observation, action_mask, info or {})
        if prior is not None:
            z[int(prior)] += self.policy.prior["weight"]
        return z

    def _prior_action(self, observation, action_mask, info):
        return None if self._prior is None else self._prior.act(observation, action_mask, info)
