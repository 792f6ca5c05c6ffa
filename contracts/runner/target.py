"""Serving a mock for a contract run (`LiveServer`) and telling a mock from a deployment
(`has_control_surface`). Which target a run checks is decided in `contracts.runner.session`."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import httpx

from mock_server.server import MAX_HEAD_BYTES, uvicorn_config


class LiveServer:
    """An ASGI app under uvicorn on 127.0.0.1 (an ephemeral port), in a thread. `relay`: the app
    relays another server's answers (the differential front), whose `Date` and `Server` it passes on:
    uvicorn adds none of its own, or a client would read two `Date` headers."""

    def __init__(self, app: Any, host: str = "127.0.0.1", relay: bool = False) -> None:
        import uvicorn

        self.app = app
        self.mock = getattr(getattr(app, "state", None), "mock", None)
        with socket.socket() as sock:
            sock.bind((host, 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        if self.mock is not None:  # a mock: served as `python -m mock_server` serves it (bounded heads)
            config = uvicorn_config(app, self.mock, host, self.port, "warning", MAX_HEAD_BYTES, lifespan="off")
        else:
            config = uvicorn.Config(
                app,
                host=host,
                port=self.port,
                log_level="warning",
                lifespan="off",
                **({"date_header": False, "server_header": False} if relay else {}),
            )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def has_control_surface(base_url: str) -> bool:
    try:
        response = httpx.get(f"{base_url}/__mock/requests", timeout=5)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.headers.get("content-type", "").startswith("application/json")
