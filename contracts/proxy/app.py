"""The validating proxy: a Starlette/ASGI app that forwards every request to the upstream.

Each request goes upstream as sent (the mock's `/__mock` routes included) through one
`httpx.AsyncClient`; the answer comes back as it arrives: a JSON (or any finite) body is read
whole, checked and relayed with `X-Contract-Violations: <claim ids>` when it broke any; a stream
(`text/event-stream`, `application/x-ndjson`) is relayed chunk by chunk with a
`StreamingResponse`, never buffered, and checked as it passes (its header can only name what the
status and headers broke; what the events break goes to the drift log when the stream ends).

The checks are built once from the API's bundle (`mock_server.apis.bundle(name)`); the API's own
conventions come from `registry.py`. Nothing here imports an API package.
"""

from __future__ import annotations

import contextlib
import itertools
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from contracts.runner.claims import register

from .checks import PROXY_CLAIMS, STREAM_TEXT_LIMIT, Checker, Exchange, Violation
from .drift import DriftLog
from .recording import Recording
from .redact import Redactor
from .registry import proxy_api
from .streams import NdjsonReader, SseReader

HOP_BY_HOP = frozenset(
    {
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
        "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding",
    }
)  # fmt: skip
VIOLATIONS_HEADER = "X-Contract-Violations"
STREAM_MEDIA = ("text/event-stream", "application/x-ndjson")


def _api_key_headers(doc: dict[str, Any]) -> list[str]:
    schemes = (doc.get("components") or {}).get("securitySchemes") or {}
    return [s["name"] for s in schemes.values() if s.get("type") == "apiKey" and s.get("in") == "header"]


