"""One ASGI wrapper for every drift the tests inject around a mock (the contract suite's,
the drift catalogues', the proxy's): it may rewrite the incoming scope, and rewrites a
buffered answer's status, headers and body; streams pass through as they are produced
(optionally with a tail appended), so a drifted server still streams.

`Rewrite(app, answer=..., request=..., applies=..., stream=..., stream_tail=...)`:
- `request(scope)` may change the scope (drop a header, a query parameter);
- `answer(scope, request_body, status, headers, body)` returns a new `(status, headers,
  body)` or None to leave the answer alone;
- `applies(path)` picks the requests it touches (default: everything outside `/__mock`);
- `stream(media_type)` says which answers pass through unbuffered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Headers = list[tuple[bytes, bytes]]
Answer = Callable[[dict[str, Any], bytes, int, Headers, bytes], tuple[int, Headers, bytes] | None]
STREAMS = (b"text/event-stream", b"application/x-ndjson")


def outside_control(path: str) -> bool:
    return not path.startswith("/__mock")


def is_stream(media_type: bytes) -> bool:
    return media_type.split(b";")[0].strip() in STREAMS


class Rewrite:
    def __init__(
        self,
        app: Any,
        answer: Answer | None = None,
        request: Callable[[dict[str, Any]], None] | None = None,
        *,
        applies: Callable[[str], bool] = outside_control,
        stream: Callable[[bytes], bool] = is_stream,
        stream_tail: bytes = b"",
    ) -> None:
        self.app = app
        self.state = app.state
        self.answer = answer
        self.request = request
        self.applies = applies
        self.stream = stream
        self.stream_tail = stream_tail

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.applies(scope["path"]):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        if self.request is not None:
            self.request(scope)
        if self.answer is None and not self.stream_tail:
            await self.app(scope, receive, send)
            return
        received: list[bytes] = []
        chunks: list[bytes] = []
        start: dict[str, Any] = {}

        async def tap() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request":
                received.append(message.get("body", b""))
            return message

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                start["stream"] = self.stream(dict(message.get("headers") or []).get(b"content-type", b""))
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
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, tap, capture)
