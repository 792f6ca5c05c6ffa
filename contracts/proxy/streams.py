"""Incremental readers of the two stream formats, fed chunk by chunk as the proxy relays them.

Our own (small) parsers rather than `httpx-sse`: the proxy must not consume the stream it
relays, only look at each chunk on its way through, so it needs a push parser that holds a
partial frame or line between chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass
class SseEvent:
    id: str | None
    event: str
    data: str
    comment: bool = False


@dataclass
class SseReader:
    """WHATWG event-stream framing: frames end at a blank line; `:` lines are comments."""

    pending: str = ""
    events: list[SseEvent] = field(default_factory=list)

    def feed(self, chunk: bytes) -> list[SseEvent]:
        self.pending += chunk.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        out: list[SseEvent] = []
        while "\n\n" in self.pending:
            frame, self.pending = self.pending.split("\n\n", 1)
            event = _frame(frame)
            if event is not None:
                out.append(event)
        self.events.extend(out)
        return out


def _frame(frame: str) -> SseEvent | None:
    ident: str | None = None
    kind = "message"
    data: list[str] = []
    comment = False
    for line in frame.split("\n"):
        if not line:
            continue
        if line.startswith(":"):
            comment = True
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "id":
            ident = value
        elif name == "event":
            kind = value
        elif name == "data":
            data.append(value)
    if comment and ident is None and not data and kind == "message":
        return SseEvent(None, "comment", "", comment=True)
    return SseEvent(ident, kind, "\n".join(data))


@dataclass
class NdjsonReader:
    """One JSON document per line; a line that does not parse is kept as an error."""

    pending: bytes = b""
    lines: list[Any] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)

    def feed(self, chunk: bytes) -> None:
        self.pending += chunk
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            self._line(line)

    def close(self) -> None:
        if self.pending.strip():
            self._line(self.pending)
        self.pending = b""

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            self.lines.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            self.bad.append((len(self.lines) + len(self.bad) + 1, line[:200].decode("utf-8", "replace")))
