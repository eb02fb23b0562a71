"""Play a full match in the terminal against chosen bots.

    sly-scout play scout --players 3 --opponents random,random
    sly-scout play sly --players 3 --opponents random --seat 1 --seed 7
    sly-scout play scout --resume sly-scout-scout-save.json

The table is drawn from your seat (the env's ``render_text``), the legal moves are
listed in words with numbers, and you answer with a number, a unique piece of a
move's text (``show``, ``space 3``...), or a command: ``help``, ``moves``, ``table``,
``quit``. Opponents' moves are narrated as everyone at the table sees them (a Sly Lay
is "a card face down", a Scout flip decision is private), followed by what they
uncovered; Scout rounds end with the round's scores; the match ends with the final
scores. Bad input gets a message and the question again, with the game untouched.

The game is never lost: ``quit``, the end of input and Ctrl-C save it to a JSON file
(the state dict, the seating and the bots' names) and print the command that resumes
it; ``--seed S`` replays the same deal.

For tests and scripts: :func:`play` takes the input and output streams.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np

from sly_scout_env.agents.bots.registry import make_from_spec, parse_spec, registration
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.agents.evaluation.arena import derive_seed
from sly_scout_env.games import get_game

SAVE_FORMAT = "sly-scout-play"
SAVE_VERSION = 1

HELP = """\
Commands:
  <number>     play the move with that number in the list
  <text>       play the legal move whose text contains <text> (it must name one move only)
  moves        list the legal moves again
  table        draw the table again
  help         this text
  quit         save the game to a file and stop (resume it later with --resume)
