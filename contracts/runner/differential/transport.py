"""`DifferentialTransport`: an httpx transport that sends each request to the target (through the
transport it wraps, so the run's budget and `Retry-After` handling still apply) and hands the
complete exchange to the engine, which replays it on the oracle and compares. The caller gets the
target's answer, unchanged. Exchanges are serialized, so concurrent writes (a race a check provokes)
reach the target and the oracle in the same order."""

from __future__ import annotations

import httpx

from .engine import STREAMS, Engine


class DifferentialTransport(httpx.BaseTransport):
    def __init__(self, engine: Engine, inner: httpx.BaseTransport | None = None) -> None:
        self.engine = engine
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        with self.engine.lock:  # one exchange at a time: the oracle sees the target's order of concurrent writes
            return self._exchange(request)

    def _exchange(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media in STREAMS:
            self.engine.ledger.unpaired["streams (SSE, NDJSON) read, not compared"] += 1
            return response
        response.read()
        self.engine.observe(request, response)
        return response

    def close(self) -> None:
        self.inner.close()
