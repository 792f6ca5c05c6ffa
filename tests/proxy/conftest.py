"""The proxy under test: an embedded mock (or a drifted one) in uvicorn, the proxy in front of it
in uvicorn too, both on free loopback ports, stopped by the test's fixture."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from contracts.proxy.app import ProxyApp
from contracts.runner.target import LiveServer
from mock_server.app import create_app


class ProxyServer(LiveServer):
    """A LiveServer whose lifespan runs, so the proxy closes its upstream client and drift log."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        # as `make proxy` serves it (contracts/proxy/cli.py): the upstream's Date and Server relayed, none added
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            date_header=False,
            server_header=False,
        )
        self.server = uvicorn.Server(config)
        import threading

        self.thread = threading.Thread(target=self.server.run, daemon=True)


@contextmanager
def proxied(
    api: str, tmp_path: Path, app: Any = None, record: bool = False, **mock: Any
) -> Iterator[tuple[ProxyApp, str, LiveServer]]:
    """(proxy app, proxy URL, upstream server): the proxy in front of `app` (default: the API's mock)."""
    upstream_app = app if app is not None else create_app(api=api, **mock)
    with LiveServer(upstream_app) as upstream:
        proxy = ProxyApp(
            api, upstream.url, log=tmp_path / "drift", record=tmp_path / "recording.jsonl" if record else None
        )
        with ProxyServer(proxy) as server:
            yield proxy, server.url, upstream


def violations(proxy: ProxyApp) -> list[tuple[str, str, str]]:
    """(request, claim, message) of every violation the proxy saw."""
    return [(e.label, v.claim, v.message) for e in proxy.exchanges for v in e.violations]
