"""Bots by name: ``make("random")``, ``available("sly")``.

A registration maps a name to a *factory*: a callable returning a new bot, or a lazy
``"package.module:callable"`` string (imported on first use, so that registering a
bot costs nothing and spawned arena workers can rebuild it by name). A factory
registered with ``takes_game=True`` is called with ``game=`` (a generic bot that builds
on a game's parts, such as ``ismcts`` on the game's ``search`` role). An out-of-tree bot
that is a different class per game may give a dict ``{game: factory}``; the builtin bots
are each one generic class that finds the game's parts through the game registry.

Adding a bot: a module in ``agents/bots/`` and one ``register(...)`` line in
:func:`_register_builtins` below with a lazy string factory, e.g.::

    register("greedy", "sly_scout_env.agents.bots.greedy:GreedyAgent",
             description="each game's compiled heuristic")

Keyword parameters pass through ``make(name, **kwargs)`` to the factory; on the
command line a bot spec may carry them as ``name:key=value:key=value`` (values are
read as int, float, true/false, or else kept as text), e.g. ``ismcts:iterations=200``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sly_scout_env.games import GAMES, get_game


@dataclass(frozen=True)
class Registration:
    name: str
    factory: Any  # callable | "module:attr" | {game: callable | "module:attr"}
    games: tuple = GAMES
    description: str = ""
    # Called with game=... (see the module docstring).
    takes_game: bool = False
    # A "module:callable" giving the description for one game (``f(game) -> str``), for a
    # game's own menus (the web table); None: ``description`` for every game.
    describe_for: str | None = None

    def factory_for(self, game: str):
        """The factory that builds this bot for ``game`` (a dict entry, or the factory)."""
        return self.factory[game] if isinstance(self.factory, dict) else self.factory

    def build_kwargs(self, game: str, kwargs: dict) -> dict:
        """The keyword arguments the factory is called with for ``game``."""
        return dict(kwargs, game=game) if self.takes_game else dict(kwargs)

    def describe(self, game: str | None = None) -> str:
        """The description for ``game`` (its own line when there is one)."""
        return resolve(self.describe_for)(game) if game and self.describe_for else self.description


_REGISTRY: dict[str, Registration] = {}


def register(name: str, factory, games=GAMES, description: str = "", *, takes_game: bool = False,
             describe_for: str | None = None, overwrite: bool = False) -> None:
    """Register ``factory`` under ``name`` for ``games`` (see the module docstring)."""
    if not isinstance(name, str) or not name or any(c in name for c in ":,= "):
        raise ValueError(f"bot name {name!r} is not allowed; give a non-empty name without ':', ',', '=' or spaces")
    games = tuple(games)
    if not games:
        raise ValueError(f"bot {name!r}: games must name at least one of {GAMES}")
    for g in games:
        get_game(g)
    if isinstance(factory, dict):
        missing = [g for g in games if g not in factory]
        if missing:
            raise ValueError(f"bot {name!r}: the factory dict has no entry for game(s) {missing}")
    elif not (callable(factory) or (isinstance(factory, str) and ":" in factory)):
        raise ValueError(f"bot {name!r}: factory must be a callable, a 'module:callable' string or a dict per game")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"a bot named {name!r} is already registered (pass overwrite=True to replace it)")
    _REGISTRY[name] = Registration(name, factory, games, description, bool(takes_game), describe_for)


def unregister(name: str) -> None:
    """Remove a registration (used by tests that register temporary bots)."""
    _REGISTRY.pop(name, None)


def available(game: str | None = None) -> list[str]:
    """The registered bot names (sorted), optionally only those that play ``game``."""
    if game is not None:
        get_game(game)
    return sorted(n for n, r in _REGISTRY.items() if game is None or game in r.games)


def registration(name: str) -> Registration:
    """The registration of ``name``; unknown name -> ValueError listing the registered names."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; registered bots: {', '.join(available())}") from None


def describe(game: str | None = None) -> str:
    """One line per registered bot: name, games, description (for --help texts)."""
    lines = []
    for n in available(game):
        r = _REGISTRY[n]
        lines.append(f"{n:<12} [{'/'.join(r.games)}] {r.description}")
    return "\n".join(lines)


