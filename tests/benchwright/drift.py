"""Deliberate drift, injected around the mock, to prove the contract suite notices.

`Drifted(app, request=..., response=...)` is an ASGI wrapper: `request(scope)` may
rewrite the incoming scope (drop a header, a query parameter), `response(scope,
status, headers, body)` may rewrite a buffered JSON response. Streams pass through
untouched unless the request hook changed them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

import orjson

from tests.drifting import Rewrite

RequestHook = Callable[[dict[str, Any]], None]
ResponseHook = Callable[[dict[str, Any], int, list[tuple[bytes, bytes]], Any], tuple[int, Any]]


def Drifted(app: Any, request: RequestHook | None = None, response: ResponseHook | None = None) -> Any:
    """The shared drift wrapper (`tests.drifting`) on `/v1` paths, with a hook over parsed JSON
    answers; anything that is not one JSON document passes through as it is produced."""

    def answer(scope: dict[str, Any], _request: bytes, status: int, headers: list, raw: bytes):
        body = orjson.loads(raw) if raw else None
        status, body = response(scope, status, headers, body)
        return status, headers, orjson.dumps(body) if body is not None else b""

    return Rewrite(
        app,
        answer if response is not None else None,
        request,
        applies=lambda path: path.startswith("/v1/"),
        # a JSON document is parsed; anything else (an event stream, an NDJSON dataset) passes as produced
        stream=lambda media: b"json" not in media or b"ndjson" in media,
    )


def drop_request_header(name: bytes, path_suffix: str = "", method: str | None = None) -> RequestHook:
    def hook(scope: dict[str, Any]) -> None:
        if scope["path"].endswith(path_suffix) and (method is None or scope["method"] == method):
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != name]

    return hook


def drop_query_parameter(name: str, path_suffix: str) -> RequestHook:
    def hook(scope: dict[str, Any]) -> None:
        if scope["path"].endswith(path_suffix):
            query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode()) if k != name]
            scope["query_string"] = urlencode(query).encode()

    return hook


def chain(*hooks: RequestHook) -> RequestHook:
    def hook(scope: dict[str, Any]) -> None:
        for each in hooks:
            each(scope)

    return hook


class Recorder:
    """Records (method, path) of every request under `prefix` (Benchwright's `/v1/` by default)
    that reaches the app."""

    def __init__(self, app: Any, prefix: str = "/v1/") -> None:
        self.app = app
        self.state = app.state
        self.prefix = prefix
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.prefix):
            self.calls.append((scope["method"], scope["path"]))
        await self.app(scope, receive, send)


async def _buffered(app: Any, scope: dict[str, Any], receive: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run `app` and keep what it sends: the response start and its body messages."""
    start: dict[str, Any] = {}
    body: list[dict[str, Any]] = []

    async def keep(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        else:
            body.append(message)

    await app(scope, receive, keep)
    return start, body


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    return next((v for k, v in scope["headers"] if k.lower() == name), None)


class GlobalIdempotency:
    """A server whose Idempotency-Key cache ignores who is calling: the first response for a
    (method, path, key) is replayed to anyone who sends that key again."""

    def __init__(self, app: Any) -> None:
        self.app, self.state = app, app.state
        self.cache: dict[tuple[str, str, bytes], tuple[dict[str, Any], list[dict[str, Any]]]] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        key = _header(scope, b"idempotency-key") if scope["type"] == "http" else None
        if key is None or scope["method"] == "GET":
            await self.app(scope, receive, send)
            return
        entry = (scope["method"], scope["path"], key)
        if entry not in self.cache:
            start, body = await _buffered(self.app, scope, receive)
            if start.get("status", 500) < 500:
                self.cache[entry] = (start, body)
            await send(start)
            for message in body:
                await send(message)
            return
        start, body = self.cache[entry]
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"idempotent-replayed"]
        await send({**start, "headers": [*headers, (b"idempotent-replayed", b"true")]})
        for message in body:
            await send(message)


class InFlightQueued:
    """A server that queues a retry behind the request still in flight with its key and then
    replays the result, where §3.7 answers such a retry 409 at once."""

    def __init__(self, app: Any) -> None:
        self.app, self.state = app, app.state
        self.locks: dict[bytes, Any] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        import asyncio

        key = _header(scope, b"idempotency-key") if scope["type"] == "http" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        async with self.locks.setdefault(key, asyncio.Lock()):
            await self.app(scope, receive, send)


class InFlightDuplicates:
    """A server that does not notice a retry while the first request is in flight: a copy
    arriving meanwhile runs under a key of its own. Each keyed answer is held `hold`
    seconds, so copies sent together overlap."""

    def __init__(self, app: Any, hold: float = 0.3) -> None:
        self.app, self.state, self.hold = app, app.state, hold
        self.in_flight: set[bytes] = set()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        import asyncio

        key = _header(scope, b"idempotency-key") if scope["type"] == "http" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        if key in self.in_flight:
            scope = dict(scope)
            copy = key + b"-" + str(len(self.in_flight)).encode()
            scope["headers"] = [(k, copy if k.lower() == b"idempotency-key" else v) for k, v in scope["headers"]]
            await self.app(scope, receive, send)
            return
        self.in_flight.add(key)
        try:
            start, body = await _buffered(self.app, scope, receive)
            await asyncio.sleep(self.hold)
        finally:
            self.in_flight.discard(key)
        await send(start)
        for message in body:
            await send(message)


class StreamRewrite:
    """Rewrites the chunks of server-sent event streams (`fn(bytes) -> bytes`); everything
    else passes through."""

    def __init__(self, app: Any, fn: Callable[[bytes], bytes]) -> None:
        self.app, self.state, self.fn = app, app.state, fn

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        streaming = False

        async def rewrite(message: dict[str, Any]) -> None:
            nonlocal streaming
            if message["type"] == "http.response.start":
                media = dict((k.lower(), v) for k, v in message.get("headers", [])).get(b"content-type", b"")
                streaming = b"event-stream" in media
            elif streaming and message["type"] == "http.response.body":
                message = {**message, "body": self.fn(message.get("body", b""))}
            await send(message)

        await self.app(scope, receive, rewrite)
