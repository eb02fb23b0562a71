"""The games the web table keeps: setup checks, moves, bots, saving (no HTTP here).

A web game is a :class:`sly_scout_env.agents.ui.play.Match` (the terminal player's env, bots, seating,
narration and save format) plus the move log the page shows. Everything the page
sees goes through :meth:`WebGame.public`, built from the human seat's redacted view
(:func:`sly_scout_env.views.player_view`), so hidden cards never reach the browser.

Bots from the web are restricted to registered names with whitelisted parameters
(:data:`WEB_PARAMS`); bots that load files (:data:`CHECKPOINT_BOTS`) only get paths
that the server was started with (``--checkpoint NAME=BOT:PATH``), named by NAME.
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import tempfile
import threading
import time

import numpy as np

from sly_scout_env.agents.bots.registry import available, format_spec, parse_spec, registration
from sly_scout_env.agents.ui.play import Match, check_save, check_setup
from sly_scout_env.agents.ui.web import summary, words
from sly_scout_env.checks import check_choice, is_int
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.views import player_view

# Parameters a web request may give a bot, with their (lowest, highest) value.
# Anything else (above all a file path) is refused.
WEB_PARAMS: dict[str, dict[str, tuple]] = {
    "ismcts": {"iterations": (1, 5000), "time_limit": (0.01, 30.0)},
    "expert": {"iterations": (1, 5000), "time_limit": (0.01, 30.0)},
    # OpenSpiel's ISMCTS needs at least 2 simulations a move.
    "openspiel_ismcts": {"iterations": (2, 2000), "time_limit": (0.01, 30.0)},
}
# Bots that play from a checkpoint file: offered only for the checkpoints the server allows.
CHECKPOINT_BOTS = ("ppo", "neural")
# The web's name for a checkpoint parameter; the server swaps it for the allowed path.
CHECKPOINT_KEY = "checkpoint"
PATH_KEY = "path"
WEB_LOG_KEY = "web"
MAX_SEED = 2**63 - 1
# Files of the state directory: <id>.json; temporary files while a save is written; set-aside/.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
TEMP_SUFFIX = ".tmp"
ASIDE_DIR = "set-aside"
MAX_MOVES = 10**6  # moves_played in a save: far beyond any real match


class BadInput(ValueError):
    """A request the server refuses (HTTP 400): the field, what is wrong, what is allowed."""

    def __init__(self, field: str, message: str, allowed=None):
        super().__init__(message)
        self.field = field
        self.allowed = allowed

    def to_json(self) -> dict:
        out = {"error": str(self), "field": self.field}
        if self.allowed is not None:
            out["allowed"] = self.allowed
        return out


def parse_checkpoints(items) -> dict[str, tuple[str, str]]:
    """``["strong=ppo:runs/a/final.zip"]`` -> ``{"strong": ("ppo", "runs/a/final.zip")}``."""
    out = {}
    for item in items or ():
        name, eq, rest = str(item).partition("=")
        bot, colon, path = rest.partition(":")
        if not eq or not colon or not name or not path or any(c in name for c in ":,= "):
            raise ValueError(f"--checkpoint {item!r} is not of the form NAME=BOT:PATH (e.g. strong=ppo:run/final.zip)")
        if bot not in CHECKPOINT_BOTS:
            raise ValueError(f"--checkpoint {item!r}: bot {bot!r} is not allowed; allowed values: "
                             f"{', '.join(CHECKPOINT_BOTS)}")
        registration(bot)  # unknown bot -> ValueError naming the registered ones
        if not os.path.exists(path):
            raise ValueError(f"--checkpoint {item!r}: no file at {path!r}")
        out[name] = (bot, path)
    return out


def bot_catalogue(game: str, checkpoints: dict) -> list[dict]:
    """The bots the start page offers for ``game``: spec, description, allowed parameters."""
    out = []
    for name in available(game):
        reg = registration(name)
        if name in CHECKPOINT_BOTS:
            continue
        params = {k: list(v) for k, v in WEB_PARAMS.get(name, {}).items()}
        out.append({"spec": name, "name": name, "label": words.bot_label(name), "description": reg.describe(game),
                    "params": params, "players": list(get_game(game).player_counts)})
    if "neural" in available(game) and words.neural_counts(game):  # the shipped networks: no file from the request
        out.append({"spec": "neural", "name": "neural", "label": words.bot_label("neural"),
                    "description": registration("neural").describe(game), "params": {},
                    "players": list(words.neural_counts(game))})
    for cname, (bot, path) in sorted(checkpoints.items()):
        if game in registration(bot).games:
            out.append({"spec": f"{bot}:{CHECKPOINT_KEY}={cname}", "name": cname, "label": cname,
                        "description": f"{bot} checkpoint {os.path.basename(path)!r} allowed by the server",
                        "params": {}, "players": list(get_game(game).player_counts)})
    return out


def check_bot(spec, game: str, field: str, checkpoints: dict) -> str:
    """The registry spec to build for web spec ``spec``; BadInput unless it is allowed."""
    offered = [b["spec"] for b in bot_catalogue(game, checkpoints)]
    if not isinstance(spec, str):
        raise BadInput(field, f"{field}={spec!r} is not a bot spec (a string)", offered)
    try:
        name, kwargs = parse_spec(spec)
    except ValueError as exc:
        raise BadInput(field, f"{field}={spec!r} is not allowed ({exc}); bots allowed from the web: "
                              f"{', '.join(offered)}", offered) from None
    if game not in registration(name).games:
        raise BadInput(field, f"{field}: bot {name!r} does not play {game}; allowed: {', '.join(offered)}", offered)
    if spec.strip() in words.level_specs(game):  # a level's own bot, as the start page offers it
        return spec.strip()
    allowed = WEB_PARAMS.get(name, {})
    if name == "neural" and not kwargs:  # the network shipped for the table (refused at the start if none)
        return name
    if name in CHECKPOINT_BOTS:
        mine = {c: p for c, (b, p) in checkpoints.items() if b == name}
        if set(kwargs) == {CHECKPOINT_KEY} and kwargs[CHECKPOINT_KEY] in mine:
            return format_spec(name, {PATH_KEY: mine[kwargs[CHECKPOINT_KEY]]})
        # A save file names the path itself: accepted only when it is an allowed one.
        if set(kwargs) == {PATH_KEY} and kwargs[PATH_KEY] in mine.values():
            return spec.strip()
        raise BadInput(field, f"{field}={spec!r}: bot {name!r} loads a file; from the web it needs "
                              f"{name}:{CHECKPOINT_KEY}=NAME with a NAME the server allows "
                              f"(start it with --checkpoint NAME={name}:PATH)", sorted(mine) or offered)
    for key, value in kwargs.items():
        if key not in allowed:
            raise BadInput(field, f"{field}={spec!r}: parameter {key!r} is not allowed from the web; "
                                  f"allowed parameters of {name!r}: {', '.join(allowed) or 'none'}",
                           sorted(allowed))
        lo, hi = allowed[key]
        kind = int if isinstance(lo, int) else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind) or not lo <= value <= hi:
            raise BadInput(field, f"{field}={spec!r}: {key}={value!r} is not allowed; "
                                  f"allowed values: {lo}..{hi}", [lo, hi])
    return spec.strip()


def check_options(game: str, options) -> dict:
    """The game's options, defaults filled in; BadInput naming a bad option."""
    spec = get_game(game)
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise BadInput("options", f"options={options!r} is not an object of option: value",
                       list(spec.option_names))
    out = spec.default_options()
    for key, value in options.items():
        if key not in spec.option_names:
            raise BadInput(f"options.{key}", f"option {key!r} is not an option of {game}; "
                                             f"allowed: {', '.join(spec.option_names)}", list(spec.option_names))
        opt = next(o for o in spec.options if o.name == key)
        try:
            if opt.choices is None:
                if value is not None and (not is_int(value) or value < 1):
                    raise ValueError(f"{key}={value!r} is not allowed; allowed values: None or an int >= 1")
                if value is not None and value > 100:
                    raise ValueError(f"{key}={value!r} is not allowed; allowed values: None or an int from 1 to 100")
            else:
                value = check_choice(key, value, opt.choices)
        except ValueError as exc:
            raise BadInput(f"options.{key}", str(exc),
                           list(opt.choices) if opt.choices else "None or an int from 1 to 100") from None
        out[key] = value
    return out


