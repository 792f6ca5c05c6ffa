"""`DifferentialTransport`: an httpx transport that sends each request to the target (through the
transport it wraps, so the run's budget and `Retry-After` handling still apply) and hands the
complete exchange to the engine, which replays it on the oracle and compares. The caller gets the
target's answer, unchanged. Exchanges the target served at the same time as another (a race a check
provokes) are replayed on the oracle, to keep its state in step, but not compared: the order the
target put them in is unknown."""

from __future__ import annotations

import httpx

from contracts.runner.connections import http_transport

from .engine import STREAMS, Engine


class DifferentialTransport(httpx.BaseTransport):
    def __init__(self, engine: Engine, inner: httpx.BaseTransport | None = None, front: str | None = None) -> None:
        self.engine = engine
        self.inner = inner or http_transport()
        self.front = front  # requests to this base pass as they are: the front there sees them

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.front is not None and str(request.url).startswith(self.front):
            return self.inner.handle_request(request)
        request.read()
        exchange = self.engine.begin()
        try:
            response = self.inner.handle_request(request)
            media = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if media in STREAMS:
                self.engine.ledger.unpaired["streams (SSE, NDJSON) read, not compared"] += 1
                return response
            response.read()
        finally:
            self.engine.end(exchange)
        try:
            self.engine.observe(request, response, concurrent=exchange.overlapped)
        except Exception as error:  # the target's answer reaches the client whatever the comparison meets
            self.engine.ledger.unpaired[
                f"exchanges the engine could not compare ({type(error).__name__}: {error})"[:160]
            ] += 1
        return response

    def close(self) -> None:
        self.inner.close()
