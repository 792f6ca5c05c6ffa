"""What a contract run sent, as one short digest: the proof that a seed's run is reproducible.

The embedded mock is served behind `Fingerprint`, which hashes every request it serves (method,
raw path and query, body) into an order-free digest (the sum of the requests' hashes, so requests
that race in threads count the same whichever lands first). Answers are left out: which of two
racing writes wins is timing by design, and a check of a race reads both outcomes as right. The runner
writes it to `<report-dir>/fingerprint.txt` (and each exchange's line, in arrival order, to
`exchanges.txt`, where `diff` shows where two runs parted), and `harness-contract --seeds N` lists it per seed:
the same commit and seed must give the same fingerprint on every run and machine, or the run's
data depends on something other than the seed (timing, random names, another API's run).
`tests/engine/test_reproducible.py` runs a seed twice and compares.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

_MASK = (1 << 64) - 1


class Fingerprint:
    """An ASGI wrapper of `app` that digests the HTTP exchanges it serves (its `state` is the app's)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.total = 0
        self.count = 0
        self.lines: list[str] = []  # one per exchange, in arrival order: where two runs part, `diff` shows
        self._lock = threading.Lock()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        digest = hashlib.blake2b(digest_size=8)
        digest.update(scope["method"].encode() + b" " + (scope.get("raw_path") or scope["path"].encode()))
        digest.update(b"?" + scope.get("query_string", b"") + b"\n")
        boundary = _multipart_boundary(scope)

        async def receive_and_digest() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                # a client draws a multipart boundary at random: the same form, told apart by it, is one request
                found = boundary or _leading_boundary(body)
                digest.update(body.replace(found, b"BOUNDARY") if found else body)
            return message

        status = [0]

        async def send_and_note(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive_and_digest, send_and_note)
        finally:
            line = f"{digest.hexdigest()} {status[0]} {scope['method']} {scope['path']}"
            with self._lock:
                self.total = (self.total + int.from_bytes(digest.digest(), "big")) & _MASK
                self.count += 1
                self.lines.append(line)

    def text(self) -> str:
        """`<exchanges>-<digest>`: equal for two runs that sent and were answered the same."""
        with self._lock:
            return f"{self.count}-{self.total:016x}"


def _multipart_boundary(scope: dict[str, Any]) -> bytes:
    for name, value in scope.get("headers") or []:
        if name.lower() == b"content-type" and value.lower().startswith(b"multipart/"):
            for part in value.split(b";")[1:]:
                key, _, given = part.strip().partition(b"=")
                if key.lower() == b"boundary" and given:
                    return given.strip(b'"')
    return b""


def _leading_boundary(body: bytes) -> bytes:
    """The boundary a multipart body opens with (`--<token>` on its first line), sent under any content type."""
    if not body.startswith(b"--"):
        return b""
    first = body[2:].split(b"\r\n", 1)[0]
    return first if 8 <= len(first) <= 70 and b" " not in first else b""