def check_new_game(body: dict, checkpoints: dict, *, check_bots: bool = True) -> dict:
    """The arguments of a new game from a POST /api/games body; BadInput naming a bad field.

    ``check_bots=False`` keeps the bot specs as given (games from the server's own state dir).
    """
    if not isinstance(body, dict):
        raise BadInput("body", "the body must be a JSON object", ["game", "players", "seat", "bots", "options", "seed"])
    known = {"game", "players", "seat", "bots", "options", "seed"}
    for key in body:
        if key not in known:
            raise BadInput(key, f"field {key!r} is not allowed", sorted(known))
    game = body.get("game")
    if game not in GAMES:
        raise BadInput("game", f"game={game!r} is not allowed; allowed values: {', '.join(GAMES)}", list(GAMES))
    spec = get_game(game)
    players = body.get("players", spec.default_players)
    if players not in spec.player_counts or not is_int(players):
        raise BadInput("players", f"players={players!r} is not allowed for {game}; allowed values: "
                                  f"{', '.join(map(str, spec.player_counts))}", list(spec.player_counts))
    seat = body.get("seat", 0)
    if not is_int(seat) or not 0 <= seat < players:
        raise BadInput("seat", f"seat={seat!r} is not allowed; allowed values: 0..{players - 1}",
                       list(range(players)))
    options = check_options(game, body.get("options"))
    try:  # options that are fine alone but not together or not with this player count
        spec.raw_env(num_players=players, **options)
    except ValueError as exc:
        raise BadInput("options", str(exc), list(spec.option_names)) from None
    bots = body.get("bots", ["random"] * (players - 1))
    if not isinstance(bots, list) or len(bots) != players - 1:
        raise BadInput("bots", f"bots={bots!r} must be a list of {players - 1} bot spec(s), one per other seat "
                               "in seat order", [b["spec"] for b in bot_catalogue(game, checkpoints)])
    if check_bots:
        bots = [check_bot(b, game, f"bots[{i}]", checkpoints) for i, b in enumerate(bots)]
    seed = check_seed(body.get("seed"))
    if seed is None:
        seed = fresh_seed()
    return {"game": game, "players": players, "seat": seat, "options": options, "bots": bots, "seed": int(seed)}


