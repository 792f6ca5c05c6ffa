"""The engine serves a toy API that differs from Benchwright on every seam, with no
engine change (DESIGN: a new API is a folder). Each test names the seam it proves."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from mock_server.app import build_app
from mock_server.engine import Api, MockConfig
from tests.engine.toy.profile import PROFILE, SEED_KEY

KEY = {"X-Api-Key": SEED_KEY}


@pytest.fixture
def client():
    return TestClient(build_app(Api(PROFILE, MockConfig())))


def test_root_mounted_paths_match_exactly_as_written(client):
    """Routing: `/widgets/` has a trailing slash, `/widgets/{id}/events` has none; no redirect either way."""
    assert client.get("/widgets/").status_code == 200
    missing = client.get("/widgets", follow_redirects=False)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    created = client.post("/widgets/", json={"name": "a"}, headers=KEY).json()
    assert client.get(f"/widgets/{created['id']}/events", headers=KEY).status_code == 200
    assert client.get(f"/widgets/{created['id']}/events/", headers=KEY, follow_redirects=False).status_code == 404


def test_errors_use_the_apis_own_envelope(client):
    """Error format: `{"error": {"code", "message"}}`, for the engine's errors and the handler's."""
    no_key = client.post("/widgets/", json={"name": "a"})
    assert no_key.status_code == 401 and no_key.json() == {
        "error": {"code": "unauthenticated", "message": "Send X-Api-Key."}
    }
    bad = client.post("/widgets/", json={"name": ""}, headers=KEY)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_argument"
    assert "body.name" in bad.json()["error"]["message"]
    wrong_method = client.put("/widgets/", headers=KEY)
    assert wrong_method.status_code == 405 and set(wrong_method.headers["allow"].split(", ")) == {"GET", "POST"}


def test_api_key_header_auth(client):
    """Auth: the spec's `apiKey` scheme in `X-Api-Key`; an unknown key is 401, anonymous listing is open."""
    assert client.get("/widgets/w_1/", headers={"X-Api-Key": "nope"}).status_code == 401
    assert client.get("/widgets/").status_code == 200


def test_limit_offset_paging_with_a_silent_clamp(client):
    """Pagination: limit/offset, `x-clamp` max 50 and default 10 applied by the engine."""
    for n in range(60):
        client.post("/widgets/", json={"name": f"w{n}"}, headers=KEY)
    assert len(client.get("/widgets/").json()["items"]) == 10
    assert len(client.get("/widgets/?limit=500").json()["items"]) == 50
    page = client.get("/widgets/?limit=5&offset=57").json()
    assert [w["name"] for w in page["items"]] == ["w57", "w58", "w59"] and page["total"] == 60


def test_body_key_get_or_create(client):
    """Idempotency by a body key: a repeated `client_key` answers the first widget, 200 not 201."""
    first = client.post("/widgets/", json={"name": "a", "client_key": "k"}, headers=KEY)
    again = client.post("/widgets/", json={"name": "b", "client_key": "k"}, headers=KEY)
    assert (first.status_code, again.status_code) == (201, 200) and again.json() == first.json()


def test_ndjson_stream_ends_with_a_terminal_error_event(client):
    """Streams: NDJSON lines, then `{"type": "error"}` under HTTP 200."""
    widget = client.post("/widgets/", json={"name": "a", "size": 2}, headers=KEY).json()
    with client.stream("GET", f"/widgets/{widget['id']}/events", headers=KEY) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
        lines = [line for line in response.iter_lines() if line]
    assert lines[:2] == ['{"type":"tick","n":0}', '{"type":"tick","n":1}']
    assert lines[-1].startswith('{"type":"error"')


def test_bodies_bounded_typed_and_labelled(client):
    """Bodies: 413 past the limit (declared length refused before reading), 415 for a non-JSON
    type, no Content-Type read as JSON, and integers bounded only by the spec's `format: int64`."""
    small = TestClient(build_app(Api(PROFILE, MockConfig(max_body_bytes=64))))
    too_big = small.post("/widgets/", content=b'{"name": "' + b"x" * 100 + b'"}', headers=KEY)
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "payload_too_large"
    xml = client.post("/widgets/", content=b"<w/>", headers={**KEY, "Content-Type": "text/xml"})
    assert xml.status_code == 415 and xml.json()["error"]["code"] == "unsupported_media_type"
    bare = client.post("/widgets/", content=b'{"name": "curl"}', headers=KEY)
    assert bare.status_code == 201
    huge = client.post("/widgets/", json={"name": "big", "size": 2**64}, headers=KEY)
    assert huge.status_code == 400


