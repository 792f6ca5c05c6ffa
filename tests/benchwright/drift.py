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

RequestHook = Callable[[dict[str, Any]], None]
ResponseHook = Callable[[dict[str, Any], int, list[tuple[bytes, bytes]], Any], tuple[int, Any]]


class Drifted:
    def __init__(self, app: Any, request: RequestHook | None = None, response: ResponseHook | None = None) -> None:
        self.app = app
        self.state = app.state
        self.request_hook = request
        self.response_hook = response

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        if self.request_hook is not None:
            self.request_hook(scope)
        if self.response_hook is None:
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                media = dict(message.get("headers") or []).get(b"content-type", b"")
                if b"json" not in media:
                    start["passthrough"] = True
                    await send(message)
                return
            if start.get("passthrough"):
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            raw = b"".join(chunks)
            body = orjson.loads(raw) if raw else None
            status, body = self.response_hook(scope, start["status"], start.get("headers") or [], body)
            raw = orjson.dumps(body) if body is not None else b""
            headers = [(k, v) for k, v in start.get("headers") or [] if k != b"content-length"]
            headers.append((b"content-length", str(len(raw)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": raw})

        await self.app(scope, receive, capture)


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
    """Records (method, path) of every /v1 request that reaches the app."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            self.calls.append((scope["method"], scope["path"]))
        await self.app(scope, receive, send)