class ProxyApp:
    """`ProxyApp(api, upstream, record=..., log=...)`: an ASGI app; `aclose()` when done."""

    def __init__(
        self,
        api: str,
        upstream: str,
        *,
        record: str | Path | None = None,
        log: str | Path | None = "reports/proxy-drift",
        doc: dict[str, Any] | None = None,
        timeout: float = 60.0,
        oracle: bool = False,
    ) -> None:
        from mock_server.apis import bundle

        self.api = api
        self.upstream = upstream.rstrip("/")
        self.doc = doc if doc is not None else bundle(api)
        chosen = proxy_api(api)
        register(PROXY_CLAIMS)
        register(chosen.claims())
        self.redactor = Redactor(chosen.redactions(), _api_key_headers(self.doc))
        self.checker = Checker(self.doc, chosen.conventions, lambda: tuple(self.redactor.secrets))
        self.log = DriftLog(Path(log), api, self.upstream, self.redactor) if log is not None else None
        self.recording = Recording(Path(record), self.redactor) if record is not None else None
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._seq = itertools.count(1)
        self.exchanges: list[Exchange] = []  # kept for tests and the summary: the last 1000
        self.state = type("State", (), {})()
        self.oracle = None  # `--oracle`: each exchange also compared with an oracle mock's answer
        if oracle:
            from contracts.runner.differential.proxy import ProxyOracle

            self.oracle = ProxyOracle(api, self.upstream)

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            # no cookie jar: a Set-Cookie answered to one client must not ride on every later request
            # (a session cookie would authenticate the next anonymous one); the client keeps its own
            self._client = httpx.AsyncClient(
                base_url=self.upstream,
                timeout=httpx.Timeout(self.timeout, read=None),
                follow_redirects=False,
                cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self.oracle is not None:
            self.oracle.close()
            self.oracle = None
        if self.log is not None:
            self.log.close()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response = await self.forward(request)
        await response(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- forwarding -----------------------------------------------------------------------
    async def forward(self, request: Request) -> Response:
        body = await request.body()
        headers = {k.lower(): v for k, v in request.headers.items()}
        exchange = Exchange(
            seq=next(self._seq),
            method=request.method,
            path=request.url.path,
            query=request.url.query,
            request_headers=headers,
            request_body=body,
        )
        self._learn_request(exchange)
        if self.oracle is not None:
            self.oracle.begin(exchange)  # the oracle compares only exchanges that overlap none of their session
        self.checker.route(exchange)
        exchange.violations += self.checker.request(exchange)
        outgoing = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        outgoing.append(("accept-encoding", "identity"))
        upstream_request = self.client.build_request(
            request.method, self._upstream_url(request.scope), headers=outgoing, content=body
        )
        try:
            upstream = await self.client.send(upstream_request, stream=True)
        except httpx.HTTPError as error:
            if self.oracle is not None:
                self.oracle.end(exchange)
            exchange.status = 502
            exchange.error = f"{type(error).__name__}: {error}"
            self._finish(exchange)
            return Response(
                orjson.dumps({"error": "upstream unreachable", "detail": exchange.error}),
                502,
                media_type="application/json",
            )
        exchange.status = upstream.status_code
        exchange.response_headers = {k.lower(): v for k, v in upstream.headers.items()}
        relayed = [(k, v) for k, v in upstream.headers.multi_items() if k.lower() not in HOP_BY_HOP]
        media = exchange.response_headers.get("content-type", "").split(";")[0].strip().lower()
        if media in STREAM_MEDIA and 200 <= exchange.status < 300:
            exchange.stream = "sse" if media == "text/event-stream" else "ndjson"
            if self.oracle is not None:
                self.oracle.end(exchange)
            return self._stream(exchange, upstream, relayed)
        try:
            exchange.response_body = await upstream.aread()
        finally:
            await upstream.aclose()
            if self.oracle is not None:
                self.oracle.end(exchange)  # answered: no longer in flight
        relayed = [(k, v) for k, v in relayed if k.lower() != "content-encoding"]
        exchange.violations += self.checker.head(exchange)
        self._learn_response(exchange)
        exchange.violations += self.checker.body(exchange)
        if self.oracle is not None:
            exchange.violations += [Violation(c, m) for c, m in await self.oracle.differences(exchange)]
        self._finish(exchange)
        return _response(exchange, relayed, exchange.response_body)

    def _upstream_url(self, scope: dict[str, Any]) -> httpx.URL:
        """The upstream URL of a request, its target forwarded byte for byte: the ASGI scope's
        `raw_path` and `query_string` as the client sent them, after the upstream's own path. The
        decoded `path` is for the checks only: decoded, a percent-encoded control byte (`%0E`)
        is a character httpx refuses to put in a URL, and `%2F` would become a segment separator.
        Only bytes an HTTP target cannot carry (a server that let raw non-ASCII through) are
        percent-encoded."""
        raw = scope.get("raw_path") or quote(scope["path"]).encode("ascii")
        query = scope.get("query_string") or b""
        target = _ascii_target(raw + (b"?" + query if query else b""))
        base = httpx.URL(self.upstream)
        return base.copy_with(raw_path=base.raw_path.split(b"?", 1)[0].rstrip(b"/") + target)

    def _stream(self, exchange: Exchange, upstream: httpx.Response, relayed: list[tuple[str, str]]) -> Response:
        exchange.violations += self.checker.head(exchange)
        if exchange.stream == "sse":
            exchange.sse = SseReader()
        else:
            exchange.ndjson = NdjsonReader()
        head = list(exchange.violations)
        kept = bytearray()

        async def relay():
            try:
                async for chunk in upstream.aiter_raw():
                    if exchange.sse is not None:
                        exchange.sse.feed(chunk)
                    elif exchange.ndjson is not None:
                        exchange.ndjson.feed(chunk)
                    if len(kept) < STREAM_TEXT_LIMIT:
                        kept.extend(chunk[: STREAM_TEXT_LIMIT - len(kept)])
                    yield chunk
            finally:
                with anyio.CancelScope(shield=True):
                    await upstream.aclose()
                if exchange.ndjson is not None:
                    exchange.ndjson.close()
                exchange.response_body = bytes(kept)
                exchange.violations += self.checker.body(exchange)
                self._finish(exchange)

        response = StreamingResponse(relay(), status_code=exchange.status)
        response.raw_headers = _raw(relayed, head)
        return response

    # -- credentials ---------------------------------------------------------------------
    def _learn_request(self, exchange: Exchange) -> None:
        for name, value in exchange.request_headers.items():
            self.redactor.learn_header(name, value)
        self.redactor.learn_body(exchange.json_request())

    def _learn_response(self, exchange: Exchange) -> None:
        for name, value in exchange.response_headers.items():
            self.redactor.learn_header(name, value)
        if "json" in exchange.response_headers.get("content-type", ""):
            with contextlib.suppress(orjson.JSONDecodeError):
                self.redactor.learn_body(orjson.loads(exchange.response_body))

    def _finish(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        del self.exchanges[:-1000]
        if self.log is not None:
            self.log.add(exchange)
        if self.recording is not None:
            self.recording.add(exchange)


def _raw(headers: list[tuple[str, str]], violations: list[Violation]) -> list[tuple[bytes, bytes]]:
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    claims = sorted({v.claim for v in violations})
    if claims:
        raw.append((VIOLATIONS_HEADER.lower().encode(), ",".join(claims).encode()))
    return raw


def _ascii_target(target: bytes) -> bytes:
    """`target` with every byte outside printable ASCII percent-encoded, the rest untouched."""
    if all(0x21 <= byte <= 0x7E for byte in target):
        return target
    return b"".join(bytes([b]) if 0x21 <= b <= 0x7E else b"%%%02X" % b for b in target)


def _response(exchange: Exchange, headers: list[tuple[str, str]], body: bytes) -> Response:
    response = Response(body, status_code=exchange.status)
    response.raw_headers = [*_raw(headers, exchange.violations), (b"content-length", str(len(body)).encode())]
    return response
