"""The web table's ASGI app (Starlette): the JSON API and the static page.

API (documented in docs/web.md; the page uses nothing else):

    GET    /api/openapi.json             this API as an OpenAPI 3.1 document
    GET    /api/setup                    games, player counts, options, bots, limits
    GET    /api/games                    the games kept (summaries)
    POST   /api/games                    {"game", "players", "seat", "bots", "options", "seed"} -> table
    GET    /api/games/{id}               the table as the human seat sees it
    POST   /api/games/{id}/moves         {"action": id, "turn": moves_played?} -> {"events", "table"}
    POST   /api/games/{id}/rematch       same setup, fresh seed -> table
    GET    /api/games/{id}/save          the game as a ``sly-scout play --resume`` file
    POST   /api/games/upload             such a file -> table
    DELETE /api/games/{id}

Bad input: 400 ``{"error", "field", "allowed"}`` and nothing changes; unknown id: 404.
Every request passes the safety rules of :mod:`.guard` first (Host allow-list; POST and
DELETE only as JSON from the page's own origin: 400/403; security headers on every answer).
Moves and bots run in worker threads, so the event loop keeps serving while a bot thinks.
"""

from __future__ import annotations

import json
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sly_scout_env.agents.ui.web import guard, openapi, words
from sly_scout_env.agents.ui.web.session import (
    BadInput,
    Store,
    WebGame,
    bot_catalogue,
    check_new_game,
    fresh_seed,
    new_id,
)
from sly_scout_env.games import all_games

DEFAULT_MAX_GAMES = 50
DEFAULT_MAX_BODY = 256 * 1024  # bytes; a save file of a long game is a few tens of KB


class NotFound(Exception):
    """An unknown game id (HTTP 404)."""


def _error(status: int, body: dict) -> JSONResponse:
    return JSONResponse(body, status_code=status)


