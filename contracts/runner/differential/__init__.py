"""Differential drift detection: the mock as oracle (docs/differential.md).

On (`harness-contract --differential`, `HARNESS_CONTRACT_DIFFERENTIAL=1`, `make contract DIFF=1`),
the run's target URL is an HTTP front (`through_front`) that sends each request to the target and to an
oracle, a fresh mock of the same API, so every client the suites use goes through it; a client built
on the target's own URL (`Session.client()`, `SuiteClient`) routes through `DifferentialTransport`
instead. Differences are kept per engine and rendered by `section()` into the drift report.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from contracts.runner.connections import http_transport

ENV = "HARNESS_CONTRACT_DIFFERENTIAL"
_ENGINES: dict[tuple[str, str], Any] = {}
_FRONTS: dict[str, Any] = {}  # front URL -> its engine
_REQUESTS: dict[tuple[str, str], Any] = {}  # (api, base URL) -> schemathesis' requests session (`call_kwargs`)


def enabled() -> bool:
    return os.environ.get(ENV, "").lower() in ("1", "true", "yes")


def through_front(api: str, base_url: str, credentials: dict[str, str] | None = None) -> str:
    """The URL a run's clients reach the target through in differential mode: an HTTP front (`Front`) that
    passes every request, whatever client sends it (schemathesis, a stream reader, a setup call), to the
    target and to the oracle. `base_url` itself when the mode is off."""
    if not enabled():
        return base_url
    from contracts.runner.target import LiveServer

    from .front import Front

    engine = engine_for(api, base_url, credentials, adopt_credentials=False)
    if engine.front is None:
        engine.front = LiveServer(Front(engine, base_url), relay=True).__enter__()
        _FRONTS[engine.front.url] = engine
    return engine.front.url


def engine_for(
    api: str, base_url: str, credentials: dict[str, str] | None = None, adopt_credentials: bool = True
) -> Any:
    """The run's engine for `api` at `base_url` (one per target, its oracles started on first use)."""
    from contracts.apis import contract
    from contracts.runner.http import curl
    from contracts.runner.report import _redact

    from .engine import Engine
    from .oracle import clock_of

    key = (api, base_url.rstrip("/"))
    if key not in _ENGINES:
        spec = contract(api)
        scale, now = clock_of(base_url)
        engine = Engine(
            api,
            base_url,
            dict(credentials or {}),
            mock=spec.mock or spec.name,
            clock_scale=scale,
            curl=lambda request: _redact(curl(request)),
            redact=_redact,
            adopt_credentials=adopt_credentials,
            separate=True,  # the oracles in processes of their own: the run's interpreter is busy enough
        )
        engine.meet(base_url, scale, now, dict(credentials or {}), spec.differential_account)
        _ENGINES[key] = engine
    return _ENGINES[key]


def wrap(session: Any, inner: httpx.BaseTransport) -> httpx.BaseTransport:
    """`Session.client()`'s transport, routed through the oracle when differential mode is on."""
    if not enabled():
        return inner
    from .transport import DifferentialTransport

    base = session.base_url.rstrip("/")
    if base in _FRONTS:  # behind a front, which sees the client's requests; an absolute URL elsewhere (a
        # presigned upload the target named with its own address) is seen here
        return DifferentialTransport(_FRONTS[base], inner, front=base)
    return DifferentialTransport(engine_for(session.api, session.base_url, session.env), inner)


def client_transport(base_url: str, inner: httpx.BaseTransport) -> httpx.BaseTransport:
    """The transport of a client built on a bare URL (`SuiteClient`): `inner` itself when differential mode is
    off, else `inner` observed by the oracle (or passed as it is to a front, which sees it)."""
    if not enabled():
        return inner
    from .transport import DifferentialTransport

    if base_url.rstrip("/") in _FRONTS:
        return DifferentialTransport(_FRONTS[base_url.rstrip("/")], inner, front=base_url.rstrip("/"))
    api = os.environ.get("HARNESS_CONTRACT_API", "")
    return DifferentialTransport(engine_for(api, base_url), inner)


def call_kwargs(session: Any) -> dict[str, Any]:
    """What schemathesis' `case.call` is given beyond its URL: in differential mode a `requests.Session` that
    sends through `wrap(session, ...)`, so the generic conformance's cases (stateless and the links state
    machine) are replayed on the oracle too; nothing when the mode is off."""
    if not enabled():
        return {}
    key = (session.api, session.base_url.rstrip("/"))
    if key not in _REQUESTS:
        from .adapter import requests_session

        _REQUESTS[key] = requests_session(wrap(session, http_transport()))
    return {"session": _REQUESTS[key]}


def finish() -> list[Any]:
    """Every engine's differences (lifecycle verdicts included); the oracles are stopped."""
    for sent in _REQUESTS.values():
        sent.close()
    _REQUESTS.clear()
    return [d for engine in _ENGINES.values() for d in engine.finish()]


def section() -> list[str]:
    """The drift report's "Behavioural drift" section (nothing when no differential session ran)."""
    from .ledger import render

    finish()
    return render([engine.ledger for engine in _ENGINES.values()])
