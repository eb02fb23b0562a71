"""The OpenAPI document of the web table's JSON API, served at ``GET /api/openapi.json``.

Starlette's :class:`~starlette.schemas.SchemaGenerator` builds it from the routes: each
handler of :class:`sly_scout_env.agents.ui.web.app._Api` carries its operation as YAML
after ``---`` in its docstring; the shared shapes are :data:`COMPONENTS` below. The
test suite fuzzes every operation with Schemathesis against this document
(tests/web/test_fuzz.py), and checks every answer against it.
"""

from __future__ import annotations

from starlette.schemas import SchemaGenerator

from sly_scout_env import __version__

_ERROR = {
    "type": "object",
    "required": ["error", "field"],
    "properties": {
        "error": {"type": "string", "description": "what is wrong, in words"},
        "field": {"type": ["string", "null"], "description": "the field refused (`options.NAME`, `bots[i]`, "
                  "`body`, `id`, `origin`, `content-type`, ...)"},
        "allowed": {"description": "what would be accepted (a list, a range or words)"},
        "table": {"$ref": "#/components/schemas/Table"},
    },
}

_SEAT = {"type": "integer", "minimum": 0, "maximum": 4}

COMPONENTS = {
    "schemas": {
        "Error": _ERROR,
        "NewGame": {
            "type": "object",
            "additionalProperties": False,
            "required": ["game"],
            "properties": {
                "game": {"type": "string", "enum": ["scout", "sly"]},
                "players": {"type": "integer", "description": "default: the game's default count"},
                "seat": {"type": "integer", "description": "your seat, 0-based (default 0)"},
                "bots": {"type": "array", "items": {"type": "string"},
                         "description": "a bot spec per other seat, in seat order (`greedy`, "
                                        "`ismcts:iterations=200`, ...; GET /api/setup lists them)"},
                "options": {"type": "object", "description": "rule options by code name (GET /api/setup)"},
                "seed": {"type": ["string", "integer", "null"],
                         "description": "a string of decimal digits, 0 to 2**63 - 1 (an int is accepted too); "
                                        "null or absent: a fresh deal"},
            },
        },
        "Move": {
            "type": "object",
            "additionalProperties": False,
            "required": ["action"],
            "properties": {
                "action": {"type": ["integer", "null"],
                           "description": "the id of a legal move; null lets the bots go on after one failed"},
                "turn": {"type": "integer", "description": "moves_played as the client saw it: refused when "
                                                          "the game has moved on"},
            },
        },
        "Setup": {
            "type": "object",
            "required": ["games", "max_games", "max_body", "skipped_saves"],
            "properties": {
                "games": {"type": "array", "items": {"type": "object", "required": ["name", "title",
                                                                                    "player_counts", "options",
                                                                                    "bots"]}},
                "max_games": {"type": "integer"},
                "max_body": {"type": "integer"},
                "skipped_saves": {"type": "array", "items": {"type": "string"}},
            },
        },
        "Summary": {
            "type": "object",
            "required": ["id", "game", "players", "seat", "over", "moves_played", "opponents", "created",
                         "updated"],
            "properties": {
                "id": {"type": "string"}, "game": {"type": "string"}, "players": {"type": "integer"},
                "seat": _SEAT, "over": {"type": "boolean"}, "moves_played": {"type": "integer"},
                "opponents": {"type": "array", "items": {"type": "string"}},
                "created": {"type": "number", "description": "Unix time"},
                "updated": {"type": "number", "description": "Unix time"},
            },
        },
        "GameList": {
            "type": "object", "required": ["games"],
            "properties": {"games": {"type": "array", "items": {"$ref": "#/components/schemas/Summary"}}},
        },
        "LogEntry": {
            "type": "object", "required": ["seat", "lines"],
            "properties": {"seat": {"type": ["integer", "null"]},
                           "lines": {"type": "array", "items": {"type": "string"}}},
        },
        "Table": {
            "type": "object",
            "description": "the game as your seat sees it (docs/web.md, 'The table')",
            "required": ["id", "game", "title", "players", "seat", "seed", "options", "seating", "moves_played",
                         "to_act", "your_turn", "over", "result", "view", "legal", "log"],
            "properties": {
                "id": {"type": "string"},
                "game": {"type": "string", "enum": ["scout", "sly"]},
                "title": {"type": "string"},
                "players": {"type": "integer"},
                "seat": _SEAT,
                "seed": {"type": "string", "pattern": "^[0-9]+$"},
                "options": {"type": "object"},
                "seating": {"type": "array", "items": {"type": "object", "required": ["seat", "name"]}},
                "moves_played": {"type": "integer", "minimum": 0},
                "to_act": {"type": ["integer", "null"]},
                "your_turn": {"type": "boolean"},
                "over": {"type": "boolean"},
                "result": {"type": ["object", "null"]},
                "view": {"type": "object"},
                "legal": {"type": "array", "items": {"type": "object", "required": ["id", "text", "move"],
                                                     "properties": {"id": {"type": "integer"},
                                                                    "text": {"type": "string"},
                                                                    "move": {"type": "object"}}}},
                "log": {"type": "array", "items": {"$ref": "#/components/schemas/LogEntry"}},
                "round_end": {"type": ["object", "null"],
                              "description": "the last round's summary, every hand revealed (once it is over)"},
            },
        },
        "MoveAnswer": {
            "type": "object", "required": ["events", "table"],
            "properties": {
                "events": {"type": "array", "items": {
                    "type": "object", "required": ["seat", "lines", "view", "to_act"],
                    "properties": {"seat": {"type": "integer"}, "lines": {"type": "array", "items": {"type": "string"}},
                                   "view": {"type": "object"}, "to_act": {"type": ["integer", "null"]}}}},
                "table": {"$ref": "#/components/schemas/Table"},
            },
        },
        "Save": {
            "type": "object",
            "description": "a save of `sly-scout play --save` (the whole state: every hand), plus `web`",
            "required": ["format", "game", "players", "seat", "seed", "options", "opponents", "state"],
            "properties": {"format": {"type": "string", "enum": ["sly-scout-play"]}},
        },
        "Deleted": {"type": "object", "required": ["deleted"], "properties": {"deleted": {"type": "string"}}},
    },
    "responses": {
        "BadInput": {"description": "refused, nothing changed (the field and what is allowed)",
                     "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        "Foreign": {"description": "refused: another origin, or Sec-Fetch-Site not same-origin (nothing changed)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        "NotFound": {"description": "no game with this id",
                     "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        "BotFailed": {"description": "a bot failed while answering: the game is kept as it stands (in `table`)",
                      "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
    },
    "parameters": {
        "GameId": {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"},
                   "description": "the game's id (in the page's address: `#game=ID`)"},
    },
}

BASE = {
    "openapi": "3.1.0",
    "info": {
        "title": "sly-scout web table",
        "version": __version__,
        "description": "The JSON API of `sly-scout serve` (docs/web.md). Requests that change something "
                       "(POST, DELETE) must be sent with `Content-Type: application/json`, and from a browser "
                       "only by the page of this server (the Origin is checked); the Host must be one the "
                       "server answers for.",
    },
    "components": COMPONENTS,
}

GENERATOR = SchemaGenerator(BASE)


def document(routes) -> dict:
    """The OpenAPI document of ``routes`` (the operations whose handler has YAML in its docstring)."""
    return GENERATOR.get_schema(routes=routes)
