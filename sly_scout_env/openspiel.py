"""Both games as OpenSpiel games: ``python_scout`` and ``python_sly``.

    import pyspiel
    import sly_scout_env.openspiel  # registers every game of the registry with OpenSpiel
    game = pyspiel.load_game("python_scout(players=4)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)

Needs the ``openspiel`` extra (``pip install "sly-scout-env[openspiel]"``: ``open_spiel``).
The page ``docs/openspiel.md`` is the guide; this docstring is the reference.

Every game of :mod:`sly_scout_env.games` is registered as ``python_<name>`` by one loop over
the registry (nothing here names a game): a game needs its ``bounds`` role (how long a game
can last, how far a score can go) and uses its ``search`` role, when it has one, for what
the other seats see of a move and for resampling.

A state is the game's compiled row (no second rules engine): legal moves are
``rules.legal_actions``, a move is ``rules.apply_action``, the words of a move are the env's
``action_to_str``, the observation is ``observation.encode_observation`` and the utilities
are the env's ``reward="score"`` totals (``_k_points``).

Parameters
----------
``players`` (the game's default count) and each rule option of the game's spec, with the
env's defaults. OpenSpiel parameters are typed (bool, int, string) and have no ``None``, so
an option's values are spelled by their kind: an option of booleans is a bool; an option of
ints (``None`` allowed) is an int with ``0`` standing for ``None`` (Scout ``rounds=0``: the
official count; Sly ``hen_houses=0``: by the player count); an option mixing ints and
strings is a string holding the value's text (Sly ``first_player=random``; its default
``"0"``, seat 0; in a game string an explicit ``first_player=0`` reads as an int and
OpenSpiel refuses it: leave it out). And ``max_steps`` (default :data:`DEFAULT_MAX_STEPS`):
the game ends, terminal, after this many player moves, as the env with ``max_steps``
truncates (see Length). An unknown parameter or one of the wrong type gets OpenSpiel's own
error ("Unknown parameter 'x'. Available parameters are: ..."); a value the game does not
allow raises :class:`ParameterError` (a ``pyspiel.SpielError`` and a ``ValueError``) naming
the value and what is allowed, before any game is built.

Game type
---------
Sequential, imperfect information, general-sum, terminal rewards (the utilities are the
final scores: the sum of the env's ``reward="score"`` rewards), explicit stochastic: the
deals are chance nodes (below). An instance whose rules never draw (Sly with
``first_player=0``: every card starts in its owner's hand) has no chance node and reports
itself deterministic (``max_chance_outcomes = 0``); the registered type of such a game says
explicit stochastic, since some of its parameters draw. Provided: the information-state
string, the observation string and tensor; not the information-state tensor (see below).

Chance: one deal = :data:`SEED_DIGITS` chance nodes
--------------------------------------------------
A deal is drawn from a seed of ``SEED_DIGITS`` (4) digits in base :data:`SEED_BASE` (256),
one chance node per digit, most significant first, each digit uniform: a seed uniform in
``[0, 2**32)``, dealt exactly as the env deals it (``_rng.seed_word(seed)`` seeds the row's
generator). So ``max_chance_outcomes = 256`` and the chance outcomes of the first deal are
the env's seed: the digits of ``seed`` (:func:`seed_digits`) reproduce ``env.reset(seed=seed)``
card for card. Where a deal happens is found, not named: the rules draw from the row's
generator (``rules.RNG``) only to deal, so a move after which the generator word changed
dealt; that move becomes a chance point: the position before it is kept, the seed digits
follow as chance nodes, then the move is applied again on a generator seeded from the new
seed. Scout: a game starts with a deal and every round after the first deals anew (2
players: every other round, the second of a pair plays the set-aside half, no chance);
Sly: a chance start only with ``first_player="random"``. A chance node's observation still
shows the table before the move that ended the round. Every deal is one of ``2**32``
(a seat's own cards would, in principle, tell a computationally unbounded player which
one: the same holds of any pseudo-random deal, the env's included; the resampler below
assumes nothing of the kind and deals every consistent hand).

A later deal's seed is fresh (the env instead continues its generator): to replay a game
of this OpenSpiel game in the env, set the env's generator word to ``seed_word(seed)``
before the step that deals (:meth:`CardGameState.state_dict` does that, and the lockstep
tests).

Length and utilities
--------------------
``max_game_length`` counts player moves: the game's ``bounds.max_moves`` when the rules
bound it (Scout 2 players: 36 a round), capped by ``max_steps``; both games can otherwise
go on for ever (Scout 3-5 players: Show / Scout cycles on an emptied set; Sly: Fox-only
Reveals; the bounds modules give the cycles), so there it is ``max_steps``. A game stopped
by the cap is terminal with the points paid so far (the env's ``reward="score"`` under
``max_steps``: Scout the finished rounds, Sly nothing); ``min_utility`` / ``max_utility``
are the game's ``bounds.score_bounds`` for that length (sound bounds from the rules).

Observations and information states
-----------------------------------
Through OpenSpiel's observer API (``make_py_observer``). The default observation (public +
the seat's private information, no recall): tensor = the env's observation vector of that
seat (``observe(agent)["observation"]``, same encoder); string = the env's table as that seat
sees it (``text.render_text(row, seat, ...)``; Scout's past round scores are not in it).

The information state (perfect recall) string: ``"player P | moves M | recall H"``, where H
is a 128-bit BLAKE2 digest chained over everything the seat has seen: after every move (and
every completed deal) the digest absorbs who moved, the move as that seat saw it (its own
moves by id; another seat's by the game's ``search`` edge key: Scout's hidden flip decision,
Sly's face-down card are hidden, the rest by id) and the seat's whole observation vector
after the move. Two histories give the same string iff the seat saw the same sequence
(up to a 2**-128 collision), which the current observation alone is not (it forgets, e.g.,
which cards earlier Shows played). No information-state tensor: a faithful one would hold
the whole sequence (thousands of moves), so ``provides_information_state_tensor`` is False;
learners should read the observation tensor, as the env's do.

Resampling (ISMCTS)
-------------------
``state.resample_from_infostate(player, sampler)`` builds the seat's redacted view
(:func:`sly_scout_env.views.player_view` of the state dict, which this module gets by
replaying the state's history in the env), rebuilds a row from the view alone
(``determinize.row_from_view``) and re-deals every card the seat cannot know with the
game's determinizer (``search.SearchAdapter.determinize``), its generator seeded from two
draws of ``sampler``. The result has the seat's information-state string (the searching
seat's recall digest; another seat's is derived from it and only keys that seat's nodes
in a search) and no history of its own (``history()`` is empty). :meth:`CardGame.state_from_view`
builds a state from a view (a bot's root, never from hidden cards); such a state and its
resamples resample for the view's seat only.

Serialization is OpenSpiel's for Python games (the history plus the pickled state fields),
so ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` round-trip any state.

Helpers
-------
:func:`load` (``load("scout", 4, rounds=None)``: the env's option names and values) and
:func:`params_for` (the same as OpenSpiel parameters); :func:`seed_digits` /
:func:`seed_of_digits` (a deal's chance outcomes and its env seed); on a state, ``row``,
``state_dict()`` and ``player_view(seat)`` (the env's, by replay); :func:`lockstep` plays a
random game through an OpenSpiel state and the raw env side by side and checks they agree
(the tests and ``benchmarks/openspiel_speed.py`` use it).

A game's ``bounds`` role (``sly_scout_env/<game>/bounds.py``): ``max_moves(options)`` (the
longest game the rules allow, None if unbounded) and ``score_bounds(options, max_moves)``
(sound bounds on every seat's score), each derived from the rules in its docstring.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from ._rng import seed_word
from .games import GameSpec, Option, all_games, get_game
from .views import player_view

__all__ = [
    "DEFAULT_MAX_STEPS", "SEED_BASE", "SEED_DIGITS", "MAX_SEED", "ParameterError", "IllegalActionError",
    "CardGame", "CardGameState", "GAMES", "game_name", "params_for", "load", "seed_digits", "seed_of_digits",
    "lockstep",
]

PREFIX = "python_"
SEED_DIGITS = 4
SEED_BASE = 256
MAX_SEED = SEED_BASE**SEED_DIGITS  # seeds of a deal: [0, 2**32)
# The default cap on player moves (parameter max_steps). Random play ends far below it at
# every count (measured over 300 random games each: at most 1066 moves, Scout at 5 players).
DEFAULT_MAX_STEPS = 10_000
# The edge key of a move whose detail a seat is not told (a game without a search role).
_UNSEEN = -(2**62)
_START = -1  # the pending "move" of a game's first deal


class ParameterError(pyspiel.SpielError, ValueError):
    """A game parameter with a value the game does not allow (the message names both)."""


class IllegalActionError(pyspiel.SpielError, ValueError):
    """An action that is not legal in the state it is applied to (the message names the legal ones)."""


def seed_digits(seed: int) -> list[int]:
    """The chance outcomes (most significant digit first) that deal as ``env.reset(seed=seed)``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < MAX_SEED:
        raise ValueError(f"seed={seed!r} is not allowed; allowed values: an int in [0, {MAX_SEED})")
    return [(int(seed) // SEED_BASE**(SEED_DIGITS - 1 - i)) % SEED_BASE for i in range(SEED_DIGITS)]


def seed_of_digits(digits) -> int:
    """The seed spelled by ``SEED_DIGITS`` chance outcomes (inverse of :func:`seed_digits`)."""
    seed = 0
    for d in digits:
        seed = seed * SEED_BASE + int(d)
    return seed


# -- parameters ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Param:
    """One rule option as an OpenSpiel parameter (see the module docstring, Parameters)."""

    option: Option
    kind: str  # "bool", "int" (0 = None) or "str" (the value's text)

    @staticmethod
    def of(option: Option) -> _Param:
        values = option.choices
        if values is not None and all(isinstance(v, bool) for v in values):
            return _Param(option, "bool")
        if values is None or all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values):
            if values is not None and 0 in values:
                raise TypeError(f"option {option.name!r}: 0 is a value, so it cannot stand for None")
            return _Param(option, "int")
        for v in values:
            if v != option.default and _reads_as_other_type(str(v)):
                raise TypeError(f"option {option.name!r}: the value {v!r} would not survive OpenSpiel's game "
                                "string as a string")
        return _Param(option, "str")

    def spell(self, value):
        """The OpenSpiel spelling of the env's ``value``."""
        if self.kind == "int":
            return 0 if value is None else int(value)
        if self.kind == "str":
            return str(value)
        return bool(value)

    @property
    def default(self):
        return self.spell(self.option.default)

    def allowed(self) -> str:
        o = self.option
        if self.kind == "int" and o.choices is None:
            return "0 (None: the default) or an int >= 1"
        if o.choices is None:
            return "any"
        words = [f"{self.spell(v)!r} (None)" if v is None else repr(self.spell(v)) for v in o.choices]
        return ", ".join(words)

    def value(self, given):
        """The env's value for the OpenSpiel value ``given``; ParameterError naming both if none."""
        o = self.option
        if self.kind == "int" and isinstance(given, int) and not isinstance(given, bool):
            if given == 0 and (o.choices is None or None in o.choices):
                return None
            if (o.choices is None and given >= 1) or (o.choices is not None and given in o.choices):
                return int(given)
        elif self.kind == "str" and isinstance(given, str):
            for v in o.choices:
                if str(v) == given:
                    return v
        elif self.kind == "bool" and isinstance(given, bool):
            return given
        raise ParameterError(f"{o.name}={given!r} is not allowed; allowed values: {self.allowed()}")


def _reads_as_other_type(text: str) -> bool:
    """Whether OpenSpiel's game-string parser reads ``text`` as something else than a string."""
    return (text in ("True", "true", "False", "false") or text.endswith(")")
            or (text != "" and all(c in "+-0123456789." for c in text)))


def _stored(params: dict) -> dict:
    """The parameters a game keeps (its ``ToString``): all but a string default that would read back
    as a number (Sly's ``first_player="0"``), so that the game string loads again."""
    return {k: v for k, v in params.items() if not (isinstance(v, str) and _reads_as_other_type(v))}


def _params(spec: GameSpec) -> dict[str, _Param]:
    return {o.name: _Param.of(o) for o in spec.options}


def game_name(spec_or_name) -> str:
    """The OpenSpiel short name of a game of the registry (``python_<name>``)."""
    spec = spec_or_name if isinstance(spec_or_name, GameSpec) else get_game(spec_or_name)
    return PREFIX + spec.name


def params_for(game: str, num_players: int | None = None, *, max_steps: int | None = None, **options) -> dict:
    """The OpenSpiel parameters of the env ``get_game(game).raw_env(num_players=..., **options)``."""
    spec = get_game(game)
    out: dict[str, Any] = {"players": spec.default_players if num_players is None else num_players}
    table = _params(spec)
    for name, value in options.items():
        if name not in table:
            raise ParameterError(f"unknown option {name!r} for {spec.name}; allowed options: "
                                 f"{', '.join(table)}")
        out[name] = table[name].spell(value)
    if max_steps is not None:
        out["max_steps"] = max_steps
    return out


def load(game: str, num_players: int | None = None, *, max_steps: int | None = None, **options):
    """``pyspiel.load_game`` of the registry's ``game`` with the env's options (``None`` spelled as the env)."""
    return pyspiel.load_game(game_name(game), params_for(game, num_players, max_steps=max_steps, **options))


# -- one game instance: everything its states share ------------------------------------------
def _digest(*parts: bytes) -> bytes:
    return hashlib.blake2b(b"".join(parts), digest_size=16).digest()


class _Context:
    """The parts of one game instance (its parameters fixed) that its states share.

    Never stored in a state's ``__dict__`` (OpenSpiel deep-copies that on every clone and
    pickles it to serialize): the states reach it as a class attribute.
    """

    def __init__(self, spec: GameSpec, params: dict) -> None:
        self.spec = spec
        table = _params(spec)
        known = sorted(["players", "max_steps", *table])
        unknown = sorted(set(params) - set(known))
        if unknown:  # (load_game refuses these itself; a game built directly from a dict comes here)
            raise ParameterError(f"Unknown parameter {unknown[0]!r}. Available parameters are: {', '.join(known)}")
        self.params = {"players": spec.default_players, "max_steps": DEFAULT_MAX_STEPS,
                       **{name: p.default for name, p in table.items()}, **dict(params)}
        try:
            n = spec.check_players(self.params["players"], name="players")
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        max_steps = self.params["max_steps"]
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ParameterError(f"max_steps={max_steps!r} is not allowed; allowed values: an int >= 1")
        env_options = {name: table[name].value(self.params[name]) for name in table}
        self.R = spec.module("rules")
        self.encode = spec.module("observation").encode_observation
        self.text = spec.module("text")
        self.determinize = spec.module("determinize")
        bounds = spec.optional_module("bounds")
        if bounds is None:
            raise ParameterError(f"{spec.name} has no bounds role (sly_scout_env/{spec.name}/bounds.py), "
                                 "which an OpenSpiel game needs")
        try:
            self.env = spec.raw_env(num_players=n, **env_options)  # the env's own checks too
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        self.env.reset(seed=0)
        self.replay_env = spec.raw_env(num_players=n, **env_options)
        self.options = dict(self.env.options)  # resolved (rules.parse_options)
        self.env_options = env_options
        self.n = n
        self.max_steps = int(max_steps)
        self.num_actions = int(self.env.num_actions)
        self.obs_size = int(self.env.observation_size)
        search = spec.optional_module("search")
        self.adapter = None
        if search is not None:
            kw = {"prune": False} if "prune" in search.SearchAdapter.PARAMS else {}  # every legal move keyed
            self.adapter = search.SearchAdapter(n, self.options, **kw)
        R = self.R
        self.CP, self.PHASE, self.OVER, self.RNG = R.CURRENT_PLAYER, R.PHASE, R.PHASE_GAME_OVER, R.RNG
        self.scratch = R.make_scratch()
        size = max(int(R.MAX_ACTIONS), int(R.SCRATCH_SIZE))
        self.legal_buf = np.zeros(size, dtype=np.int64)
        self.keys_buf = np.zeros(size, dtype=np.int64)
        self.obs = np.zeros(self.obs_size, dtype=np.float32)
        self.points = np.zeros(n, dtype=np.float64)
        self.rng_word = np.zeros(1, dtype=np.int64)
        # The history object of the codec for a game with no round finished (Scout: ([], [])).
        self.empty_history = spec.module("codec").dict_to_state(self.env.state_dict(), self.env._state)[1]
        # Does the start draw from the generator? (Sly with first_player=0 does not: no chance at all.)
        probe = R.new_state(**self.options)
        word = seed_word(0)
        R.reset(probe, word)
        self.start_chance = bool(probe[self.RNG] != word)
        # The rules draw from the generator only to deal, and a game that draws nothing at the start
        # draws nothing later (true of both games); a state that ever does is refused (_apply_action).
        self.stochastic = self.start_chance
        natural = bounds.max_moves(self.options)
        self.max_game_length = self.max_steps if natural is None else min(int(natural), self.max_steps)
        lo, hi = bounds.score_bounds(self.options, self.max_game_length)
        self.game_type = _game_type(spec, self.stochastic)
        self.game_info = pyspiel.GameInfo(
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=SEED_BASE if self.stochastic else 0,
            num_players=n,
            min_utility=float(lo),
            max_utility=float(hi),
            utility_sum=None,
            max_game_length=self.max_game_length,
        )
        self.chance_outcomes = [(d, 1.0 / SEED_BASE) for d in range(SEED_BASE)]
        # A new game's fields (a clone overwrites them, so they are built once).
        self.initial_row = R.new_state(**self.options)
        self.initial_recall = tuple(_digest(b"start", struct.pack("<q", s)) for s in range(n))
        if not self.start_chance:
            R.reset(self.initial_row, word)
            self.initial_recall = self.recall_after(self.initial_row, self.initial_recall, -1, -1, -1)

    # -- shared helpers (each leaves the shared buffers as scratch) ---------------------------------
    def legal(self, row) -> np.ndarray:
        n = self.R.legal_actions(row, self.scratch)
        if n < 0:
            raise RuntimeError(f"{self.spec.name} engine error {n} while listing legal moves")
        return self.scratch[:n]

    def public_key(self, row, actor: int, action: int) -> int:
        """What every other seat sees of ``actor``'s ``action`` (the search role's edge key)."""
        if self.adapter is None or self.n < 2:
            return _UNSEEN
        m = self.adapter.edge_keys(row, (actor + 1) % self.n, self.legal_buf, self.keys_buf)
        hit = np.flatnonzero(self.legal_buf[:m] == action)
        return int(self.keys_buf[hit[0]]) if len(hit) else _UNSEEN

    def recall_after(self, row, recall: tuple, actor: int, action: int, key: int) -> tuple:
        """Each seat's recall digest after a move (``actor`` -1: a deal), from its observation of ``row``."""
        out = []
        obs = self.obs
        for s in range(self.n):
            self.encode(row, s, obs)
            seen = action if s == actor else key
            out.append(_digest(recall[s], struct.pack("<qq", actor, seen), obs.tobytes()))
        return tuple(out)

    def points_of(self, row) -> list[float]:
        """The env's ``reward="score"`` totals paid so far in ``row`` (its ``_k_points`` hook)."""
        self.env._state[:] = row
        self.env._k_points(self.points)
        return [float(x) for x in self.points]

    def action_words(self, row, action: int) -> str:
        self.env._state[:] = row
        return self.env.action_to_str(int(action))


def _game_type(spec: GameSpec, stochastic: bool) -> pyspiel.GameType:
    T = pyspiel.GameType
    params = {"players": spec.default_players, "max_steps": DEFAULT_MAX_STEPS,
              **{name: p.default for name, p in _params(spec).items()}}
    return T(
        short_name=game_name(spec),
        long_name=f"{spec.title} (sly-scout-env, compiled rules)",
        dynamics=T.Dynamics.SEQUENTIAL,
        chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if stochastic else T.ChanceMode.DETERMINISTIC,
        information=T.Information.IMPERFECT_INFORMATION,
        utility=T.Utility.GENERAL_SUM,
        reward_model=T.RewardModel.TERMINAL,
        max_num_players=max(spec.player_counts),
        min_num_players=min(spec.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=params,
        default_loadable=True,
    )


# -- the game ----------------------------------------------------------------------------------------
class CardGame(pyspiel.Game):
    """One game of the registry as an OpenSpiel game (a subclass per game sets ``spec``)."""

    spec: GameSpec

    def __init__(self, params=None) -> None:
        ctx = _Context(self.spec, params or {})
        super().__init__(ctx.game_type, ctx.game_info, _stored(ctx.params))
        self._ctx = ctx
        self._state_cls = type(f"{self.spec.title}State", (CardGameState,), {"_ctx": ctx})

    def new_initial_state(self) -> CardGameState:
        return self._state_cls(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        t = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if not (t.public_info and t.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"observation type {t} is not provided; provided: the default observation "
                             "(perfect_recall=False) and the information state (perfect_recall=True), "
                             "both public + single-player private information")
        return _InfoStateObserver(self._ctx) if t.perfect_recall else _Observer(self._ctx)

    @property
    def options(self) -> dict:
        """The env's options of this game (``num_players`` and the rule options, resolved)."""
        return dict(self._ctx.options)

    def state_from_view(self, view: dict) -> CardGameState:
        """A state built from a seat's redacted view (``info["view"]``) alone, for search.

        The hidden cards are placed by ``determinize.row_from_view`` (from the view only);
        the state resamples for the view's seat (``view["viewer"]``) only. It knows no move
        history: its recall digests start from the view, its move count from 0.
        """
        ctx = self._ctx
        if not isinstance(view, dict) or view.get("game") != ctx.spec.name or "viewer" not in view:
            raise ValueError(f"view must be a {ctx.spec.name} player view (sly_scout_env.views.player_view)")
        if view.get("num_players") != ctx.n:
            raise ValueError(f"view field 'num_players'={view.get('num_players')!r} does not match this game "
                             f"(players={ctx.n})")
        for name in ctx.spec.option_names:
            if name in view and view[name] != ctx.options[name]:
                raise ValueError(f"view field {name!r}={view[name]!r} does not match this game ({name}="
                                 f"{ctx.options[name]!r})")
        seat = int(view["viewer"])
        text = json.dumps(view, sort_keys=True)
        row = ctx.determinize.row_from_view(view)
        state = self.new_initial_state()
        mine = _digest(b"view", text.encode())
        state._row = row
        state._pending = None
        state._digits = ()
        state._steps = 0
        state._recall = tuple(mine if s == seat else _digest(mine, struct.pack("<q", s)) for s in range(ctx.n))
        state._view = (seat, text, row.copy())
        state._cache = None
        return state


class CardGameState(pyspiel.State):
    """A position of a :class:`CardGame`: the compiled row plus the bookkeeping of chance and recall.

    Fields (all in ``__dict__``, which OpenSpiel copies on clone and pickles to serialize):
    ``_row`` the game's int64 row (before the move awaiting its deal, while one is pending);
    ``_pending`` None, or the move (``-1``: the start) whose deal the chance nodes are drawing,
    with ``_pending_actor`` / ``_pending_key``; ``_digits`` the seed digits drawn so far;
    ``_steps`` player moves so far; ``_recall`` each seat's recall digest; ``_view`` (seat,
    view JSON, row) for a state built from a view; ``_cache`` the last view built by replay.
    """

    _ctx: _Context

    def __init__(self, game) -> None:
        super().__init__(game)
        ctx = self._ctx
        self._row = ctx.initial_row.copy()
        self._pending = _START if ctx.start_chance else None
        self._pending_actor = -1
        self._pending_key = _UNSEEN
        self._digits = ()
        self._steps = 0
        self._recall = ctx.initial_recall
        self._view = None
        self._cache = None

    # -- OpenSpiel API --------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self._pending is not None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self._row[self._ctx.CP])

    def is_terminal(self) -> bool:
        ctx = self._ctx
        return self._pending is None and (self._row[ctx.PHASE] == ctx.OVER or self._steps >= ctx.max_steps)

    def _legal_actions(self, player) -> list[int]:
        return self._ctx.legal(self._row).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._ctx.chance_outcomes) if self._pending is not None else []

    def _apply_action(self, action) -> None:
        ctx = self._ctx
        action = int(action)
        if self._pending is not None:
            if not 0 <= action < SEED_BASE:
                raise IllegalActionError(f"chance outcome {action} is illegal; legal outcomes: 0..{SEED_BASE - 1} "
                                         f"(a digit of the deal's seed)")
            self._digits += (action,)
            if len(self._digits) == SEED_DIGITS:
                self._deal(seed_word(seed_of_digits(self._digits)))
            return
        if self.is_terminal():
            raise IllegalActionError(f"action {action} applied to a finished game (no legal actions)")
        row = self._row
        legal = ctx.legal(row)
        if not (legal == action).any():
            mask = np.zeros(ctx.num_actions, dtype=np.int8)
            mask[legal] = 1
            from ._aec import legal_actions_text

            words = ctx.action_words(row, action) if 0 <= action < ctx.num_actions else "out of range"
            raise IllegalActionError(
                f"action {action} ({words}) is illegal for player {int(row[ctx.CP])} now; legal actions: "
                f"{legal_actions_text(mask)} (of [0, {ctx.num_actions}))")
        actor = int(row[ctx.CP])
        key = ctx.public_key(row, actor, action)
        before = row.copy()
        if ctx.R.apply_action(row, action, ctx.scratch) != 0:
            self._row = before
            raise RuntimeError(f"{ctx.spec.name} engine error applying action {action}")
        self._steps += 1
        if row[ctx.RNG] != before[ctx.RNG] and row[ctx.PHASE] != ctx.OVER and self._steps < ctx.max_steps:
            if not ctx.stochastic:
                raise RuntimeError(f"{ctx.spec.name} drew from its deal generator in a game built as deterministic")
            # The move dealt: keep the position before it and draw the deal's seed first.
            self._row = before
            self._pending, self._pending_actor, self._pending_key = action, actor, key
            self._digits = ()
            return
        self._recall = ctx.recall_after(row, self._recall, actor, action, key)

    def _deal(self, word: int) -> None:
        ctx = self._ctx
        row = self._row
        if self._pending == _START:
            ctx.R.reset(row, word)
            self._recall = ctx.recall_after(row, self._recall, -1, -1, -1)
        else:
            before = row.copy()
            row[ctx.RNG] = word
            if ctx.R.apply_action(row, self._pending, ctx.scratch) != 0 or row[ctx.RNG] == word:
                self._row = before
                raise RuntimeError(f"{ctx.spec.name}: replaying move {self._pending} did not deal")
            self._recall = ctx.recall_after(row, self._recall, self._pending_actor, self._pending, self._pending_key)
        self._pending, self._pending_actor, self._pending_key = None, -1, _UNSEEN
        self._digits = ()

    def _action_to_string(self, player, action) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed digit {len(self._digits) + 1} of {SEED_DIGITS}: {int(action)}"
        ctx = self._ctx
        if not 0 <= action < ctx.num_actions:
            return f"action {int(action)} (out of range [0, {ctx.num_actions}))"
        return ctx.action_words(self._row, action)

    def returns(self) -> list[float]:
        ctx = self._ctx
        if not self.is_terminal():
            return [0.0] * ctx.n
        return ctx.points_of(self._row)

    def __str__(self) -> str:
        ctx = self._ctx
        lines = [ctx.text.render_text(self._row, None, ctx.empty_history),
                 f"moves {self._steps} (cap {ctx.max_steps})"]
        if self._pending is not None:
            what = "the first deal" if self._pending == _START else f"the deal after move {self._pending}"
            lines.append(f"chance: drawing {what}, seed digits so far {list(self._digits)}")
        lines.append(f"row {hashlib.blake2b(self._row.tobytes(), digest_size=8).hexdigest()}")
        return "\n".join(lines)

    def resample_from_infostate(self, player_id, probability_sampler) -> CardGameState:
        """A state the seat ``player_id`` cannot tell from this one (see the module docstring)."""
        ctx = self._ctx
        if not 0 <= player_id < ctx.n:
            raise ValueError(f"player_id={player_id!r} is not allowed; allowed values: 0..{ctx.n - 1}")
        if ctx.adapter is None:
            raise pyspiel.SpielError(f"{ctx.spec.name} has no search role: no determinizer to resample with")
        if self._pending is not None:
            raise pyspiel.SpielError("resample_from_infostate at a chance node (a deal being drawn): apply "
                                     "the chance outcomes first")
        text, vrow = self._seat_view(player_id)
        row = vrow.copy()
        hi = int(probability_sampler() * 2**32)
        lo = int(probability_sampler() * 2**32)
        ctx.rng_word[0] = seed_word(hi * 2**32 + lo)
        ctx.adapter.determinize(row, player_id, ctx.rng_word)
        state = self.get_game().new_initial_state()
        mine = self._recall[player_id]
        state._row = row
        state._pending = None
        state._digits = ()
        state._steps = self._steps
        state._recall = tuple(mine if s == player_id else _digest(mine, b"resampled", struct.pack("<q", s))
                              for s in range(ctx.n))
        state._view = (player_id, text, vrow)
        state._cache = None
        return state

    # -- beyond OpenSpiel's API --------------------------------------------------------------------
    @property
    def row(self) -> np.ndarray:
        """The game's state row (a copy; before the pending move while a deal is drawn)."""
        return self._row.copy()

    def state_dict(self) -> dict:
        """The env's state dict of this position, by replaying the history in the env.

        Also checks the replay: the env's row must equal this state's row. A state built
        from a view (or resampled) has no history to replay: ValueError.
        """
        ctx = self._ctx
        if self._view is not None:
            raise ValueError(f"this state was built from seat {self._view[0]}'s view; it has no full state dict")
        env = ctx.replay_env
        items = [(int(h.player), int(h.action)) for h in self.full_history()]
        chance = int(pyspiel.PlayerId.CHANCE)
        i = 0
        if ctx.start_chance:
            if len(items) < SEED_DIGITS:
                raise ValueError("the first deal is not drawn yet: no position to give")
            env.reset(seed=seed_of_digits(a for _, a in items[:SEED_DIGITS]))
            i = SEED_DIGITS
        else:
            env.reset(seed=0)
        while i < len(items):
            action = items[i][1]
            j = i + 1
            while j < len(items) and items[j][0] == chance:
                j += 1
            digits = [a for _, a in items[i + 1 : j]]
            if len(digits) == SEED_DIGITS:
                env._state[ctx.RNG] = seed_word(seed_of_digits(digits))
            elif digits or (j == len(items) and self._pending not in (None, _START)):
                break  # the move awaiting its deal: not applied in this state's row either
            env.step(action)
            i = j
        if not np.array_equal(env._state, self._row):
            raise RuntimeError("the env's replay of this state's history differs from its row")
        return env.state_dict()

    def player_view(self, seat: int) -> dict:
        """What ``seat`` may know of this position (:func:`sly_scout_env.views.player_view`)."""
        if self._view is not None and self._view[0] == seat:
            return json.loads(self._view[1])
        return player_view(self.state_dict(), seat)

    def _seat_view(self, seat: int) -> tuple[str, np.ndarray]:
        """The seat's view (as JSON) and the row rebuilt from it, cached per position."""
        if self._view is not None:
            if self._view[0] != seat:
                raise pyspiel.SpielError(f"this state was built from seat {self._view[0]}'s view: it resamples "
                                         f"for that seat only, not for seat {seat}")
            return self._view[1], self._view[2]
        key = (seat, len(self.full_history()))
        if self._cache is None or self._cache[0] != key:
            view = player_view(self.state_dict(), seat)
            self._cache = (key, json.dumps(view, sort_keys=True), self._ctx.determinize.row_from_view(view))
        return self._cache[1], self._cache[2]


# -- observers ---------------------------------------------------------------------------------
class _Observer:
    """The default observation: the env's observation vector and table text of one seat."""

    def __init__(self, ctx: _Context) -> None:
        self._ctx = ctx
        self.tensor = np.zeros(ctx.obs_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardGameState, player: int) -> None:
        self._ctx.encode(state._row, player, self.tensor)

    def string_from(self, state: CardGameState, player: int) -> str:
        ctx = self._ctx
        return ctx.text.render_text(state._row, int(player), ctx.empty_history)


class _InfoStateObserver:
    """The information state: the seat's recall digest (string only; see the module docstring)."""

    def __init__(self, ctx: _Context) -> None:
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state: CardGameState, player: int) -> None:
        raise pyspiel.SpielError("no information-state tensor (provides_information_state_tensor is False); "
                                 "use the observation tensor")

    def string_from(self, state: CardGameState, player: int) -> str:
        return f"player {int(player)} | moves {state._steps} | recall {state._recall[player].hex()}"


# -- the lockstep with the env ----------------------------------------------------------------
def lockstep(game: str, players: int, seed: int, rng, options: dict | None = None,
             check_observations: bool = True) -> int:
    """Play one random game through this module's OpenSpiel state and the raw env side by side.

    Seeded the same way: the first deal's chance outcomes are the digits of the env's ``seed``
    (:func:`seed_digits`); each later deal's seed is drawn from ``rng``, the env's generator word
    set to its ``seed_word`` before each step (and put back after a step that did not deal). At
    every decision both must agree on the player to move, the legal actions, every seat's
    observation (``check_observations``) and the row; at the end on the returns (the env's
    ``reward="score"`` rewards, summed). Raises AssertionError naming the first difference;
    returns the number of moves. ``rng``: a ``numpy.random.Generator`` choosing the moves.
    """
    options = dict(options or {})
    spec = get_game(game)
    rnd = spec.module("rules").RNG
    state = load(game, players, **options).new_initial_state()
    env = spec.raw_env(num_players=players, **options)
    where = f"{game} {players}p seed {seed}"
    if state.is_chance_node():
        env.reset(seed=seed)
        for d in seed_digits(seed):
            state.apply_action(d)
    else:
        env.reset(seed=0)  # no chance: the start is the one the OpenSpiel state makes
    if not np.array_equal(state.row, env._state):
        raise AssertionError(f"{where}: the rows differ after the deal")
    totals = np.zeros(players)
    moves = 0
    next_seed = int(rng.integers(MAX_SEED))  # the next deal's seed, drawn afresh once used
    next_word = seed_word(next_seed)
    while not state.is_terminal():
        at = f"{where}, move {moves}"
        if state.is_chance_node() or any(env.terminations.values()):
            raise AssertionError(f"{at}: the OpenSpiel state is at a chance node or the env has ended")
        if state.current_player() != env.agent_name_mapping[env.agent_selection]:
            raise AssertionError(f"{at}: player {state.current_player()} to move, the env says {env.agent_selection}")
        legal = state.legal_actions()
        if legal != np.flatnonzero(env.legal_action_mask()).tolist():
            raise AssertionError(f"{at}: the legal actions differ")
        if check_observations:
            for s in range(players):
                ours = np.asarray(state.observation_tensor(s), dtype=np.float32)
                if not np.array_equal(ours, env.observe(env.possible_agents[s])["observation"]):
                    raise AssertionError(f"{at}: seat {s}'s observations differ")
        action = legal[int(rng.integers(len(legal)))]
        old = env._state[rnd]
        env._state[rnd] = next_word
        env.step(action)
        totals += [env.rewards[a] for a in env.possible_agents]
        state.apply_action(action)
        moves += 1
        if state.is_chance_node():
            for d in seed_digits(next_seed):
                state.apply_action(d)
            next_seed = int(rng.integers(MAX_SEED))
            next_word = seed_word(next_seed)
        elif env._state[rnd] == next_word:
            env._state[rnd] = old  # the step did not deal: the env's generator as it was
        if not np.array_equal(state.row, env._state):
            raise AssertionError(f"{at}: the rows differ after action {action}")
    if not all(env.terminations.values()):
        raise AssertionError(f"{where}: the OpenSpiel game ended after {moves} moves, the env did not")
    if not np.allclose(state.returns(), totals):
        raise AssertionError(f"{where}: returns {state.returns()} differ from the env's {totals.tolist()}")
    return moves


# -- registration ------------------------------------------------------------------------------
def _register(spec: GameSpec) -> type[CardGame]:
    cls = type(f"{spec.title}Game", (CardGame,), {"spec": spec, "__module__": __name__})
    pyspiel.register_game(_game_type(spec, stochastic=True), cls)
    return cls


def _register_all() -> tuple[str, ...]:
    names = []
    registered = set(pyspiel.registered_names())
    for spec in all_games():
        if spec.optional_module("bounds") is None:
            continue
        if game_name(spec) not in registered:  # (a reload of this module keeps the first registration)
            _register(spec)
        names.append(spec.name)
    return tuple(names)


# The registry's games registered with OpenSpiel (a game without a bounds role is left out).
GAMES: tuple[str, ...] = _register_all()
