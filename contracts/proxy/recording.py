"""Recordings: one redacted exchange a line (JSONL), to replay into a mock later.

Each line: `{"seq", "method", "path", "query", "operation", "request": {"headers", "body"},
"response": {"status", "headers", "body"}}`. Bodies are JSON where they parse (else text,
bounded); every credential is a `[credential #n]` placeholder, the same n for the same
credential throughout one recording (`redact.Redactor`), so a replay can tell which requests
shared a credential and which response minted it, without carrying any.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .checks import STREAM_TEXT_LIMIT, Exchange
from .redact import Redactor

SKIPPED_HEADERS = frozenset({"content-length", "connection", "host", "accept-encoding", "user-agent", "date"})


def _body(raw: bytes, redactor: Redactor) -> Any:
    if not raw:
        return None
    try:
        return redactor.json(orjson.loads(raw))
    except orjson.JSONDecodeError:
        return redactor.text(raw[:STREAM_TEXT_LIMIT].decode("utf-8", "replace"))


def record_of(exchange: Exchange, redactor: Redactor) -> dict[str, Any]:
    def headers(source: dict[str, str]) -> dict[str, str]:
        return {k: redactor.header(k, v) for k, v in source.items() if k not in SKIPPED_HEADERS}

    return {
        "seq": exchange.seq,
        "method": exchange.method,
        "path": exchange.path,
        "query": redactor.text(exchange.query),
        "operation": exchange.operation.operation_id if exchange.operation else None,
        "request": {"headers": headers(exchange.request_headers), "body": _body(exchange.request_body, redactor)},
        "response": {
            "status": exchange.status,
            "headers": headers(exchange.response_headers),
            "body": _body(exchange.response_body, redactor),
        },
        "violations": [v.claim for v in exchange.violations],
    }


class Recording:
    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self.redactor = redactor
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")

    def add(self, exchange: Exchange) -> None:
        with self.path.open("ab") as out:
            out.write(orjson.dumps(record_of(exchange, self.redactor)) + b"\n")


def read_recording(path: str | Path) -> list[dict[str, Any]]:
    return list(iter_recording(path))


def iter_recording(path: str | Path) -> Iterator[dict[str, Any]]:
    with Path(path).open("rb") as source:
        for line in source:
            if line.strip():
                yield orjson.loads(line)
