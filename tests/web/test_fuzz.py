"""The JSON API fuzzed from its own OpenAPI document (``GET /api/openapi.json``) with
Schemathesis, over real HTTP against the server on a free loopback port.

Every operation gets a bounded number of generated requests, inside the schema
(positive) and outside it (negative), half of those with a game id of a real game.
Each answer: never a 5xx, its status, content type and body as the document says, and
a refused request (4xx) changes no game (the witness game's full state, and the list of
games, are the same before and after).
"""

from __future__ import annotations

import json

import httpx
import pytest

from ..conftest import require  # noqa: E402

schemathesis = require("schemathesis", "pip install -e '.[dev]' (Schemathesis, the dev extra)")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import LiveServer  # noqa: E402

EXAMPLES = 30  # per operation and mode: 12 runs x 30 = 360 requests
OPERATIONS = {
    ("GET", "/api/setup"), ("GET", "/api/games"), ("POST", "/api/games"), ("POST", "/api/games/upload"),
    ("GET", "/api/games/{game_id}"), ("DELETE", "/api/games/{game_id}"), ("POST", "/api/games/{game_id}/moves"),
    ("POST", "/api/games/{game_id}/rematch"), ("GET", "/api/games/{game_id}/save"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(str(tmp_path_factory.mktemp("fuzz-state")), max_games=400)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def schema(server):
    return schemathesis.openapi.from_url(server.url + "/api/openapi.json")


class Witness:
    """A real game whose id the fuzzer gets half of the time (made again when a DELETE took it)."""

    def __init__(self, server):
        self.server, self.id = server, None

    def get(self) -> str:
        if self.id is None or self.server.app.state.store.get(self.id) is None:
            r = httpx.post(self.server.url + "/api/games", json={"game": "sly", "players": 3,
                                                                 "bots": ["greedy", "random"], "seed": "1"})
            assert r.status_code == 201, r.text
            self.id = r.json()["id"]
        return self.id

    def snapshot(self) -> tuple:
        store = self.server.app.state.store
        g = store.get(self.id)
        state = json.dumps(g.match.env.state_dict(), sort_keys=True) if g else None
        return state, g and g.match.moves_played, sorted(store.games)


def test_the_document_lists_every_operation(server, schema):
    ops = {(r.ok().method.upper(), r.ok().path) for r in schema.get_all_operations()}
    assert ops == OPERATIONS
    doc = httpx.get(server.url + "/api/openapi.json").json()
    assert doc["openapi"].startswith("3.1") and doc["info"]["title"]
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            assert op["summary"] and op["responses"], (method, path)
            if method in ("post", "delete"):
                assert "403" in op["responses"], (method, path)


# Requests outside the schema exist only where there is a body (a path id is any string).
WITH_BODY = {("POST", "/api/games"), ("POST", "/api/games/upload"), ("POST", "/api/games/{game_id}/moves")}
CASES = [(op, GenerationMode.POSITIVE) for op in sorted(OPERATIONS)] + \
        [(op, GenerationMode.NEGATIVE) for op in sorted(WITH_BODY)]


@pytest.mark.parametrize("operation,mode", CASES, ids=[f"{m} {p} {g.value}" for (m, p), g in CASES])
def test_fuzz(server, schema, operation, mode):
    method, path = operation
    op = next(r.ok() for r in schema.get_all_operations() if (r.ok().method.upper(), r.ok().path) == operation)
    witness = Witness(server)
    witness.get()
    statuses = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=op.as_strategy(generation_mode=mode), real_id=st.booleans())
    def run(case, real_id):
        if "{game_id}" in path and real_id:
            case.path_parameters = dict(case.path_parameters or {}, game_id=witness.get())
        witness.get()
        before = witness.snapshot()
        # The guard wants JSON on every state change, also without a body (DELETE, rematch).
        response = case.call(base_url=server.url, headers={"Content-Type": "application/json"}, timeout=60)
        statuses.append(response.status_code)
        assert response.status_code < 500, (case.as_curl_command(), response.text)
        case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                                 response_schema_conformance])
        if response.status_code >= 400:
            assert witness.snapshot() == before, (case.as_curl_command(), response.text)

    run()
    assert statuses and max(statuses) < 500


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70)
                           | st.floats(allow_nan=False, allow_infinity=False)
                           | st.text(max_size=8), lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=6), kids, max_size=4), max_leaves=12)


def test_fuzz_uploads_of_a_real_save_with_one_field_changed(server):
    """Schema-made uploads are refused early; these start from a real save (a real state)
    and change one field of the file, of its state or of its web log."""
    witness = Witness(server)
    gid = witness.get()
    data = httpx.get(f"{server.url}/api/games/{gid}/save").json()
    statuses = []

    @settings(max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(where=st.sampled_from(["file", "state", "web"]), key=st.data(), value=JSON_VALUES)
    def run(where, key, value):
        d = json.loads(json.dumps(data))
        part = d if where == "file" else d[where]
        name = key.draw(st.sampled_from(sorted(part)))
        part[name] = value
        before = witness.snapshot()
        r = httpx.post(f"{server.url}/api/games/upload", json=d, timeout=60)
        statuses.append(r.status_code)
        assert r.status_code in (201, 400), (where, name, value, r.text)
        if r.status_code == 400:
            assert r.json()["field"] and witness.snapshot() == before
        else:
            t = r.json()
            assert t["seed"].isdigit() and t["id"] != gid

    run()
    assert 201 in statuses and 400 in statuses
