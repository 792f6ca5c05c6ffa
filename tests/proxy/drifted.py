"""Deliberate drift behind the proxy: an ASGI wrapper around a mock that rewrites some answers.

`Drifted(app, answer=..., stream_tail=..., request=...)`: `answer(scope, request_body, status,
headers, body)` may return a new `(status, headers, body)` for a buffered (non-stream) response;
`stream_tail` bytes are appended to every stream; `request(scope)` may rewrite the incoming scope.
Unlike `tests/benchwright/drift.py` it rewrites headers too (a stripped replay marker, a frozen
ETag or counter) and covers every API's paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Headers = list[tuple[bytes, bytes]]
Answer = Callable[[dict[str, Any], bytes, int, Headers, bytes], tuple[int, Headers, bytes] | None]

STREAMS = (b"text/event-stream", b"application/x-ndjson")


class Drifted:
    def __init__(
        self,
        app: Any,
        answer: Answer | None = None,
        stream_tail: bytes = b"",
        request: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.app = app
        self.state = app.state
        self.answer = answer
        self.stream_tail = stream_tail
        self.request = request

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/__mock"):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        if self.request is not None:
            self.request(scope)
        chunks: list[bytes] = []
        received: list[bytes] = []

        async def tap() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request":
                received.append(message.get("body", b""))
            return message

        start: dict[str, Any] = {}

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                media = dict(message.get("headers") or []).get(b"content-type", b"")
                start["stream"] = media.split(b";")[0] in STREAMS
                if start["stream"]:
                    await send(message)
                return
            if start.get("stream"):
                if not message.get("more_body") and self.stream_tail:
                    await send({"type": "http.response.body", "body": message.get("body", b""), "more_body": True})
                    await send({"type": "http.response.body", "body": self.stream_tail})
                    return
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            status, headers, body = start["status"], list(start.get("headers") or []), b"".join(chunks)
            changed = self.answer(scope, b"".join(received), status, headers, body) if self.answer else None
            if changed is not None:
                status, headers, body = changed
            headers = [(k, v) for k, v in headers if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, tap, capture)


def set_header(headers: Headers, name: bytes, value: bytes | None) -> Headers:
    kept = [(k, v) for k, v in headers if k.lower() != name]
    return kept if value is None else [*kept, (name, value)]