End of input (Ctrl-D) and Ctrl-C also save the game."""


class _Quit(Exception):
    """The person asked to stop (quit or end of input); the game is saved."""


def default_save_path(game: str) -> str:
    return f"sly-scout-{game}-save.json"


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def match_move(text: str, moves: list[tuple[int, str]]) -> tuple[int | None, str]:
    """Pick a move from ``moves`` ([(action, words)]) by number or text.

    Returns ``(action, "")`` or ``(None, message)`` explaining why nothing was picked.
    """
    t = text.strip()
    if t.lstrip("+-").isdigit():
        k = int(t)
        if 1 <= k <= len(moves):
            return moves[k - 1][0], ""
        return None, f"{k} is out of range: pick a move number from 1 to {len(moves)} (type 'moves' to list them)."
    want = _norm(t)
    exact = [a for a, words in moves if _norm(words) == want]
    if len(exact) == 1:
        return exact[0], ""
    hits = [(a, words) for a, words in moves if want in _norm(words)]
    if len(hits) == 1:
        return hits[0][0], ""
    if not hits:
        return None, (
            f"{t!r} is not a command and matches no legal move. "
            "Type 'moves' to list the legal moves, 'help' for the commands."
        )
    shown = "; ".join(f"{i + 1}: {w}" for i, (a, w) in enumerate(moves) if (a, w) in hits[:8])
    more = f" and {len(hits) - 8} more" if len(hits) > 8 else ""
    return None, f"{t!r} matches {len(hits)} legal moves ({shown}{more}); type more of the text or the number."


class Match:
    """One match: the env, the bots, the seating, and the narration of moves."""

    def __init__(self, game, players, opponents, seed, seat, options, out):
        self.game = game
        self.players = players
        self.seat = seat
        self.options = dict(options or {})
        self.seed = seed
        self.out = out
        self.env = get_game(game).raw_env(num_players=players, render_mode="ansi", **self.options)
        self.opponents = list(opponents)  # specs, in seat order, skipping the person's seat
        self.bots = {}
        others = [s for s in range(players) if s != seat]
        for s, spec in zip(others, self.opponents):
            bot = make_from_spec(spec, game=game)
            bot.reset(derive_seed(seed, s, 3), game=game, num_players=players, seat=s, options=dict(self.options))
            self.bots[s] = bot
        self.moves_played = 0
        # Column layout of the move list: the terminal's width, or 100 when not a terminal.
        self.width = shutil.get_terminal_size((100, 24)).columns if out is sys.stdout else 100

    # -- helpers ---------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def who(self, s: int) -> str:
        return f"player_{s} (you)" if s == self.seat else f"player_{s} ({self.bots[s].name})"

    def legal_moves(self) -> list[tuple[int, str]]:
        return [(int(a), self.env.action_to_str(int(a))) for a in np.flatnonzero(self.env.legal_action_mask())]

    def show_moves(self, moves) -> None:
        """The numbered legal moves, in columns (column by column) when there are many."""
        self.say("Your legal moves:")
        width = len(str(len(moves)))
        cells = [f"{i + 1:>{width}}. {words}" for i, (_, words) in enumerate(moves)]
        cell_width = max(len(c) for c in cells) + 3
        columns = 1
        if len(cells) > 20:
            columns = max(1, min(3, (self.width - 2) // cell_width))
        rows = -(-len(cells) // columns)
        for r in range(rows):
            line = "".join(f"{cells[c * rows + r]:<{cell_width}}" for c in range(columns) if c * rows + r < len(cells))
            self.say("  " + line.rstrip())

    def show_table(self) -> None:
        self.say(self.env.render_text(self.seat))

    def over(self) -> bool:
        return bool(self.env.terminations[self.env.agent_selection])

    def current_seat(self) -> int:
        return self.env.agent_name_mapping[self.env.agent_selection]

    # -- narration ---------------------------------------------------------------------
    def step(self, actor: int, action: int) -> None:
        """Play ``action`` for seat ``actor`` and tell the person what they may see of it
        (the game's ``text.narrate``: the move, then what it settled)."""
        from sly_scout_env.games import get_game

        words = self.env.action_to_str(action)  # before the move: Scout's words use the hand now
        before = self.env.state_dict()
        self.env.step(action)
        self.moves_played += 1
        after = self.env.state_dict()
        for line in get_game(self.game).module("text").narrate(before, after, actor, action, words, self.seat,
                                                               self.who):
            self.say(line)

    def bot_move(self, s: int) -> None:
        agent = self.env.agent_selection
        obs = self.env.observe(agent)
        bot = self.bots[s]
        info = {"seat": s, "game": self.game, "num_players": self.players}
        if getattr(bot, "needs_view", True):
            info["view"] = player_view(self.env.state_dict(), s)
        action = int(bot.act(obs["observation"], obs["action_mask"], info))
        self.step(s, action)

    def human_move(self, read_line) -> None:
        self.say("")
        self.show_table()
        moves = self.legal_moves()
        self.show_moves(moves)
        while True:
            self.out.write("Your move (number, text, 'help')> ")
            self.out.flush()
            line = read_line()
            if line == "":  # end of input
                self.say("")
                raise _Quit("end of input")
            text = line.strip()
            cmd = text.lower()
            if not text:
                continue
            if cmd in ("help", "?", "h"):
                self.say(HELP)
            elif cmd in ("moves", "m"):
                self.show_moves(moves)
            elif cmd in ("table", "t"):
                self.show_table()
            elif cmd in ("quit", "exit", "q"):
                raise _Quit("quit")
            else:
                action, message = match_move(text, moves)
                if action is None:
                    self.say(message)
                    continue
                self.step(self.seat, action)
                return

    def final_summary(self) -> dict:
        scores = [int(x) for x in self.env.state_dict()["scores"]]
        best = max(scores)
        winners = [s for s in range(self.players) if scores[s] == best]
        self.say("")
        self.say("=== Final result ===")
        self.say(self.env.render_text(self.seat))
        for s in sorted(range(self.players), key=lambda s: -scores[s]):
            self.say(f"  {self.who(s):<28} {scores[s]:+d}")
        if winners == [self.seat]:
            self.say("You win!")
        elif self.seat in winners:
            self.say(f"You share the win with {', '.join(self.who(s) for s in winners if s != self.seat)}.")
        else:
            self.say(f"Winner{'s' if len(winners) > 1 else ''}: {', '.join(self.who(s) for s in winners)}.")
        return {"status": "finished", "scores": scores, "winners": winners}

    # -- saving --------------------------------------------------------------------------
    def save_data(self) -> dict:
        """The save file's contents (what :meth:`save` writes and ``--resume`` reads)."""
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "game": self.game,
            "players": self.players,
            "seat": self.seat,
            "seed": self.seed,
            "options": self.options,
            "opponents": self.opponents,
            "seating": [
                {"seat": s, "player": f"player_{s}", "bot": "human" if s == self.seat else self.bots[s].name}
                for s in range(self.players)
            ],
            "moves_played": self.moves_played,
            # The bots' generator states, so that a resumed match goes on exactly as it would have.
            "bot_rng_states": {
                str(s): b.rng.bit_generator.state
                for s, b in self.bots.items()
                if isinstance(getattr(b, "rng", None), np.random.Generator)
            },
            "state": self.env.state_dict(),
        }

    def save(self, path: str, extra: dict | None = None) -> None:
        """Write :meth:`save_data` (plus ``extra`` fields) to ``path`` atomically."""
        data = self.save_data() | dict(extra or {})
        tmp = f"{path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)  # a crash while writing never destroys an older save

    def restore(self, data: dict) -> None:
        """Load a save's position, move count and bots' generators (``data`` from :func:`check_save`)."""
        self.env.from_state_dict(data["state"])
        self.moves_played = int(data.get("moves_played", 0))
        # Bots are reset (seeded from the seed and the moves played), then get their saved generator back.
        for s, bot in self.bots.items():
            bot.reset(derive_seed(self.seed, s, 3, self.moves_played), game=self.game, num_players=self.players,
                      seat=s, options=dict(self.options))
            rng_state = (data.get("bot_rng_states") or {}).get(str(s))
            if rng_state is not None and isinstance(getattr(bot, "rng", None), np.random.Generator):
                try:
                    bot.rng.bit_generator.state = rng_state
                except (TypeError, ValueError, KeyError):
                    pass  # another generator type: the bot goes on from its reseeded generator


