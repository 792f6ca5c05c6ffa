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
    answers; anything that is not JSON passes through as it is produced."""

    def answer(scope: dict[str, Any], _request: bytes, status: int, headers: list, raw: bytes):
        body = orjson.loads(raw) if raw else None
        status, body = response(scope, status, headers, body)
        return status, headers, orjson.dumps(body) if body is not None else b""

    return Rewrite(
        app,
        answer if response is not None else None,
        request,
        applies=lambda path: path.startswith("/v1/"),
        stream=lambda media: b"json" not in media,
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
    """Records (method, path) of every /v1 request that reaches the app."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            self.calls.append((scope["method"], scope["path"]))
        await self.app(scope, receive, send)