def check_seed(seed) -> int | None:
    """A seed as the API takes it: null, a string of decimal digits (what the page sends:
    seeds go up to 2**63 - 1, beyond the 2**53 a JavaScript number holds exactly) or an int
    (scripts, and saves written by ``sly-scout play``); BadInput otherwise."""
    allowed = f"null or a string of digits (or an int) from 0 to {MAX_SEED}"
    value = seed
    if isinstance(seed, str):
        text = seed.strip()
        value = int(text) if text.isascii() and text.isdigit() and len(text) <= 19 else None
    elif seed is not None and not is_int(seed):
        value = None
    if seed is not None and (value is None or not 0 <= value <= MAX_SEED):
        raise BadInput("seed", f"seed={seed!r} is not allowed; allowed values: {allowed}", allowed)
    return None if value is None else int(value)


def check_log(log, players: int) -> list | None:
    """A saved move log (``[{"seat": seat or null, "lines": [text, ...]}]``), or None when it is not one.

    The page shows it as text only; an uploaded log is the uploader's own account of the game.
    """
    if not isinstance(log, list):
        return None
    out = []
    for e in log:
        if not isinstance(e, dict) or set(e) != {"seat", "lines"}:
            return None
        seat, lines = e["seat"], e["lines"]
        if not (seat is None or (is_int(seat) and 0 <= seat < players)):
            return None
        if not isinstance(lines, list) or not lines or not all(isinstance(x, str) for x in lines):
            return None
        out.append({"seat": seat, "lines": list(lines)})
    return out