async def _read_json(request: Request, limit: int):
    """The request's JSON body; BadInput when it is too large or not JSON."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > limit:
        raise BadInput("body", f"the body has {size} bytes; the limit is {limit} bytes", [limit])
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise BadInput("body", f"the body is larger than the limit of {limit} bytes", [limit])
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput("body", f"the body is not valid JSON ({exc})", "a JSON object") from None


def create_app(state_dir: str | None = None, *, max_games: int = DEFAULT_MAX_GAMES,
               max_body: int = DEFAULT_MAX_BODY, checkpoints: dict | None = None,
               hosts: list[str] | None = None) -> Starlette:
    """The app; games are kept under ``state_dir`` (None: in memory only).

    ``hosts``: the Host names served (default: the loopback names, :func:`guard.allowed_hosts`).
    """
    api = _Api(state_dir, max_games, max_body, dict(checkpoints or {}))
    app = Starlette(routes=_routes(api), exception_handlers={BadInput: _bad_input, NotFound: _not_found},
                    middleware=guard.middleware(list(hosts) if hosts is not None else guard.allowed_hosts()))
    app.state.store = api.store
    return app


def _routes(api: _Api) -> list:
    """The page, the API (module docstring) and the static files."""
    return [
        Route("/", _index, include_in_schema=False),
        Route("/api/openapi.json", _openapi, include_in_schema=False),
        Route("/api/setup", api.setup),
        Route("/api/games", api.list_games, methods=["GET"]),
        Route("/api/games", api.create, methods=["POST"]),
        Route("/api/games/upload", api.upload, methods=["POST"]),
        Route("/api/games/{game_id}", api.get_game, methods=["GET"]),
        Route("/api/games/{game_id}", api.delete, methods=["DELETE"]),
        Route("/api/games/{game_id}/moves", api.move, methods=["POST"]),
        Route("/api/games/{game_id}/rematch", api.rematch, methods=["POST"]),
        Route("/api/games/{game_id}/save", api.download, methods=["GET"]),
        Mount("/static", StaticFiles(directory=str(_static_dir())), name="static"),
    ]


class _Api:
    """The API's handlers around one store of games."""

    def __init__(self, state_dir: str | None, max_games: int, max_body: int, checkpoints: dict) -> None:
        self.checkpoints = checkpoints
        self.max_games = max_games
        self.max_body = max_body
        self.store = Store(state_dir, max_games, checkpoints)

    # -- what the page can set up, and the games kept --------------------------------------
    async def setup(self, request: Request) -> JSONResponse:
        """What the start page offers.
        ---
        summary: games, player counts, options, bots (with levels), limits
        responses:
          200:
            description: the setup
            content: {application/json: {schema: {$ref: "#/components/schemas/Setup"}}}
        """
        games = [_game_setup(spec, self.checkpoints) for spec in all_games()]
        return JSONResponse({"games": games, "max_games": self.max_games, "max_body": self.max_body,
                             "skipped_saves": self.store.skipped})

    async def list_games(self, request: Request) -> JSONResponse:
        """The games kept.
        ---
        summary: the games kept, most recently played first
        responses:
          200:
            description: summaries
            content: {application/json: {schema: {$ref: "#/components/schemas/GameList"}}}
        """
        return JSONResponse({"games": self.store.list()})

    # -- starting a game: new, uploaded, rematch -------------------------------------------
    async def create(self, request: Request) -> JSONResponse:
        """A new game.
        ---
        summary: start a match; the bots seated before you move first
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: "#/components/schemas/NewGame"}}}
        responses:
          201:
            description: the table
            content: {application/json: {schema: {$ref: "#/components/schemas/Table"}}}
          400: {$ref: "#/components/responses/BadInput"}
          403: {$ref: "#/components/responses/Foreign"}
          500: {$ref: "#/components/responses/BotFailed"}
        """
        args = check_new_game(await _read_json(request, self.max_body), self.checkpoints)
        return await self._start(WebGame.new, new_id(), args["game"], args["players"], args["seat"],
                                 args["options"], args["bots"], args["seed"])

    async def upload(self, request: Request) -> JSONResponse:
        """A game from a save file.
        ---
        summary: continue a saved game (a download here, or a save of `sly-scout play`) as a new game
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: "#/components/schemas/Save"}}}
        responses:
          201:
            description: the table of the new game, at the saved position
            content: {application/json: {schema: {$ref: "#/components/schemas/Table"}}}
          400: {$ref: "#/components/responses/BadInput"}
          403: {$ref: "#/components/responses/Foreign"}
          500: {$ref: "#/components/responses/BotFailed"}
        """
        data = await _read_json(request, self.max_body)
        return await self._start(WebGame.from_save, new_id(), data, self.checkpoints)

    async def rematch(self, request: Request) -> JSONResponse:
        """The same setup, a fresh deal.
        ---
        summary: a new game with the same seats, bots and options and a fresh seed
        parameters: [{$ref: "#/components/parameters/GameId"}]
        responses:
          201:
            description: the new table
            content: {application/json: {schema: {$ref: "#/components/schemas/Table"}}}
          400: {$ref: "#/components/responses/BadInput"}
          403: {$ref: "#/components/responses/Foreign"}
          404: {$ref: "#/components/responses/NotFound"}
          500: {$ref: "#/components/responses/BotFailed"}
        """
        m = self.find(request).match
        return await self._start(WebGame.new, new_id(), m.game, m.players, m.seat, m.options, m.opponents,
                                 fresh_seed())

    async def _start(self, build, *args) -> JSONResponse:
        """``build(*args)`` a game in a worker thread, let the bots seated before the human move, keep it."""
        def work():
            g = build(*args)
            with g.lock:
                try:
                    g.run_bots()  # bots seated before the human move first
                except BadInput:
                    raise
                except Exception as exc:  # a failing bot: the game is kept, the page is told
                    return self._bot_failed(g, exc)
            self.store.add(g)
            return g.snapshot

        out = await run_in_threadpool(work)
        return JSONResponse(out, status_code=500 if "error" in out else 201)

    def _bot_failed(self, g: WebGame, exc: Exception) -> dict:
        """Keep and save the game as it is; the error body the page is sent."""
        g.snapshot = g.public()
        if self.store.get(g.id) is None:
            self.store.add(g)
        self.store.save(g)
        return {"error": f"a bot failed: {type(exc).__name__}: {exc}; the game is saved as it is",
                "field": None, "table": g.snapshot}

    # -- one game --------------------------------------------------------------------------
    def find(self, request: Request) -> WebGame:
        g = self.store.get(request.path_params["game_id"])
        if g is None:
            raise NotFound(request.path_params["game_id"])
        return g

    async def get_game(self, request: Request) -> JSONResponse:
        """One table.
        ---
        summary: the table as your seat sees it (as of the last finished move)
        parameters: [{$ref: "#/components/parameters/GameId"}]
        responses:
          200:
            description: the table
            content: {application/json: {schema: {$ref: "#/components/schemas/Table"}}}
          404: {$ref: "#/components/responses/NotFound"}
        """
        return JSONResponse(self.find(request).snapshot)

    async def move(self, request: Request) -> JSONResponse:
        """Your move and the bots' replies.
        ---
        summary: play a legal move; the bots answer until your next turn or the end
        parameters: [{$ref: "#/components/parameters/GameId"}]
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: "#/components/schemas/Move"}}}
        responses:
          200:
            description: one event per move (yours first), and the new table
            content: {application/json: {schema: {$ref: "#/components/schemas/MoveAnswer"}}}
          400: {$ref: "#/components/responses/BadInput"}
          403: {$ref: "#/components/responses/Foreign"}
          404: {$ref: "#/components/responses/NotFound"}
          500: {$ref: "#/components/responses/BotFailed"}
        """
        g = self.find(request)
        body = _check_move(await _read_json(request, self.max_body), g)

        def work():
            with g.lock:  # one move at a time per game; the bots reply in this thread
                try:
                    events = g.play(body["action"], body.get("turn"))
                except BadInput:
                    raise
                except Exception as exc:  # a failing bot: keep what was played, tell the page
                    return self._bot_failed(g, exc)
                self.store.save(g)
                return {"events": events, "table": g.snapshot}

        out = await run_in_threadpool(work)
        return JSONResponse(out, status_code=500 if "error" in out else 200)

    async def download(self, request: Request) -> Response:
        """The save file.
        ---
        summary: the game as a `sly-scout play --resume` file (every hand in it)
        parameters: [{$ref: "#/components/parameters/GameId"}]
        responses:
          200:
            description: the save file (an attachment)
            content: {application/json: {schema: {$ref: "#/components/schemas/Save"}}}
          404: {$ref: "#/components/responses/NotFound"}
        """
        g = self.find(request)
        with g.lock:
            data = g.save_data()
        return JSONResponse(data, headers={
            "Content-Disposition": f'attachment; filename="sly-scout-{g.match.game}-{g.id}.json"'})

    async def delete(self, request: Request) -> JSONResponse:
        """Forget a game.
        ---
        summary: delete a game (and its file in the state directory)
        parameters: [{$ref: "#/components/parameters/GameId"}]
        responses:
          200:
            description: deleted
            content: {application/json: {schema: {$ref: "#/components/schemas/Deleted"}}}
          400: {$ref: "#/components/responses/BadInput"}
          403: {$ref: "#/components/responses/Foreign"}
          404: {$ref: "#/components/responses/NotFound"}
        """
        game_id = request.path_params["game_id"]
        if not self.store.delete(game_id):
            raise NotFound(game_id)
        return JSONResponse({"deleted": game_id})


