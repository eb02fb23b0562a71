"""The registry of games: what a game is, in one place.

    from sly_scout_env.games import GAMES, get_game
    spec = get_game("scout")
    spec.player_counts, spec.default_players, spec.unit     # (2, 3, 4, 5), 4, "hand"
    env = spec.env(num_players=3)                            # PettingZoo AEC env (wrapped)
    rules = spec.module("rules")                             # sly_scout_env.scout.rules

Generic code (simulation, vector env, wrappers, SB3 adapters, views, CLI, arena, play,
training, benchmarks, web table) looks a game up here and never branches on its name
(``tests/test_game_registry.py`` fails on any ``== "scout"`` outside the game folders).
Adding a game is one folder implementing the per-game contract plus one entry in
:data:`_SPECS` below (docs/architecture.md, "Adding a game").

Where a game's behaviour lives: ``<package>.<role>`` for the roles of the contract
(``sly_scout_env/contract.py`` lists each role's names and signatures):

    rules        the row layout and the rules kernels (setup, legal moves, apply, scores)
    observation  observation_size and the compiled observation encoder
    codec        state dict <-> row, with field-by-field validation
    text         actions in words, the rendered table, narration for terminal play
    view         what one seat may know of a state dict (bots' info["view"], the web table)
    env          the PettingZoo AEC env (its docstring is the game's documentation page)
    batch        batched kernels: vector env, simulate, the single-learner engine
    policies     compiled bots (random, greedy) for simulate, ISMCTS rollouts, SB3 opponents
    heuristic    the greedy evaluation; ``GreedyPlayer``, the ``greedy`` bot's entry point
    determinize  what a seat may assume of the hidden cards: ``row_from_view``, ``determinize``
    search       optional: ``SearchAdapter``, the parts the generic ``ismcts`` bot searches with
                 (edge keys, determinization, rollouts; ``agents/bots/ismcts.py``)
    features     optional (``spec.optional_module("features")``, None without): per-action
                 features for the neural checkpoints that score actions (Scout has it)

and, as package data, ``checkpoints/<name>_<N>p.npz``: the ``neural`` networks shipped for
the game (:meth:`GameSpec.checkpoint_files`), with their training logs in ``checkpoints/logs``,
and ``checkpoints/experts/*.npz``: the networks inside the ``expert`` bot where a table has its
own (:meth:`GameSpec.expert_files`).
The rules as implemented are in ``docs/<name>_rules.md``. The bots (``sly_scout_env.agents``,
the app layer) are generic: they find each game's parts here and never name a game.

Importing this module imports no game: a spec names its modules, and
:meth:`GameSpec.module` imports one on first use.
"""

from __future__ import annotations

import importlib
import importlib.resources
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .checks import check_choice, check_int


@dataclass(frozen=True)
class Option:
    """One rule option of a game: a keyword argument of its env, with the official default."""

    name: str
    default: Any
    # The values a user may give; None = any int >= 1 (``rounds``).
    choices: tuple | None
    # One line for help texts and the web table's start page.
    help: str
    # Whether `simulate` takes it (Scout's `rounds` does not: a simulated hand is one round).
    simulate: bool = True
    # For people (the web table's start page), in the rulebook's words where it has them: a
    # label, a sentence, and a label per choice (in the order of ``choices``).
    label: str = ""
    words: str = ""
    choice_labels: tuple = ()

    def parse(self, text: str):
        """The allowed value spelled ``text`` on a command line; ValueError if none is."""
        if self.choices is None:
            try:
                value = None if text == "None" else int(text)
            except ValueError:
                value = text
            return check_int(self.name, value, 1, allow_none=True)
        for choice in self.choices:
            if str(choice) == text:
                return choice
        return check_choice(self.name, text, self.choices)