def resolve(factory) -> Callable:
    """The callable a factory names (imports a ``"module:callable"`` string)."""
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        obj = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj
    return factory


def make(name: str, *, game: str | None = None, **kwargs):
    """A new bot ``name`` built with ``kwargs``.

    ``game`` is needed when the bot is registered per game (and checked against the
    games the bot supports when given). The bot's ``name`` becomes the spec text
    (``"ismcts:iterations=200"``) so tables tell parameterised bots apart.
    """
    reg = registration(name)
    if game is not None:
        get_game(game)
        if game not in reg.games:
            raise ValueError(f"bot {name!r} does not play {game}; it plays {', '.join(reg.games)}")
    if game is None and (reg.takes_game or isinstance(reg.factory, dict)):
        raise ValueError(f"bot {name!r} is built for one game; call make({name!r}, game=...)")
    bot = resolve(reg.factory_for(game))(**reg.build_kwargs(game, kwargs))
    label = format_spec(name, kwargs)
    try:
        bot.name = label
    except AttributeError:  # a bot with a read-only name keeps its own
        pass
    return bot


def parse_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"ismcts:iterations=200:c=1.4"`` -> ``("ismcts", {"iterations": 200, "c": 1.4})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"bot spec {spec!r} is empty; give a registered name, e.g. random")
    name, *params = spec.strip().split(":")
    registration(name)  # unknown name -> ValueError listing the registered names
    kwargs = {}
    for p in params:
        key, eq, value = p.partition("=")
        if not eq or not key:
            raise ValueError(f"bot spec {spec!r}: parameter {p!r} is not of the form key=value")
        if re.search(r",\s*[A-Za-z_]\w*=", value):
            # "ismcts:iterations=16,guide=neural" would otherwise reach the bot as iterations="16,guide=neural"
            raise ValueError(f"bot spec {spec!r}: parameter {p!r} holds another key=value after a comma; "
                             f"separate parameters with ':' (e.g. {name}:{key}={value.split(',')[0]}:...)")
        kwargs[key] = parse_value(value)
    return name, kwargs


def format_spec(name: str, kwargs: dict) -> str:
    return ":".join([name] + [f"{k}={v}" for k, v in kwargs.items()])


def make_from_spec(spec: str, *, game: str | None = None):
    """``make`` from a command-line spec (``name`` or ``name:key=value:...``)."""
    name, kwargs = parse_spec(spec)
    return make(name, game=game, **kwargs)


def _register_builtins() -> None:
    bots = "sly_scout_env.agents.bots"
    register("random", f"{bots}.random:RandomAgent",
             description="uniformly random legal move (own generator, seeded in reset)")
    register(
        "greedy", f"{bots}.greedy:GreedyAgent",
        description="each game's compiled heuristic (Scout: keeps sets and runs; Sly: public-knowledge odds)",
        describe_for=f"{bots}.greedy:describe",
    )
    register("ismcts", f"{bots}.ismcts:ISMCTSAgent", takes_game=True,
             description="information-set MCTS (SO-ISMCTS, availability counts) with compiled determinization "
                         "and rollouts; ismcts:guide=neural weights it by the network")
    register("expert", f"{bots}.ismcts:ExpertAgent", takes_game=True,
             description="the compiled ismcts with the table's network inside it (its prior for PUCT, its value "
                         "network, when it has one, ending the simulations); expert:path=FILE.npz for yours")
    register("ppo", f"{bots}.ppo:PPOAgent",
             description="MaskablePPO checkpoint (ppo:path=RUN/final.zip; masked argmax, deterministic=false samples)")
    register("openspiel_ismcts", f"{bots}.openspiel_ismcts:OpenSpielISMCTSAgent", takes_game=True,
             description="OpenSpiel's ISMCTSBot (random rollouts) on our OpenSpiel game, from the seat's view; "
                         "needs the openspiel extra")
    register("neural", f"{bots}.neural:NeuralAgent",
             description="shipped policy network for the game and count, torch-free (neural:path=FILE.npz for yours)")


_register_builtins()
