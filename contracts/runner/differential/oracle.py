"""The oracle: a fresh mock of the same API, served on a free loopback port as the run's embedded
target is (`create_app(api=..., **serve_options)` under `LiveServer`), with its own ready
credentials (`Profile.ready_credentials`).

Its clock follows real time (`clock_scale=1.0`, as `make serve` runs it) unless the target is a
mock whose clock is frozen, in which case the oracle's is frozen too and the target's
`/__mock/clock` calls are mirrored onto it (`Engine`), so both sides see the same simulated time.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from contracts.runner.connections import http_transport
from contracts.runner.target import LiveServer

SPAWN_SECONDS = 30.0  # a separate oracle's start, at most
REPLAY_TIMEOUT = httpx.Timeout(30.0).as_dict()  # a replayed request's answer, at most


@dataclass
class Oracle:
    api: str
    clock_scale: float = 1.0
    server: Any = field(default=None, repr=False)
    credentials: dict[str, str] = field(default_factory=dict)  # credential variable -> the oracle's value
    client: httpx.Client | None = field(default=None, repr=False)  # control calls (clock, credentials)
    transport: httpx.HTTPTransport | None = field(default=None, repr=False)  # replays

    def start(self, separate: bool = False) -> Oracle:
        """Serve the oracle: in this process (`LiveServer`), or with `separate` in a process of its own
        (`python -m mock_server.serve`, as `make serve` runs it), so a contract run's suite, target, front and
        oracles do not all share one interpreter."""
        if separate:
            return self._spawn()
        from mock_server.apis import profile as mock_profile
        from mock_server.app import create_app

        chosen = mock_profile(self.api)
        app = create_app(api=self.api, **{**chosen.serve_options, "clock_scale": self.clock_scale})
        self.server = LiveServer(app).__enter__()
        api = app.state.api
        ready = api.profile.ready_credentials
        self.credentials = dict(ready(api)) if ready else {}
        self._connect()
        return self

    def _spawn(self) -> Oracle:
        return self.launch().ready()

    def launch(self) -> Oracle:
        """Start the oracle's own process (`ready()` waits for it): several start side by side."""
        with socket.socket() as probe:  # a free loopback port
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "mock_server.serve", "--api", self.api, "--port", str(port),
                   "--clock-scale", str(self.clock_scale)]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.server = Spawned(process, f"http://127.0.0.1:{port}")
        self._connect()
        return self

    def ready(self) -> Oracle:
        """Wait for a launched oracle to answer; its ready credentials read from its control surface."""
        assert self.client is not None and isinstance(self.server, Spawned), "launch() first"
        deadline = time.monotonic() + SPAWN_SECONDS
        while True:
            try:
                self.credentials = dict(self.client.get("/__mock/credentials").json())
                return self
            except (httpx.HTTPError, ValueError):
                if self.server.process.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError(f"the {self.api} oracle did not start") from None
                time.sleep(0.05)

    def _connect(self) -> None:
        self.client = httpx.Client(base_url=self.server.url, timeout=30.0, follow_redirects=False)
        self.transport = http_transport()

    @property
    def base_url(self) -> str:
        return self.server.url

    def send(self, request: httpx.Request) -> httpx.Response:
        """A replay, sent as it is on the transport itself: a client's cookie jar, auth and redirect handling
        would add nothing to a request built whole (about 0.1 ms a replay, over thousands of them)."""
        assert self.transport is not None, "the oracle is not started"
        request.extensions["timeout"] = REPLAY_TIMEOUT
        response = self.transport.handle_request(request)
        response.read()
        return response

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.transport is not None:
            self.transport.close()
            self.transport = None
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None

    def catch_up(self, now: datetime | None) -> None:
        """Bring the oracle's simulated clock up to the target's `now` (a mock target moved on already)."""
        if now is None or self.client is None:
            return
        mine = self.now()
        if now > mine:
            self.client.post("/__mock/clock", json={"advance_seconds": (now - mine).total_seconds()})

    def now(self) -> datetime:
        """The oracle's clock, read from its control surface."""
        assert self.client is not None, "the oracle is not started"
        return datetime.fromisoformat(self.client.post("/__mock/clock", json={}).json()["now"])

    def follow(self, base_url: str) -> None:
        """Bring a running oracle clock level with, or just ahead of, a target whose clock runs too: the target's
        reading is taken at some moment between two local ones, so at the oracle's reading it is at most
        that far on. Ahead, never behind: the oracle answers each request after the target did, so its clock
        readings of the same moment are later, as they would be with no lag at all."""
        if self.client is None:
            return
        started = time.monotonic()
        try:
            answer = httpx.post(f"{base_url.rstrip('/')}/__mock/clock", json={}, timeout=5)
            theirs = datetime.fromisoformat(answer.json()["now"])
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            return
        mine = self.now()
        lag = (theirs - mine).total_seconds() + (time.monotonic() - started)
        if lag > 0:
            self.client.post("/__mock/clock", json={"advance_seconds": lag})


@dataclass
class Spawned:
    """An oracle served by a process of its own."""

    process: subprocess.Popen
    url: str

    def __exit__(self, *_: Any) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def clock_of(base_url: str) -> tuple[float, datetime | None]:
    """The target's clock, as an oracle should follow it: a mock target (its `/__mock/clock`
    answers) whose clock stands still while nobody advances it gets a frozen oracle, set to its
    time; anything else (a live deployment, a mock served with a running clock) real time."""
    from contracts.runner.target import has_control_surface

    if not has_control_surface(base_url):
        return 1.0, None
    try:
        first = httpx.post(f"{base_url.rstrip('/')}/__mock/clock", json={}, timeout=5)
        second = httpx.post(f"{base_url.rstrip('/')}/__mock/clock", json={}, timeout=5)
        one, two = datetime.fromisoformat(first.json()["now"]), datetime.fromisoformat(second.json()["now"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return 1.0, None
    return (0.0 if one == two else 1.0), two
