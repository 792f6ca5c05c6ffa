"""`Front`: the differential engine as an HTTP front (ASGI) for clients that take a URL rather than
an httpx client (a published SDK, a catalogue's checks, `curl`): each request goes to the target
through `DifferentialTransport` (so also to the oracle), and the target's answer comes back as it
was; streams are relayed chunk by chunk and not compared."""

from __future__ import annotations

from typing import Any

import anyio
import httpx

from contracts.runner.connections import http_transport

from .engine import Engine
from .transport import DifferentialTransport

DROPPED = frozenset({"content-length", "transfer-encoding", "connection", "accept-encoding"})
NOT_RELAYED = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding"})


class ToTarget(httpx.BaseTransport):
    """Sends a request addressed to the front on to the target, its `Host` kept: the target's absolute
    URLs (links, `Location`, signed upload and download URLs) then name the front, so a client that
    follows them stays in view."""

    def __init__(self, target: httpx.URL) -> None:
        self.target = target
        self.inner = http_transport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme=self.target.scheme, host=self.target.host, port=self.target.port)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class Front:
    def __init__(self, engine: Engine, target_base: str) -> None:
        self.engine = engine
        # the transport itself, not a client: no cookie jar, no redirects, the request exactly as sent
        self.transport = DifferentialTransport(engine, ToTarget(httpx.URL(target_base.rstrip("/"))))
        self.public: str | None = None  # the front's own base URL, as its clients reach it
        self.state = type("State", (), {})()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        headers = [(k, v) for k, v in headers if k.lower() not in DROPPED] + [("accept-encoding", "identity")]
        raw = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            raw += b"?" + scope["query_string"]
        if self.public is None:
            host, port = scope["server"]
            self.public = f"http://{host}:{port}"
            self.engine.serve_as(self.public)
        request = httpx.Request(
            scope["method"], httpx.URL(self.public).copy_with(raw_path=raw), headers=headers, content=bytes(body)
        )
        request.extensions["timeout"] = httpx.Timeout(60.0).as_dict()
        response = await anyio.to_thread.run_sync(self.transport.handle_request, request)
        raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()]
        raw = [(k, v) for k, v in raw if k.decode() not in NOT_RELAYED]
        if response.is_stream_consumed or hasattr(response, "_content"):
            content = response.content
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": [*raw, (b"content-length", str(len(content)).encode())]})  # fmt: skip
            await send({"type": "http.response.body", "body": content})
            return
        await send({"type": "http.response.start", "status": response.status_code, "headers": raw})
        chunks = response.iter_raw()
        try:
            while True:
                chunk = await anyio.to_thread.run_sync(lambda: next(chunks, None))
                if chunk is None:
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        finally:
            await anyio.to_thread.run_sync(response.close)
        await send({"type": "http.response.body", "body": b""})

    def close(self) -> None:
        self.transport.close()