def load_save(path: str) -> dict:
    """Read and check a file written by ``play`` (ValueError naming what is wrong)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"no saved game at {path!r}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path!r} is not a saved game (bad JSON: {exc})") from None
    return check_save(data, repr(path))


def check_save(data, where: str = "the data") -> dict:
    """``data`` if it has the fields of a save written by ``play`` (ValueError naming what is wrong)."""
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise ValueError(f"{where} is not a saved game of sly-scout play (field 'format' is not {SAVE_FORMAT!r})")
    for key in ("game", "players", "seat", "seed", "options", "opponents", "state"):
        if key not in data:
            raise ValueError(f"saved game {where} lacks the field {key!r}")
    return data


def check_setup(game, players, opponents, seat) -> list[str]:
    """The opponents' specs, one per other seat (cycled when fewer); ValueError naming a bad argument."""
    get_game(game)  # checks the game name
    if isinstance(opponents, str):
        opponents = [o for o in opponents.split(",") if o.strip()]
    opponents = [o.strip() for o in opponents]
    if not opponents:
        raise ValueError("opponents is empty; give at least one registered bot, e.g. random")
    for spec in opponents:
        name, _ = parse_spec(spec)
        reg = registration(name)
        if game not in reg.games:
            raise ValueError(f"bot {name!r} does not play {game}; it plays {', '.join(reg.games)}")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players={players!r} is not allowed; give an int")
    if len(opponents) > players - 1:
        raise ValueError(f"{len(opponents)} opponents given for {players} players; give at most {players - 1}")
    # Fewer opponents than seats: cycle through them ("random" alone fills every other seat).
    opponents = [opponents[i % len(opponents)] for i in range(players - 1)]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{players - 1}")
    return opponents


def play(
    game: str | None = None,
    players: int | None = None,
    opponents=None,
    seed: int | None = None,
    seat: int = 0,
    input_stream=None,
    output_stream=None,
    *,
    resume: str | None = None,
    options: dict | None = None,
    save_path: str | None = None,
) -> dict:
    """Play a match in a terminal (or on the given streams).

    Returns ``{"status": "finished", "scores", "winners"}`` or
    ``{"status": "saved", "save_path"}`` when the match was stopped and saved.
    With ``resume=PATH`` the game, players, seat, bots and options come from the file.
    """
    inp = input_stream if input_stream is not None else sys.stdin
    out = output_stream if output_stream is not None else sys.stdout
    state = None
    if resume is not None:
        data = load_save(resume)
        for key, given, saved in (("game", game, data["game"]), ("players", players, data["players"])):
            if given is not None and given != saved:
                raise ValueError(f"--resume: the saved game has {key}={saved!r}, not {given!r}")
        game, players, seat = data["game"], data["players"], data["seat"]
        seed, options, opponents, state = data["seed"], data["options"], data["opponents"], data["state"]
        save_path = save_path or resume
    if game is None or players is None or opponents is None:
        raise ValueError("give game, players and opponents (or resume=PATH)")
    opponents = check_setup(game, players, opponents, seat)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])  # fresh, but printed so it can be replayed
    save_path = save_path or default_save_path(game)
    match = Match(game, players, opponents, seed, seat, options, out)
    if state is not None:
        match.restore(data)
        match.say(f"Resuming the {game} game saved in {resume} ({match.moves_played} moves played).")
    else:
        match.env.reset(seed=seed)
        match.say(f"{game.capitalize()}: {players} players, seed {seed} (replay this deal with --seed {seed}).")
    match.say("Seats: " + ", ".join(match.who(s) for s in range(players)) + ". Type 'help' for the commands.")

    def read_line() -> str:
        return inp.readline()

    try:
        while not match.over():
            s = match.current_seat()
            if s == match.seat:
                match.human_move(read_line)
            else:
                match.bot_move(s)
    except (_Quit, KeyboardInterrupt) as exc:
        match.save(save_path)
        why = "Interrupted" if isinstance(exc, KeyboardInterrupt) else "Stopped"
        match.say(f"{why}. The game is saved in {save_path}.")
        match.say(f"Resume it with:  sly-scout play {game} --resume {save_path}")
        return {"status": "saved", "save_path": save_path}
    except Exception:
        match.save(save_path)  # a failing bot must not cost the person the game
        match.say(f"An error stopped the game; it is saved in {save_path}.", )
        raise
    return match.final_summary()
