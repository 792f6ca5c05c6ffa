"""Pacing: a run keeps under the target's rate limits and waits out the 429s it did not provoke.

Every request of a run goes through `send()` (httpx clients through `PacedTransport`,
schemathesis' `case.call` through `send()` directly):

- it is charged to the run's budget (`RunPolicy.charge`);
- before it goes, the `Pacer` holds it while the last answer of its kind (reads:
  GET/HEAD/OPTIONS; writes: the rest, as quotas count them) said no request of the
  window was left: it sleeps until the window resets. The header names are read from
  the spec (any documented response header ending in `RateLimit-Remaining` /
  `RateLimit-Reset`), as is the window (`x-tiers.window_seconds`, else 60 s);
- a 429 with `Retry-After` is waited out and the request sent again, up to
  `RETRIES` times and `MAX_RETRY_WAIT` seconds a wait: a 429 the suite did not provoke
  is the target protecting itself, never drift. Still limited at the bound, the check
  is skipped with the reason (`RateLimited`). A check that provokes a 429 on purpose
  sends its request with the extension `{"expect_429": True}` (or its own client).

On a mock with a control surface a wait moves the mock's clock on by its length rather than
sleeping (`Pacer.sleep`, set by the session): the mock's throttles and windows run on that clock.

`X-RateLimit-Reset` is Unix time on the *server's* clock, which a mock's simulated clock
need not share with ours; the pacer therefore never waits longer than one window from
the first answer that showed the window, which bounds every wait.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from contracts.runner.connections import http_transport

from .safety import MAX_RETRY_WAIT, SAFE_METHODS, RunPolicy

RETRIES = 4


class RateLimited(pytest.skip.Exception):
    """Still 429 after waiting out `Retry-After` `RETRIES` times: the check is skipped, not failed."""


@dataclass
class Window:
    remaining: int
    reset: int | None
    first_seen: float  # monotonic time of the first answer showing this window


@dataclass
class Pacer:
    remaining_header: str = "X-RateLimit-Remaining"
    reset_header: str = "X-RateLimit-Reset"
    window_seconds: float = 60.0
    reserve: int = 0  # requests left unspent in each window
    waited: float = 0.0  # seconds this run spent paced (the report states it)
    # how a wait passes: real time on a deployment; on a mock with a control surface, its simulated
    # clock is moved on instead (`Session`), since a frozen clock never lets a throttle or window end
    sleep: Callable[[float], None] = field(default=lambda seconds: time.sleep(seconds), repr=False)
    windows: dict[str, Window] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_spec(cls, bundle: Mapping[str, Any]) -> Pacer:
        names: set[str] = set()
        for item in (bundle.get("paths") or {}).values():
            for operation in item.values():
                if not isinstance(operation, dict):
                    continue
                for response in (operation.get("responses") or {}).values():
                    names.update((response.get("headers") or {}) if isinstance(response, dict) else ())
        remaining = next((n for n in sorted(names) if n.lower().endswith("ratelimit-remaining")), None)
        reset = next((n for n in sorted(names) if n.lower().endswith("ratelimit-reset")), None)
        window = (bundle.get("x-tiers") or {}).get("window_seconds", 60)
        pacer = cls(window_seconds=float(window))
        if remaining:
            pacer.remaining_header = remaining
        if reset:
            pacer.reset_header = reset
        return pacer

    @staticmethod
    def kind(method: str) -> str:
        return "read" if method.upper() in SAFE_METHODS else "write"

    def delay(self, method: str, now: float | None = None) -> float:
        """Seconds to hold a request of `method` so that it falls in a window with room."""
        now = time.monotonic() if now is None else now
        with self._lock:
            window = self.windows.get(self.kind(method))
            if window is None or window.remaining > self.reserve:
                return 0.0
            until = window.first_seen + self.window_seconds
            if window.reset is not None and 0 < window.reset - time.time() <= self.window_seconds:
                until = min(until, now + (window.reset - time.time()))
            if until <= now:
                del self.windows[self.kind(method)]
                return 0.0
            return until - now

    def observe(self, method: str, headers: Mapping[str, Any], now: float | None = None) -> None:
        try:
            remaining = int(header(headers, self.remaining_header) or "")
        except ValueError:
            return
        try:
            reset: int | None = int(header(headers, self.reset_header) or "")
        except ValueError:
            reset = None
        now = time.monotonic() if now is None else now
        with self._lock:
            kind = self.kind(method)
            known = self.windows.get(kind)
            same = known is not None and known.reset == reset and reset is not None
            self.windows[kind] = Window(remaining, reset, known.first_seen if same and known else now)

    def hold(self, method: str) -> None:
        seconds = self.delay(method)
        if seconds > 0:
            self.waited += seconds
            self.sleep(seconds)
            with self._lock:
                self.windows.pop(self.kind(method), None)


def header(headers: Mapping[str, Any], name: str) -> str | None:
    """One header of any client's response: httpx's (case-insensitive) or schemathesis' (lower-cased
    names, a list of values each)."""
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    if isinstance(value, list):
        value = value[0] if value else None
    return value


def retry_after(headers: Mapping[str, Any]) -> float | None:
    value = header(headers, "Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def send(policy: RunPolicy, pacer: Pacer, method: str, attempt: Callable[[], Any], expect_429: bool = False) -> Any:
    """One request as a run sends it: charged, paced, and sent again after a 429's `Retry-After`."""
    policy.guard(method)
    for _ in range(RETRIES):
        policy.charge()
        pacer.hold(method)
        response = attempt()
        pacer.observe(method, response.headers)
        if response.status_code != 429 or expect_429:
            return response
        wait = retry_after(response.headers)
        if wait is None or wait > MAX_RETRY_WAIT:
            return response
        close = getattr(response, "close", None)
        if close is not None:
            close()
        pacer.waited += wait
        pacer.sleep(wait)
    raise RateLimited(f"{method} still answered 429 after {RETRIES} waits of Retry-After")


class PacedTransport(httpx.BaseTransport):
    """An httpx transport that sends each request through `send()`."""

    def __init__(self, policy: RunPolicy, pacer: Pacer, inner: httpx.BaseTransport | None = None) -> None:
        self.policy = policy
        self.pacer = pacer
        self.inner = inner or http_transport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        expect = bool(request.extensions.get("expect_429"))
        return send(self.policy, self.pacer, request.method, lambda: self.inner.handle_request(request), expect)

    def close(self) -> None:
        self.inner.close()