def _game_setup(spec, checkpoints: dict) -> dict:
    """What the page offers for one game: players, options, bots."""
    return {
        "name": spec.name, "title": spec.title, "player_counts": list(spec.player_counts),
        "default_players": spec.default_players,
        "options": [{"name": o.name, "default": o.default, "choices": list(o.choices) if o.choices else None,
                     "help": o.help} | words.option_words(spec.name, o) for o in spec.options],
        "bots": bot_catalogue(spec.name, checkpoints),
        "levels": words.levels(spec.name),
    }


def _check_move(body, g: WebGame) -> dict:
    """The body of a move, ``{"action": id, "turn": moves_played?}``; BadInput otherwise."""
    if not isinstance(body, dict):
        raise BadInput("body", "the body must be a JSON object {\"action\": id}", ["action", "turn"])
    unknown = sorted(set(body) - {"action", "turn"})
    if unknown:
        raise BadInput(unknown[0], f"field {unknown[0]!r} is not allowed", ["action", "turn"])
    if "action" not in body:
        raise BadInput("action", "field 'action' is missing: give the id of a legal move",
                       [m["id"] for m in g.snapshot["legal"]])
    return body


async def _openapi(request: Request) -> JSONResponse:
    return JSONResponse(openapi.document(request.app.routes))


async def _index(request: Request) -> FileResponse:
    return FileResponse(str(_static_dir() / "index.html"))


async def _bad_input(request: Request, exc: BadInput) -> JSONResponse:
    return _error(400, exc.to_json())


async def _not_found(request: Request, exc: NotFound) -> JSONResponse:
    return _error(404, {"error": f"no game with id {exc.args[0]!r} (it was deleted, or never existed)",
                        "field": "id"})


def _static_dir():
    return resources.files("sly_scout_env.agents.ui.web") / "static"
