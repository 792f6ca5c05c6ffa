"""What every drift catalogue shares: an ASGI wrapper for any API's paths, the crawl of a served app,
and the assertion that a drift was caught under the claim it broke.

Benchwright's JSON drifts reuse `tests.benchwright.drift.Drifted`; `Rewrite` below serves the other
APIs (paths under `/api`, `/models`) and drifts of headers or non-JSON bodies (artifact content).
A drift test serves the drifted app once and runs only the checks of that drift's claim (the crawl,
or the suite's own check functions called directly), rather than the whole suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import orjson

from contracts.apis import contract
from contracts.runner.claims import Drift
from contracts.runner.crawl import Crawl, hooks_of
from contracts.runner.target import LiveServer
from mock_server.apis import bundle
from tests.drifting import Rewrite as SharedRewrite

# (scope, status, headers [(bytes, bytes)], body bytes) -> (status, headers, body bytes)
RawHook = Callable[
    [dict[str, Any], int, list[tuple[bytes, bytes]], bytes], tuple[int, list[tuple[bytes, bytes]], bytes]
]


def Rewrite(app: Any, hook: RawHook | None = None, request: Callable[[dict[str, Any]], None] | None = None) -> Any:
    """The shared drift wrapper (`tests.drifting`) with a hook of `(scope, status, headers, raw)`;
    only server-sent event streams pass through unbuffered (NDJSON bodies are rewritable)."""
    answer = None if hook is None else (lambda scope, _request, status, headers, raw: hook(scope, status, headers, raw))
    return SharedRewrite(app, answer, request, stream=lambda media: b"event-stream" in media)


def on_json(fn: Callable[[dict[str, Any], int, Any], Any], when: Callable[[dict[str, Any]], bool] | None = None):
    """A `Rewrite` hook that edits parsed JSON bodies in place (`fn(scope, status, body)`; may return a new body)."""

    def hook(scope, status, headers, raw):
        media = dict(headers).get(b"content-type", b"")
        if b"json" not in media or not raw or (when is not None and not when(scope)):
            return status, headers, raw
        body = orjson.loads(raw)
        changed = fn(scope, status, body)
        return status, headers, orjson.dumps(body if changed is None else changed)

    return hook


def on_headers(fn: Callable[[dict[str, Any], int, dict[bytes, bytes]], None]):
    def hook(scope, status, headers, raw):
        table = {k.lower(): v for k, v in headers}
        fn(scope, status, table)
        return status, list(table.items()), raw

    return hook


def set_status(new: int, when: Callable[[dict[str, Any], int], bool]):
    def hook(scope, status, headers, raw):
        return (new if when(scope, status) else status), headers, raw

    return hook


def rows(body: Any) -> list[dict[str, Any]]:
    """The objects of a page or envelope: `data`, `items`, `results`, or the body itself."""
    if isinstance(body, dict):
        for key in ("data", "items", "results"):
            if isinstance(body.get(key), list):
                return [r for r in body[key] if isinstance(r, dict)]
        return [body]
    return []


@contextmanager
def served(app: Any) -> Iterator[str]:
    with LiveServer(app) as server:
        yield server.url


def crawl_drifts(api: str, url: str, env: dict[str, str]) -> list[Drift]:
    spec = contract(api)
    crawl = Crawl(bundle(spec.mock or api), url, env, spec.credentials, hooks=hooks_of(f"contracts.{api}"))
    try:
        return crawl.run()
    finally:
        crawl.client.close()


def claims_of(drifts: list[BaseException]) -> set[str]:
    """The claim ids the drifts name, with the clause id of a drift raised under a clause."""
    out: set[str] = set()
    for drift in drifts:
        if isinstance(drift, Drift):
            out |= {drift.claim.id, *([drift.clause] if drift.clause else [])}
        elif isinstance(drift, BaseExceptionGroup):
            out |= claims_of(list(drift.exceptions))
    return out


def caught(run: Callable[[], Any]) -> set[str]:
    """What a check names: the claims and clause ids of the drifts it returns or raises, and the
    clauses a suite claim id it names asserts (a clause's `via`, Benchwright's `auth.revoked` is `§2.4#8`)."""
    try:
        found = run()
    except (Drift, BaseExceptionGroup) as error:
        found = [error]
    ids = claims_of(list(found) if isinstance(found, list | tuple) else [])
    return ids.union(*(ref.clause_ids(ids) for ref in _references()))


@cache
def _references() -> list[Any]:
    from contracts.apis import CONTRACT_APIS
    from contracts.runner.coverage import reference

    return [reference(api) for api in CONTRACT_APIS]
