"""The target of this contract run, for an API's suite: `current()`.

The runner (`contracts.runner.cli`) names the API in `HARNESS_CONTRACT_API` and
the options in `HARNESS_CONTRACT_*`. With the API's URL variable unset, the
target is the embedded mock: `create_app(api=NAME)` served on a free loopback
port for the whole run, its fixture credentials filled into the API's
credential variables. With it set, the target is that deployment, treated as
someone's real account (`policy`): nothing spends, destroys or changes existing
state without an opt-in, and a request budget bounds the run.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from .safety import LIVE_DEFAULT_BUDGET, MAX_RETRY_WAIT, BudgetExceeded
from .target import LiveServer, has_control_surface


def flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


@dataclass
class RunPolicy:
    live: bool
    allow_spend: bool = False
    allow_writes: bool = False
    allow_destructive: bool = False
    max_requests: int | None = None
    spent: int = 0

    def charge(self) -> None:
        if self.max_requests is not None and self.spent >= self.max_requests:
            raise BudgetExceeded(f"request budget of {self.max_requests} used up (--max-requests)")
        self.spent += 1


class BudgetedTransport(httpx.BaseTransport):
    """Counts every request against the budget and waits out `Retry-After` on a 429."""

    def __init__(self, policy: RunPolicy, inner: httpx.BaseTransport | None = None) -> None:
        self.policy = policy
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(3):
            self.policy.charge()
            response = self.inner.handle_request(request)
            wait = response.headers.get("retry-after")
            if response.status_code != 429 or wait is None:
                return response
            try:
                seconds = float(wait)
            except ValueError:
                return response
            if seconds > MAX_RETRY_WAIT:
                return response
            response.close()
            time.sleep(seconds)
        return response

    def close(self) -> None:
        self.inner.close()


@dataclass
class Session:
    api: str
    base_url: str
    live: bool
    embedded: bool  # our own mock: its /__mock control surface exists
    env: dict[str, str]
    policy: RunPolicy
    server: Any = field(default=None, repr=False)

    def client(self, **kwargs: Any) -> httpx.Client:
        """An `httpx.Client` on the target that honours the budget and `Retry-After`."""
        kwargs.setdefault("timeout", 30.0)
        from . import differential  # differential mode: each request also to the oracle

        transport = differential.wrap(self, BudgetedTransport(self.policy))
        return httpx.Client(base_url=self.base_url, transport=transport, **kwargs)

    def close(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None


_SESSIONS: dict[str, Session] = {}


def _embedded(api: str) -> tuple[str, dict[str, str], Any]:
    from mock_server.apis import profile as mock_profile
    from mock_server.app import create_app

    app = create_app(api=api, **mock_profile(api).serve_options)  # the mock as `make serve` serves it
    server = LiveServer(app).__enter__()
    profile = app.state.api.profile
    env = dict(profile.ready_credentials(app.state.api)) if profile.ready_credentials else {}
    return server.url, env, server


def current(api: str | None = None) -> Session:
    """The run's target (started once per process and API). `api` names the API when a suite
    runs under plain pytest rather than the runner (which sets `HARNESS_CONTRACT_API`)."""
    from contracts.apis import contract

    name = os.environ.get("HARNESS_CONTRACT_API") or api or ""
    if name in _SESSIONS:
        return _SESSIONS[name]
    spec = contract(name)
    url = (os.environ.get(spec.url_env) or "").rstrip("/")
    budget = os.environ.get("HARNESS_CONTRACT_MAX_REQUESTS")
    if url:
        missing = [key for key in spec.credential_envs if not os.environ.get(key)]
        if missing:
            raise SystemExit(f"{spec.url_env} is set: {', '.join(missing)} must be set too")
        env = {key: os.environ[key] for key in spec.credential_envs}
        embedded = has_control_surface(url)
        server = None
    else:
        url, env, server = _embedded(spec.mock or name)
        embedded = True
    live = not embedded
    policy = RunPolicy(
        live=live,
        allow_spend=flag("HARNESS_CONTRACT_ALLOW_SPEND"),
        allow_writes=flag("HARNESS_CONTRACT_ALLOW_WRITES"),
        allow_destructive=flag("HARNESS_CONTRACT_ALLOW_DESTRUCTIVE"),
        max_requests=int(budget) if budget else (LIVE_DEFAULT_BUDGET if live else None),
    )
    _SESSIONS[name] = Session(name, url, live, embedded, env, policy, server)
    return _SESSIONS[name]
