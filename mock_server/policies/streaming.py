"""Streaming responses: NDJSON lines and SSE frames, written as they are produced.

A stream is never buffered whole: each event is encoded and sent on its own, so
a client (or a proxy in between) reads event by event. SSE responses with
keep-alives use `sse-starlette` (see Benchwright's events resource); this
module holds the encoders every API shares."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

import orjson
from starlette.responses import StreamingResponse

NDJSON = "application/x-ndjson"


def ndjson_line(event: Any) -> bytes:
    return orjson.dumps(event) + b"\n"


def sse_frame(data: Any, event: str | None = None, id: str | None = None) -> bytes:
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    payload = data if isinstance(data, str) else orjson.dumps(data).decode()
    lines.extend(f"data: {line}" for line in payload.split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


async def _lines(events: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[bytes]:
    if hasattr(events, "__aiter__"):
        async for event in events:  # type: ignore[union-attr]
            yield ndjson_line(event)
    else:
        for event in events:  # type: ignore[union-attr]
            yield ndjson_line(event)


def ndjson_response(
    events: AsyncIterable[Any] | Iterable[Any], status: int = 200, headers: dict[str, str] | None = None
) -> StreamingResponse:
    """One JSON document per line, flushed as each is produced."""
    return StreamingResponse(_lines(events), status, headers, NDJSON)
