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
import secrets
import threading
import time

import numpy as np

from sly_scout_env.checks import check_choice, is_int
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.views import player_view

from sly_scout_env.agents.ui.play import Match, check_save, check_setup
from sly_scout_env.agents.bots.registry import available, format_spec, parse_spec, registration

# Parameters a web request may give a bot, with their (lowest, highest) value.
# Anything else (above all a file path) is refused.
WEB_PARAMS: dict[str, dict[str, tuple]] = {
    "ismcts": {"iterations": (1, 5000), "time_limit": (0.01, 30.0)},
}
# Bots that play from a checkpoint file: offered only for the checkpoints the server allows.
CHECKPOINT_BOTS = ("ppo", "neural")
# The web's name for a checkpoint parameter; the server swaps it for the allowed path.
CHECKPOINT_KEY = "checkpoint"
PATH_KEY = "path"
WEB_LOG_KEY = "web"
MAX_SEED = 2**63 - 1


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
        out.append({"spec": name, "name": name, "description": reg.description, "params": params})
    for cname, (bot, path) in sorted(checkpoints.items()):
        if game in registration(bot).games:
            out.append({"spec": f"{bot}:{CHECKPOINT_KEY}={cname}", "name": cname,
                        "description": f"{bot} checkpoint {os.path.basename(path)!r} allowed by the server",
                        "params": {}})
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
    allowed = WEB_PARAMS.get(name, {})
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
    seed = body.get("seed")
    if seed is not None and (not is_int(seed) or not 0 <= seed <= MAX_SEED):
        raise BadInput("seed", f"seed={seed!r} is not allowed; allowed values: none or an int from 0 to {MAX_SEED}",
                       f"null or an int from 0 to {MAX_SEED}")
    if seed is None:
        seed = fresh_seed()
    return {"game": game, "players": players, "seat": seat, "options": options, "bots": bots, "seed": int(seed)}


def fresh_seed() -> int:
    """A seed from the OS's entropy (shown on the page, so the deal can be replayed)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


class WebGame:
    """One match of the web table: a :class:`Match` and its move log."""

    def __init__(self, game_id: str, match: Match, log: list | None = None, created: float | None = None):
        self.id = game_id
        self.match = match
        self.log = list(log or [])
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
            match = Match(game, players, check_setup(game, players, bots, seat), seed, seat, options, io.StringIO())
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
        try:
            g.match.restore(data)
        except (ValueError, TypeError, KeyError) as exc:
            raise BadInput("state", f"the saved state is refused: {exc}") from None
        web = data.get(WEB_LOG_KEY) if isinstance(data.get(WEB_LOG_KEY), dict) else {}
        log = web.get("log") if trusted else None
        g.log = log if isinstance(log, list) else [{"seat": None, "lines": [
            f"Resumed a saved {setup['game']} game ({g.match.moves_played} moves played)."]}]
        g.created = float(web.get("created", time.time())) if trusted else time.time()
        g.updated = float(web.get("updated", g.created)) if trusted else g.created
        g.snapshot = g.public()
        return g

    def web_extra(self) -> dict:
        """The web log and times, saved under ``"web"`` next to play's fields (play ignores them)."""
        return {WEB_LOG_KEY: {"id": self.id, "log": self.log, "created": self.created, "updated": self.updated}}

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
        self.match.out = io.StringIO()
        if action is None:
            self.match.bot_move(seat)
        else:
            self.match.step(seat, action)
        lines = self.match.out.getvalue().rstrip("\n").split("\n")
        event = {"seat": seat, "lines": lines}
        self.log.append(event)
        self.updated = time.time()
        return dict(event, view=self.view(), to_act=self.to_act())

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
            "seed": m.seed,
            "options": m.options,
            "seating": [{"seat": s, "name": "you" if s == m.seat else m.bots[s].name} for s in range(m.players)],
            "moves_played": m.moves_played,
            "to_act": self.to_act(),
            "your_turn": self.your_turn(),
            "over": self.over,
            "result": result,
            "view": view,
            "legal": legal,
            "log": self.log,
        }

    def summary(self) -> dict:
        m = self.match
        return {"id": self.id, "game": m.game, "players": m.players, "seat": m.seat, "over": self.over,
                "moves_played": m.moves_played, "opponents": m.opponents, "created": self.created,
                "updated": self.updated}


def new_id() -> str:
    return secrets.token_hex(6)


class Store:
    """The games kept, at most ``max_games``, each saved as ``STATE_DIR/<id>.json``."""

    def __init__(self, state_dir: str | None, max_games: int, checkpoints: dict):
        self.state_dir = state_dir
        self.max_games = max_games
        self.checkpoints = checkpoints
        self.games: dict[str, WebGame] = {}
        self.lock = threading.Lock()
        self.skipped: list[str] = []
        if state_dir:
            os.makedirs(state_dir, exist_ok=True)
            self._load()

    def _path(self, game_id: str) -> str:
        return os.path.join(self.state_dir, f"{game_id}.json")

    def _load(self) -> None:
        for name in sorted(os.listdir(self.state_dir)):
            if not name.endswith(".json"):
                continue
            game_id = name[:-5]
            try:
                with open(self._path(game_id), encoding="utf-8") as f:
                    data = json.load(f)
                self.games[game_id] = WebGame.from_save(game_id, data, self.checkpoints, trusted=True)
            except (OSError, ValueError) as exc:  # a damaged file is left alone and reported
                self.skipped.append(f"{name}: {exc}")

    def save(self, g: WebGame) -> None:
        if self.state_dir:
            g.match.save(self._path(g.id), g.web_extra())

    def add(self, g: WebGame) -> None:
        with self.lock:
            while len(self.games) >= self.max_games:
                # Forget the least recently played game, finished games first.
                oldest = min(self.games.values(), key=lambda x: (not x.over, x.updated))
                self._delete(oldest.id)
            self.games[g.id] = g
        self.save(g)

    def get(self, game_id: str) -> WebGame | None:
        return self.games.get(game_id)

    def _delete(self, game_id: str) -> bool:
        g = self.games.pop(game_id, None)
        if g is not None and self.state_dir:
            try:
                os.remove(self._path(game_id))
            except FileNotFoundError:
                pass
        return g is not None

    def delete(self, game_id: str) -> bool:
        with self.lock:
            return self._delete(game_id)

    def list(self) -> list[dict]:
        return [g.summary() for g in sorted(self.games.values(), key=lambda x: -x.updated)]