@dataclass(frozen=True)
class GameSpec:
    """Everything generic code needs to know about one game."""

    # The game's name as users type it (``sly-scout simulate scout``).
    name: str
    # The game's name as a title.
    title: str
    # The player counts the rules allow, and the one used when none is given.
    player_counts: tuple[int, ...]
    default_players: int
    # What one unit of `simulate` is: a Scout "hand" (one round), a Sly "game".
    unit: str
    unit_doc: str
    # Why a unit ended, indexed by the end-reason code the kernels write (0 = stopped
    # by simulate's step cap).
    end_reasons: tuple[str, ...]
    # The rule options (not num_players, reward, render_mode, max_steps).
    options: tuple[Option, ...]
    # The package holding the game's modules (rules, observation, codec, text, env,
    # batch, policies, heuristic, determinize) and its versioned PettingZoo module.
    package: str
    env_module_name: str
    # (players, units per minute): the in-kernel speed `make bench` checks (docs/benchmarks.md).
    speed_target: tuple[int, int] | None = None

    # -- modules --------------------------------------------------------------------------
    def module(self, role: str) -> ModuleType:
        """The game's module for ``role`` (``"rules"``, ``"batch"``, ``"policies"``, ...)."""
        return importlib.import_module(f"{self.package}.{role}")

    def optional_module(self, role: str) -> ModuleType | None:
        """The game's module for an optional ``role`` (``contract.OPTIONAL``), or None when the
        game has none (Sly has no ``features``). An error inside an existing module is raised."""
        name = f"{self.package}.{role}"
        if importlib.util.find_spec(name) is None:
            return None
        return importlib.import_module(name)

    def checkpoint_files(self) -> list:
        """The shipped ``neural`` checkpoints of the game (package data ``checkpoints/*.npz``
        of its folder, read through ``importlib.resources``), sorted by name; [] without any."""
        root = importlib.resources.files(self.package) / "checkpoints"
        if not root.is_dir():
            return []
        return sorted((f for f in root.iterdir() if f.name.endswith(".npz")), key=lambda f: f.name)

    def expert_files(self) -> list:
        """The shipped expert networks of the game (package data ``checkpoints/experts/*.npz``,
        for the ``expert`` bot: a network trained inside the search, with a value network, or
        the network a table's expert was measured with when its ``neural`` one has moved on),
        sorted by name; [] without any."""
        root = importlib.resources.files(self.package) / "checkpoints" / "experts"
        if not root.is_dir():
            return []
        return sorted((f for f in root.iterdir() if f.name.endswith(".npz")), key=lambda f: f.name)

    def checkpoint_file(self, name: str):
        """The shipped checkpoint file ``name`` (e.g. ``"scout_2p.npz"``); ValueError naming those shipped."""
        for f in self.checkpoint_files():
            if f.name == name:
                return f
        have = ", ".join(f.name for f in self.checkpoint_files()) or "none"
        raise ValueError(f"{self.name} ships no checkpoint {name!r}; shipped: {have}")

    @property
    def env_module(self) -> ModuleType:
        """The versioned PettingZoo module (``sly_scout_env.scout_v0``)."""
        return importlib.import_module(self.env_module_name)

    # -- envs -----------------------------------------------------------------------------
    def env(self, **kwargs):
        """The PettingZoo AEC env with PettingZoo's standard wrappers."""
        return self.env_module.env(**kwargs)

    def raw_env(self, **kwargs):
        """The PettingZoo AEC env without wrappers."""
        return self.env_module.raw_env(**kwargs)

    # -- options --------------------------------------------------------------------------
    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def default_options(self) -> dict:
        """The rule options at their official defaults."""
        return {o.name: o.default for o in self.options}

    def check_players(self, players, name: str = "num_players") -> int:
        """``players`` if this game allows it; else ValueError naming the allowed counts."""
        try:
            return check_choice(name, players, self.player_counts)
        except ValueError:
            raise ValueError(f"{name}={players!r} is not allowed for {self.name}; allowed values: "
                             f"{', '.join(map(str, self.player_counts))}") from None


_SPECS: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="scout",
            title="Scout",
            player_counts=(2, 3, 4, 5),
            default_players=4,
            unit="hand",
            unit_doc="one hand = one round from a fresh deal to its scoring",
            end_reasons=("step cap", "(i) hand emptied", "(ii) back to owner / stuck"),
            options=(
                Option("rounds", None, None,
                       "rounds in a game; None = the official count (players, 2 for 2 players); 1 plays one hand",
                       simulate=False,
                       label='Number of rounds',
                       words=('Official: as many rounds as there are players (2 players: 2 rounds), so each player '
                              'starts one round. 1 plays a single hand.')),
                Option("ii_after_empty_set", True, (True, False),
                       "round end (ii) also when the Scouts took the active set's last card (the literal rule)",
                       label='A round also ends when the active set is scouted away',
                       words=('The round ends when play comes back to the player whose set nobody beat, also when '
                              'the others have scouted every card of that set (the rule as printed).'),
                       choice_labels=('Yes (as printed)', 'No')),
                Option("score_held_chips", True, (True, False),
                       "2 players: each chip still held at the round end scores +1",
                       label='2 players: chips you still hold score',
                       words=('With 2 players, every Scout chip still in front of you when the round ends is worth 1'
                              ' point.'),
                       choice_labels=('Yes (official)', 'No')),
            ),
            package="sly_scout_env.scout",
            env_module_name="sly_scout_env.scout_v0",
            speed_target=(4, 1_000_000),
        ),
        GameSpec(
            name="sly",
            title="Sly",
            player_counts=(2, 3, 4),
            default_players=3,
            unit="game",
            unit_doc="one game from the first Lay to the end",
            end_reasons=("step cap", "a hand with <= 1 card", "all spaces Safe"),
            options=(
                Option("hen_houses", None, (None, 1, 2),
                       "Hen Houses of four spaces; None = 1 for 2 players, 2 for 3-4",
                       label='Hen Houses on the table',
                       words='Each Hen House has four spaces worth 1 to 4. Official: 1 for 2 players, 2 for 3 or 4.',
                       choice_labels=('Official', '1', '2')),
                Option("reveal_scope", "house", ("house", "all"),
                       "a Reveal flips one chosen Hen House, or every face-down card",
                       label='What a Reveal turns over',
                       words=('A Reveal turns over the face-down cards of one Hen House of your choice (official), '
                              'or every face-down card on the table.'),
                       choice_labels=('One Hen House (official)', 'Every face-down card')),
                Option("first_player", 0, (0, "random"),
                       "seat 0 starts, or a seat drawn from the game's own generator",
                       label='Who starts',
                       words='The first seat starts (official), or a seat is drawn at random.',
                       choice_labels=('Seat 1 (official)', 'Drawn at random')),
            ),
            package="sly_scout_env.sly",
            env_module_name="sly_scout_env.sly_v0",
            speed_target=(3, 3_000_000),
        ),
    )
}

# The games, in a fixed order: the one place that lists them.
GAMES: tuple[str, ...] = tuple(_SPECS)


def get_game(name) -> GameSpec:
    """The spec of game ``name``; ValueError naming the known games."""
    return _SPECS[check_choice("game", name, GAMES)]


def all_games() -> tuple[GameSpec, ...]:
    return tuple(_SPECS.values())
