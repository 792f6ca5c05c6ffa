"""Bench's drift catalogue: each drift, injected around the unmodified mock, must be caught by the checks
`harness-contract --api bench` runs, naming the claim it broke. Two kinds of check, each called directly
against the drifted server: the generic crawl of the existing data (`contracts/runner/suite/test_crawl.py`:
spec validation of every answer read, non-disclosure of the caller's credentials), and the Bench suite's
own conventions check of every read operation (`contracts/bench/suite/test_conventions.py`: C-13, C-53,
C-59). Test ids carry class and claim. The unmodified mock passes both; the ten-seed loop of the whole
suite is `tests/drift/test_seeds.py` (marked slow)."""

from __future__ import annotations

import httpx
import pytest

from contracts.bench.suite import test_conventions
from contracts.bench.suite._client import Bench
from contracts.runner.claims import Drift
from mock_server.app import create_app
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, served, set_status

ENV = {"BENCH_API_KEY": "bench_dev_key_growth", "BENCH_OAUTH_TOKEN": "bench_dev_oauth_growth"}


def _crawl(url: str):
    return crawl_drifts("bench", url, ENV)


def _conventions(url: str):
    """The suite's conventions check over every read operation; its drifts, collected."""
    found: list[Drift] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        bench = Bench(http, ENV["BENCH_API_KEY"], ENV["BENCH_OAUTH_TOKEN"])
        ids = test_conventions.ids.__wrapped__(bench)
        for op_id in test_conventions.READS:
            try:
                test_conventions.test_read_operations_keep_the_conventions(bench, ids, op_id)
            except Drift as drift:
                found.append(drift)
    return found


def at(suffix, fn):
    def edit(scope, status, body):
        if scope["path"].endswith(suffix):
            fn(body)

    return lambda app: Rewrite(app, on_json(edit))


def _first_item(**changes):
    def fn(body):
        for row in body.get("items") or []:
            row.update(changes)
            return

    return fn


def _echo_key(scope, status, body):
    if isinstance(body, dict) and scope["path"] == "/api/auth/me":
        body["credential"]["secret"] = ENV["BENCH_API_KEY"]


def _error_reference(scope, status, body):
    if status >= 400 and isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"].pop("reference", None)


def _error_code(scope, status, body):
    if status >= 400 and isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"]["code"] = "teapot"


DRIFTS = [
    ("system-id-string", "spec", "spec.schema", at("/api/ai-systems", _first_item(id="123")), _crawl),
    ("run-status-unknown", "spec", "spec.schema", at("/api/evaluation-runs", _first_item(status="finished")), _crawl),
    ("allowance-remaining-missing", "credit and allowance accounting", "spec.schema",
     at("/api/evaluation-allowance", lambda b: b["allowance"].pop("remaining", None)), _crawl),
    ("context-version-string", "versioned writes", "spec.schema",
     at("/context", lambda b: b["context"].__setitem__("version", "3")), _crawl),
    ("undocumented-status", "spec", "spec.status",
     lambda app: Rewrite(app, set_status(203, lambda s, st: s["path"] == "/api/ai-systems" and st == 200)), _crawl),
    ("server-error-on-traces", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"] == "/api/traces")), _crawl),
    ("api-key-echoed", "non-disclosure", "crawl.non_disclosure", lambda app: Rewrite(app, on_json(_echo_key)), _crawl),
    ("json-as-text", "spec", "C-13", lambda app: Rewrite(app, on_headers(
        lambda s, st, t: t.__setitem__(b"content-type", b"text/plain") if s["path"] == "/api/ai-systems" else None)),
     _conventions),
    ("redirect", "spec", "C-59",
     lambda app: Rewrite(app, set_status(307, lambda s, st: s["path"] == "/api/billing/plans")), _conventions),
    ("error-without-reference", "errors", "C-53", lambda app: Rewrite(app, on_json(_error_reference)), _conventions),
    ("error-code-undocumented", "errors", "C-53", lambda app: Rewrite(app, on_json(_error_code)), _conventions),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS]
)
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app(api="bench"))) as url:
        found = caught(lambda: check(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the check reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("check", [_crawl, _conventions], ids=["crawl", "conventions"])
def test_unmodified_mock_passes(check):
    with served(create_app(api="bench")) as url:
        found = caught(lambda: check(url))
    assert not found, f"drift reported on the unmodified mock: {sorted(found)}"