def test_control_core_and_its_own_routes(client):
    """Control: the generic core (reset, clock, journal, faults, spec) plus the toy's `/__mock/keys`."""
    key = client.post("/__mock/keys").json()["key"]
    assert client.post("/widgets/", json={"name": "a"}, headers={"X-Api-Key": key}).status_code == 201
    assert client.post("/__mock/faults", json={"operation_id": "listWidgets", "status": 400}).status_code == 201
    faulted = client.get("/widgets/")
    assert faulted.status_code == 400 and faulted.json()["error"]["code"] == "invalid_argument"
    assert client.delete("/__mock/faults").status_code == 204
    journal = client.get("/__mock/requests").json()["data"]
    assert all(entry["headers"].get("x-api-key") in (None, "[redacted]") for entry in journal)
    assert client.get("/__mock/openapi.json").json()["info"]["title"] == "Toy widgets API"
    assert client.post("/__mock/clock", json={"advance_seconds": 5}).status_code == 200
    assert client.post("/__mock/reset").status_code == 204
    assert client.get("/widgets/").json()["total"] == 0


def test_cors_preflight_and_headers(client):
    """CORS on by default: a preflight from another origin is answered; `cors=False` turns it off."""
    preflight = {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}
    answer = client.options("/widgets/", headers={**preflight, "Access-Control-Request-Headers": "x-api-key"})
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == "http://localhost:3000"
    plain = client.get("/widgets/", headers={"Origin": "http://localhost:3000"})
    assert plain.headers["access-control-allow-origin"] == "http://localhost:3000"
    off = TestClient(build_app(Api(PROFILE, MockConfig(cors=False))))
    assert "access-control-allow-origin" not in off.get("/widgets/", headers={"Origin": "http://x"}).headers


def test_a_model_refusal_is_rendered_in_the_apis_format(client):
    """Refusals: a model that knows no HTTP raises `Refusal`; the engine renders it like a `Problem`."""
    from mock_server.policies.problems import Refusal
    from tests.engine.toy.profile import handlers

    original = handlers.get("getWidget")

    async def refuse(ctx):
        raise Refusal(409, "widget_locked", "This widget is locked.", widget=ctx.path["id"])

    handlers._by_id["getWidget"] = refuse
    try:
        response = client.get("/widgets/w_9/", headers=KEY)
    finally:
        handlers._by_id["getWidget"] = original
    assert response.status_code == 409
    assert response.json() == {"error": {"code": "widget_locked", "message": "This widget is locked.", "widget": "w_9"}}


def _asgi_post(app, messages: list[dict]) -> tuple[int, dict]:
    """POST /widgets/ straight through ASGI, the body arriving as the given messages."""
    import asyncio
    import json

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/widgets/", "raw_path": b"/widgets/", "query_string": b"", "root_path": "",
        "headers": [(b"x-api-key", SEED_KEY.encode()), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    pending = list(messages)
    sent: list[dict] = []

    async def receive():
        return pending.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)


def test_a_body_read_in_chunks_within_the_limit_and_a_client_that_goes_away():
    """Bodies: a body in several ASGI messages is read whole; past the limit (no declared length) it is 413
    once the limit is passed; a client that disconnects mid-body gets a 400, never a hang or a 500."""
    app = build_app(Api(PROFILE, MockConfig(max_body_bytes=64)))
    status, body = _asgi_post(
        app,
        [
            {"type": "http.request", "body": b'{"name": ', "more_body": True},
            {"type": "http.request", "body": b'"chunked"}', "more_body": False},
        ],
    )
    assert (status, body["name"]) == (201, "chunked")
    chunk = {"type": "http.request", "body": b" " * 40, "more_body": True}
    status, body = _asgi_post(app, [chunk, chunk, {"type": "http.disconnect"}])
    assert (status, body["error"]["code"]) == (413, "payload_too_large")
    status, body = _asgi_post(
        app, [{"type": "http.request", "body": b"{", "more_body": True}, {"type": "http.disconnect"}]
    )
    assert (status, body["error"]["code"]) == (400, "invalid_argument")
