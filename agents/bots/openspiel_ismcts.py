"""``openspiel_ismcts``: OpenSpiel's own ISMCTS bot, searching our OpenSpiel game.

OpenSpiel's ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (Cowling et al.'s IS-MCTS as
OpenSpiel implements it: one tree keyed by information-state strings, UCT selection, the
evaluator's rollouts) with OpenSpiel's ``RandomRolloutEvaluator`` (uniformly random
rollouts to the end of the game), run on ``python_<game>`` of :mod:`sly_scout_env.openspiel`.
Nothing of the search is ours: only the game it searches and its resampler.

The root is built from ``info["view"]`` alone (:meth:`sly_scout_env.openspiel.CardGame.state_from_view`:
the seat's redacted state dict, hidden cards placed by the game's ``determinize.row_from_view``);
the search draws its worlds with the state's ``resample_from_infostate`` (the game's
determinizer re-deals every card the seat cannot know), so the bot never sees a hidden card.

Parameters:

* ``iterations``: simulations per move (default 100; at least 2, since OpenSpiel's first
  simulation only evaluates the root).
* ``time_limit``: seconds per move (default None). OpenSpiel's ISMCTS has a simulation
  budget only, so each move's budget is sized from this bot's measured seconds per
  simulation on its earlier moves (the first timed move measures a probe of ``PROBE``
  simulations first); ``iterations`` then caps it (``iterations=None``: no cap).
* ``c``: UCT exploration on raw scores (default 3.0: the utilities are points, not values in
  [0, 1]). Measured against ``greedy`` at 100 iterations, 60 games each, head-to-head share
  for c = 1 / 3 / 5 / 10 / 20: Sly 2 players 0.50 / 0.46 / 0.49 / 0.36 / 0.36; Scout 3
  players, one hand, 0.16 / 0.12 / 0.14 / 0.12 / 0.16. Alike from 1 to 5; above, worse in Sly.
* ``rollouts``: random rollouts per evaluation (default 1); ``max_world_samples`` (default -1:
  a fresh world every simulation); ``final``: the move chosen from the root's statistics
  (``"max_visit_count"`` default, ``"normalized_visited_count"``, ``"max_value"``).

Needs the ``openspiel`` extra (``open_spiel``). Much slower per simulation than ``ismcts``
(a Python search over Python states, with rollouts to the end of the whole game):
``benchmarks/openspiel_arena.py`` compares the two at equal iterations and equal time.
"""

from __future__ import annotations

import time

import numpy as np

from sly_scout_env.agents.bots.base import Agent
from sly_scout_env.checks import check_choice, check_int
from sly_scout_env.games import get_game

FINAL_POLICIES = ("max_visit_count", "normalized_visited_count", "max_value")
PROBE = 8  # simulations of the first timed move's probe
MIN_SIMULATIONS = 2


def _openspiel():
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("openspiel_ismcts needs OpenSpiel: pip install 'sly-scout-env[openspiel]' "
                          "(the open_spiel package)") from exc
    from sly_scout_env import openspiel as games

    return pyspiel, ismcts, mcts, games


class OpenSpielISMCTSAgent(Agent):
    """OpenSpiel's ``ISMCTSBot`` on our OpenSpiel game, from the seat's view (module docstring)."""

    name = "openspiel_ismcts"
    needs_view = True

    def __init__(self, game, iterations=100, time_limit=None, c=3.0, rollouts=1, max_world_samples=-1,
                 final="max_visit_count") -> None:
        super().__init__()
        get_game(game)
        self.plays = (game,)
        # OpenSpiel's ISMCTS spends its first simulation on evaluating the root: 2 is the least that chooses.
        self.iterations = check_int("iterations", iterations, lo=MIN_SIMULATIONS, allow_none=time_limit is not None)
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not time_limit > 0):
            raise ValueError(f"time_limit={time_limit!r} is not allowed; allowed values: None or seconds > 0")
        self.time_limit = None if time_limit is None else float(time_limit)
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"c={c!r} is not allowed; allowed values: a number >= 0")
        self.c = float(c)
        self.rollouts = check_int("rollouts", rollouts)
        self.max_world_samples = check_int("max_world_samples", max_world_samples, lo=-1)
        if self.max_world_samples == 0:
            raise ValueError("max_world_samples=0 is not allowed; allowed values: -1 (unlimited) or an int >= 1")
        self.final = check_choice("final", final, FINAL_POLICIES)
        self._pyspiel, self._ismcts, self._mcts, self._games = _openspiel()
        self._game = None
        self._key = None
        self._seconds_per_simulation: float | None = None
        self.last_simulations = 0

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        key = (game, num_players, tuple(sorted(self.options.items())))
        if key != self._key:
            self._game = self._games.load(game, num_players, **self.options)
            self._key = key
        self._random = np.random.RandomState(int(self.rng.integers(2**31)))
        # The worlds: our resampler driven by a seeded pyspiel sampler (ISMCTSBot's default one is not seeded).
        self._sampler = self._pyspiel.UniformProbabilitySampler(int(self.rng.integers(2**31)), 0.0, 1.0)

    def _search(self, state, simulations: int) -> int:
        ismcts = self._ismcts
        bot = ismcts.ISMCTSBot(
            self._game, self._mcts.RandomRolloutEvaluator(self.rollouts, self._random), self.c, simulations,
            max_world_samples=self.max_world_samples, random_state=self._random,
            final_policy_type=ismcts.ISMCTSFinalPolicyType[self.final.upper()])
        bot.set_resampler(lambda s, player: s.resample_from_infostate(player, self._sampler))
        self.last_simulations = simulations
        return int(bot.step(state))

    def act(self, observation, action_mask, info) -> int:
        if self._game is None:
            raise ValueError("OpenSpielISMCTSAgent.act called before reset(); call reset(seed, game=..., ...) first")
        if "view" not in info:
            raise ValueError("openspiel_ismcts needs info['view'] (the acting seat's redacted state dict)")
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 1:
            return int(legal[0])
        state = self._game.state_from_view(info["view"])
        if state.current_player() != self.seat or state.legal_actions() != legal.tolist():
            raise ValueError(f"info['view'] is not seat {self.seat}'s position to move (its legal moves differ "
                             "from the action mask)")
        if self.time_limit is None:
            action = self._search(state, self.iterations)
        else:
            action = self._timed(state)
        if action not in legal:
            raise RuntimeError(f"OpenSpiel's ISMCTS returned action {action}, not legal here")
        return action

    def _timed(self, state) -> int:
        start = time.perf_counter()
        cap = self.iterations
        if self._seconds_per_simulation is None:
            action = self._search(state, PROBE)
            self._seconds_per_simulation = (time.perf_counter() - start) / PROBE
        else:
            action = None
        left = self.time_limit - (time.perf_counter() - start)
        n = int(left / self._seconds_per_simulation)
        if cap is not None:
            n = min(n, cap)
        if n >= MIN_SIMULATIONS and (action is None or n > PROBE):
            t = time.perf_counter()
            action = self._search(state, n)
            # A running mean (moves differ in length of rollouts: the average is what a budget can use).
            self._seconds_per_simulation = 0.8 * self._seconds_per_simulation + 0.2 * (time.perf_counter() - t) / n
        elif action is None:
            action = self._search(state, MIN_SIMULATIONS)
        return action
