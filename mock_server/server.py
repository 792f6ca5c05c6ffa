"""The HTTP servers a mock runs under, and the bound on a request's head.

uvicorn (the default of `python -m mock_server` and `make serve`) parses with
httptools, which has no limit of its own on the request line or the headers: 64 MiB
of headers would be read, held and answered. Every mock therefore runs uvicorn with
`BoundedHead`, which counts the bytes of each request's head as they arrive and, once
they pass `max_head_bytes` (64 KiB unless `--max-head-bytes` says otherwise) before
the head is complete, stops reading and answers in the API's own error format:

- `414 uri_too_long` when most of those bytes are the request target,
- `431 request_header_fields_too_large` otherwise,

with the API's standard headers and a fresh request id, then closes the connection.
At most one read chunk past the limit is ever held. Without httptools, uvicorn's h11
parser is used with its incomplete-event limit set to the same figure (it answers
with a plain-text 400/431 of its own).

uvicorn runs with `UVICORN_SETTINGS`: no `Server` header (a mock answers for the API's
own server) and no proxy-headers middleware (no mock reads the client's address).

Granian (`--server granian`, installed by the `granian` extra) is the other option
(`make bench` measures both). It builds the app in its worker process from the
command line (`mock_server.server:from_environment`), bounds heads with its own HTTP/1
buffer set to the same figure, and answers an oversized head itself, in plain text.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Callable, Sequence
from typing import Any

from .engine.api import Api
from .policies.problems import Problem

MAX_HEAD_BYTES = 64 * 1024
ARGV_ENV = "MOCK_SERVER_ARGV"
REFUSALS = {
    414: ("uri_too_long", "The request target is longer than this mock accepts ({limit} bytes of request head)."),
    431: (
        "request_header_fields_too_large",
        "The request's headers are larger than this mock accepts ({limit} bytes of request head).",
    ),
}
REASONS = {414: b"URI Too Long", 431: b"Request Header Fields Too Large"}
# uvicorn switches every mock runs with (`uvicorn_config`), and `make bench`'s bare app too
UVICORN_SETTINGS = {"server_header": False, "proxy_headers": False}


def head_refusal(api: Api, status: int, limit: int) -> bytes:
    """The whole HTTP/1.1 response refusing an oversized head, in `api`'s error format."""
    code, detail = REFUSALS[status]
    engine = api.engine
    request_id = engine.new_request_id()
    response = engine.render(Problem(status, code, detail.format(limit=limit)), None, request_id)
    headers = list(response.raw_headers) + list(engine.standard.items())
    if engine.request_id_header is not None:
        headers.append((engine.request_id_header, request_id.encode()))
    headers.append((b"connection", b"close"))
    lines = [b"HTTP/1.1 %d %s" % (status, REASONS[status])] + [name + b": " + value for name, value in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + response.body


def bounded_protocol(api: Api, limit: int = MAX_HEAD_BYTES) -> type[asyncio.Protocol] | None:
    """uvicorn's httptools protocol with the head bound above (None without httptools)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - uvicorn[standard] installs httptools
        return None

    class BoundedHead(HttpToolsProtocol):
        """Counts each head's bytes as they arrive, from the end of the previous message, so a
        head that never ends is refused once past the bound without reading more. A head that
        completes within a read larger than the bound is measured as parsed (its target and
        header lines) before it is let through. An ordinary request pays one addition per read."""

        head_limit = limit

        def connection_made(self, transport: Any) -> None:
            self.head_bytes: int | None = 0  # None: this message's head is complete
            self.large_read = False
            self.refused = False
            super().connection_made(transport)

        def parsed_head_bytes(self) -> int:
            return len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)

        def refuse(self) -> None:
            status = 414 if len(self.url) * 2 > max(self.head_bytes or 0, self.parsed_head_bytes()) else 431
            self.refused = True
            self.transport.write(head_refusal(api, status, self.head_limit))
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            self.large_read = len(data) > self.head_limit
            if self.head_bytes is not None:
                self.head_bytes += len(data)
            super().data_received(data)
            if not self.refused and self.head_bytes is not None and self.head_bytes > self.head_limit:
                self.refuse()

        def on_headers_complete(self) -> None:
            over = self.large_read or (self.head_bytes or 0) > self.head_limit
            self.head_bytes = None
            if self.refused:
                return
            if over and self.parsed_head_bytes() > self.head_limit:
                self.refuse()
                return
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if not self.refused:
                super().on_body(body)

        def on_message_complete(self) -> None:
            if not self.refused:
                super().on_message_complete()
                self.head_bytes = 0

    return BoundedHead


def uvicorn_config(
    app: Any, api: Api, host: str, port: int, log_level: str, max_head_bytes: int, **options: Any
) -> Any:
    """uvicorn's configuration for one mock (`options`: any other `uvicorn.Config` argument).

    No `Server: uvicorn` header (the mock stands in for the API's own server, and no
    reference names one) and no proxy-headers middleware (it rewrites the client address
    from `X-Forwarded-For`, which no mock reads)."""
    import uvicorn

    options = {**UVICORN_SETTINGS, **options}
    protocol = bounded_protocol(api, max_head_bytes)
    if protocol is None:  # pragma: no cover
        return uvicorn.Config(
            app, host=host, port=port, log_level=log_level, access_log=False, http="h11",
            h11_max_incomplete_event_size=max_head_bytes, **options,
        )  # fmt: skip
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, http=protocol, **options)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port`, bound now; port 0 takes any free port, as every server
    does. Binding before serving lets the banner print the port actually bound
    (`bound_port`), and a port in use fails here, before anything is printed."""
    return socket.create_server((host, port))


def bound_port(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


def serve_uvicorn(apps: Sequence[tuple[Any, Api, socket.socket]], log_level: str, max_head_bytes: int) -> None:
    """Serve each `(app, api, sock)` on its own already bound socket (`listen`), in this process
    and one event loop (uvloop when installed, as `uvicorn.run` would pick)."""
    import uvicorn

    configs = [
        uvicorn_config(app, api, sock.getsockname()[0], bound_port(sock), log_level, max_head_bytes)
        for app, api, sock in apps
    ]
    servers = [uvicorn.Server(config) for config in configs]

    async def serve_all() -> None:
        pairs = zip(servers, apps, strict=True)
        await asyncio.gather(*(server.serve(sockets=[sock]) for server, (_, _, sock) in pairs))

    with asyncio.Runner(loop_factory=configs[0].get_loop_factory()) as runner:
        runner.run(serve_all())


def granian_available() -> bool:
    try:
        import granian  # noqa: F401
    except ImportError:
        return False
    return True


def serve_granian(argv: Sequence[str], host: str, port: int, log_level: str, max_head_bytes: int) -> None:
    """Granian, one worker, building the app from `argv` (the mock's own command line) in that worker."""
    from granian import Granian
    from granian.http import HTTP1Settings

    os.environ[ARGV_ENV] = json.dumps(list(argv))
    Granian(
        "mock_server.server:from_environment",
        address=host,
        port=port,
        interface="asgi",
        workers=1,
        runtime_threads=1,
        websockets=False,
        log_level=log_level,
        factory=True,
        http1_settings=HTTP1Settings(max_buffer_size=max(8192, max_head_bytes)),
    ).serve()


def from_environment() -> Callable[..., Any]:
    """Granian's factory: the app `python -m mock_server` builds from the argv in `MOCK_SERVER_ARGV`."""
    from .__main__ import build_from_argv
    from .serve import tune_gc

    app, _api, _args = build_from_argv(json.loads(os.environ[ARGV_ENV]))
    tune_gc()
    return app