def fresh_seed() -> int:
    """A seed from the OS's entropy (shown on the page, so the deal can be replayed)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


class WebMatch(Match):
    """:class:`Match`, remembering the last move made (a bot's too: the round summaries replay it)."""

    last_action: int | None = None

    def step(self, actor: int, action: int) -> None:
        self.last_action = int(action)
        super().step(actor, action)

    def who(self, s: int) -> str:
        """A seat's name for people: "You", or the bot and its 1-based seat."""
        return words.seat_name(s, self.seat, None if s == self.seat else self.bots[s].name)

    def say(self, text: str = "") -> None:
        super().say(words.for_people(text, self.who))

    def legal_moves(self) -> list[tuple[int, str]]:
        return [(a, words.for_people(text, self.who)) for a, text in super().legal_moves()]


def check_round_ends(value, game: str, players: int) -> list:
    """Saved round summaries (:mod:`summary`'s, of this game and player count), or [] when they are not."""
    keys = summary.seat_keys(game)
    if not isinstance(value, list) or keys is None:
        return []
    for r in value:
        if not (isinstance(r, dict) and r.get("game") == game and is_int(r.get("round"))
                and isinstance(r.get("seats"), list) and len(r["seats"]) == players):
            return []
        for s, part in enumerate(r["seats"]):
            if not (isinstance(part, dict) and keys <= set(part) and part["seat"] == s
                    and all(is_int(part[k]) for k in keys - {"seat", "hand", "hand_counted"})
                    and (part["hand"] is None or isinstance(part["hand"], list))):
                return []
    return value


class WebGame:
    """One match of the web table: a :class:`Match` and its move log."""

    def __init__(self, game_id: str, match: Match, log: list | None = None, created: float | None = None):
        self.id = game_id
        self.match = match
        self.log = list(log or [])
        # One summary per finished round (summary.round_end): hands face up, the scoring.
        self.round_ends: list[dict] = []
        self.created = created or time.time()
        self.updated = self.created
        # Held while a move and the bots' replies are computed (in a worker thread).
        self.lock = threading.Lock()
        # The table as of the last finished move: what GET answers, even while bots think.
        self.snapshot: dict | None = None

    # -- building ------------------------------------------------------------------
    @classmethod
    def new(cls, game_id: str, game: str, players: int, seat: int, options: dict, bots: list, seed: int):
        try:
            match = WebMatch(game, players, check_setup(game, players, bots, seat), seed, seat, options, io.StringIO())
        except ValueError as exc:  # a bot that refuses its parameters (options were checked before)
            raise BadInput("bots", str(exc), [b["spec"] for b in bot_catalogue(game, {})]) from None
        match.env.reset(seed=seed)
        g = cls(game_id, match)
        g.log.append({"seat": None, "lines": [
            f"{get_game(game).title}, {players} players, seed {seed}. Seats: "
            + ", ".join(match.who(s) for s in range(players)) + "."]})
        g.snapshot = g.public()
        return g

    @classmethod
    def from_save(cls, game_id: str, data, checkpoints: dict, *, trusted: bool = False):
        """A game from a save of ``sly-scout play`` (``trusted``: from the server's own state dir)."""
        try:
            data = check_save(data, "the upload")
        except ValueError as exc:
            raise BadInput("body", str(exc), ["format", "game", "players", "seat", "seed", "options",
                                              "opponents", "state"]) from None
        opponents = data["opponents"]
        setup = check_new_game({"game": data["game"], "players": data["players"], "seat": data["seat"],
                                "options": data["options"], "seed": data["seed"], "bots": opponents},
                               checkpoints, check_bots=not trusted)
        opponents = setup["bots"]
        g = cls.new(game_id, setup["game"], setup["players"], setup["seat"], setup["options"], opponents,
                    setup["seed"])
        for key, ok, what in (("moves_played", lambda v: is_int(v) and 0 <= v <= MAX_MOVES,
                               f"an int from 0 to {MAX_MOVES}"),
                              ("bot_rng_states", lambda v: isinstance(v, dict), "an object (seat: generator state)")):
            if key in data and data[key] is not None and not ok(data[key]):
                raise BadInput(key, f"{key}={data[key]!r} is not allowed; allowed values: {what}", what)
        try:
            g.match.restore(data)
        except (ValueError, TypeError, KeyError) as exc:
            raise BadInput("state", f"the saved state is refused: {exc}") from None
        web = data.get(WEB_LOG_KEY) if isinstance(data.get(WEB_LOG_KEY), dict) else {}
        log = check_log(web.get("log"), setup["players"])
        if log is None:  # a save of `sly-scout play` (no web log), or a log that is not one
            log = [{"seat": None, "lines": [
                f"Resumed a saved {setup['game']} game ({g.match.moves_played} moves played)."]}]
        elif not trusted:
            log.append({"seat": None, "lines": [f"Continued from an uploaded file ({g.match.moves_played} moves "
                                                "played)."]})
        g.log = log
        g.round_ends = check_round_ends(web.get("round_ends"), setup["game"], setup["players"])
        g.created = float(web.get("created", time.time())) if trusted else time.time()
        g.updated = float(web.get("updated", g.created)) if trusted else g.created
        g.snapshot = g.public()
        return g

    def web_extra(self) -> dict:
        """The web log and times, saved under ``"web"`` next to play's fields (play ignores them)."""
        return {WEB_LOG_KEY: {"id": self.id, "log": self.log, "round_ends": self.round_ends,
                              "created": self.created, "updated": self.updated}}

    def save_data(self) -> dict:
        """``sly-scout play``'s save (a download), with :meth:`web_extra`."""
        return self.match.save_data() | self.web_extra()

    # -- playing -------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.match.over()

    def your_turn(self) -> bool:
        return not self.over and self.match.current_seat() == self.match.seat

    def _step(self, seat: int, action: int | None) -> dict:
        """One move (the human's ``action``, or the bot's choice when None) as a log event."""
        m = self.match
        m.out = io.StringIO()
        before = m.env.state_dict()
        if action is None:
            m.bot_move(seat)
        else:
            m.step(seat, action)
        lines = m.out.getvalue().rstrip("\n").split("\n")
        event = {"seat": seat, "lines": lines}
        self.log.append(event)
        self.updated = time.time()
        out = dict(event, view=self.view(), to_act=self.to_act())
        ended = summary.round_end(m.game, m.options, before, m.env.state_dict(), m.last_action, m.seat)
        if ended is not None:
            self.round_ends.append(ended)
            out["round_end"] = ended
        return out


    def play(self, action, turn=None) -> list[dict]:
        """The human's move, then the bots' replies until the human's turn or the end."""
        if turn is not None and turn != self.match.moves_played:
            raise BadInput("turn", f"turn={turn!r} is stale: the game is at move {self.match.moves_played}; "
                                   "reload the game", [self.match.moves_played])
        if self.over:
            raise BadInput("action", "the game is over; no move is allowed (start a rematch)", [])
        if not self.your_turn():
            if action is None:  # after a bot failed: let the bots try again
                return self.run_bots()
            raise BadInput("action", f"it is player_{self.match.current_seat()}'s turn, not yours; "
                                     "send {\"action\": null} to let the bots move", [None])
        legal = [a for a, _ in self.match.legal_moves()]
        if not is_int(action) or int(action) not in legal:
            raise BadInput("action", f"action={action!r} is not a legal move now; allowed values: the ids "
                                     "of the legal moves", legal)
        events = [self._step(self.match.seat, int(action))]
        return events + self.run_bots()

    def run_bots(self) -> list[dict]:
        """The bots' moves until the human's turn or the end; then the snapshot is renewed."""
        events = []
        while not self.over and not self.your_turn():
            events.append(self._step(self.match.current_seat(), None))
        self.snapshot = self.public()
        return events

    # -- what the page sees ----------------------------------------------------------
    def to_act(self):
        return None if self.over else self.match.current_seat()

    def view(self) -> dict:
        return player_view(self.match.env.state_dict(), self.match.seat)

    def public(self) -> dict:
        """The table as the human seat sees it (the body of GET /api/games/{id})."""
        m = self.match
        spec = get_game(m.game)
        view = self.view()
        legal = []
        if self.your_turn():
            legal = [{"id": a, "text": words, "move": m.env.decode_action(a)} for a, words in m.legal_moves()]
        result = None
        if self.over:
            scores = [int(x) for x in view["scores"]]
            best = max(scores)
            result = {"scores": scores, "winners": [s for s in range(m.players) if scores[s] == best]}
        return {
            "id": self.id,
            "game": m.game,
            "title": spec.title,
            "players": m.players,
            "seat": m.seat,
            "seed": str(m.seed),  # a string: JavaScript numbers hold integers up to 2**53 only
            "options": m.options,
            "seating": [{"seat": s, "name": m.who(s), "bot": None if s == m.seat else m.bots[s].name}
                        for s in range(m.players)],
            "moves_played": m.moves_played,
            "to_act": self.to_act(),
            "your_turn": self.your_turn(),
            "over": self.over,
            "result": result,
            "view": view,
            "legal": legal,
            "log": self.log,
            "round_end": self.round_ends[-1] if self.round_ends else None,
        }

    def summary(self) -> dict:
        m = self.match
        return {"id": self.id, "game": m.game, "title": get_game(m.game).title, "players": m.players,
                "seat": m.seat, "over": self.over, "moves_played": m.moves_played, "opponents": m.opponents,
                "opponent_labels": [words.bot_label(o) for o in m.opponents], "created": self.created,
                "updated": self.updated}


def new_id() -> str:
    return secrets.token_hex(6)


class Store:
    """The games kept, at most ``max_games``, each saved as ``STATE_DIR/<id>.json``.

    Saves are atomic: the file is written under a temporary name in the same folder,
    flushed to disk, then renamed over the old one (``os.replace``), so a server killed at
    any moment leaves every game at its last saved move, never a half-written file. At
    start every file of the folder is loaded; one that is damaged, foreign or an unfinished
    save is reported (:attr:`skipped`) and moved to ``STATE_DIR/set-aside/`` (renamed,
    never deleted), and the rest load.
    """

    def __init__(self, state_dir: str | None, max_games: int, checkpoints: dict):
        self.state_dir = state_dir
        self.max_games = max_games
        self.checkpoints = checkpoints
        self.games: dict[str, WebGame] = {}
        self.lock = threading.Lock()  # held while games are added, forgotten, or a save is renamed into place
        self.skipped: list[str] = []
        if state_dir:
            os.makedirs(state_dir, exist_ok=True)
            self._load()

    def _path(self, game_id: str) -> str:
        return os.path.join(self.state_dir, f"{game_id}.json")

    def _load(self) -> None:
        for name in sorted(os.listdir(self.state_dir)):
            path = os.path.join(self.state_dir, name)
            if os.path.isdir(path):  # set-aside/, or a folder of someone else's: left alone
                continue
            game_id, ext = os.path.splitext(name)
            if ext != ".json" or not GAME_ID.fullmatch(game_id):
                self._set_aside(name, "an unfinished save (the server stopped while writing it)"
                                if name.endswith(TEMP_SUFFIX) else "not a saved game of the web table")
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
                self.games[game_id] = WebGame.from_save(game_id, data, self.checkpoints, trusted=True)
            except Exception as exc:  # any failure: one damaged file must not keep the server from starting
                self._set_aside(name, f"damaged ({type(exc).__name__}: {exc})")
        while len(self.games) > self.max_games:  # restarted with a smaller --max-games
            self._delete(self._oldest().id)

    def _set_aside(self, name: str, why: str) -> None:
        """Move ``name`` into ``STATE_DIR/set-aside/`` (a free name there) and report it."""
        folder = os.path.join(self.state_dir, ASIDE_DIR)
        os.makedirs(folder, exist_ok=True)
        target, k = os.path.join(folder, name), 1
        while os.path.exists(target):
            target, k = os.path.join(folder, f"{name}.{k}"), k + 1
        try:
            os.replace(os.path.join(self.state_dir, name), target)
            where = f"moved to {target}"
        except OSError as exc:
            where = f"left in place ({exc})"
        self.skipped.append(f"{name}: {why}; {where}")

    def save(self, g: WebGame) -> None:
        """Write ``g``'s save atomically (nothing when it has been forgotten meanwhile)."""
        if not self.state_dir:
            return
        data = g.save_data()
        fd, tmp = tempfile.mkstemp(prefix=f".{g.id}.", suffix=TEMP_SUFFIX, dir=self.state_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            with self.lock:  # a game deleted or forgotten while it was written stays gone
                if self.games.get(g.id) is g:
                    os.replace(tmp, self._path(g.id))
                    return
        except BaseException:
            _remove(tmp)
            raise
        _remove(tmp)

    def _oldest(self) -> WebGame:
        """The game forgotten first: finished games first, then the least recently played."""
        return min(self.games.values(), key=lambda x: (not x.over, x.updated))

    def add(self, g: WebGame) -> None:
        with self.lock:
            while len(self.games) >= self.max_games:
                self._delete(self._oldest().id)
            self.games[g.id] = g
        self.save(g)

    def get(self, game_id: str) -> WebGame | None:
        return self.games.get(game_id)

    def _delete(self, game_id: str) -> bool:
        g = self.games.pop(game_id, None)
        if g is not None and self.state_dir:
            _remove(self._path(game_id))
        return g is not None

    def delete(self, game_id: str) -> bool:
        with self.lock:
            return self._delete(game_id)

    def list(self) -> list[dict]:
        with self.lock:
            games = list(self.games.values())
        return [g.summary() for g in sorted(games, key=lambda x: -x.updated)]


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
