"""benchsdk's drift catalogue: each drift, injected around the unmodified mock, must be caught by the crawl
of the platform's existing data (spec validation, the conventions check, derived fields), naming the claim
it broke (A-nn, or the mock's proposal P-… where the reference is silent). Test ids carry class and claim.
The unmodified mock passes the same checks (`test_unmodified_mock_passes`); the ten-seed loop of the whole
suite is `tests/drift/test_seeds.py` (marked slow)."""

from __future__ import annotations

import pytest

from mock_server.app import create_app
from mock_server.benchsdk.fixtures import SEED_API_KEY
from tests.benchwright.drift import drop_query_parameter
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, served, set_status

ENV = {"BENCHMARKS_PLATFORM_API_KEY": SEED_API_KEY}


def _crawl(url: str):
    return crawl_drifts("benchsdk", url, ENV)


def each(fn):
    def walk(node):
        if isinstance(node, dict):
            fn(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    return lambda app: Rewrite(app, on_json(lambda scope, status, body: walk(body)))


def when(key, fn):
    return each(lambda node: fn(node) if key in node else None)


def _unwrap_run(scope, status, body):
    if isinstance(body, dict) and set(body) == {"run"} and "/runs/" in scope["path"]:
        return body["run"]
    return None


def _echo_key(scope, status, body):
    if isinstance(body, dict):
        body["requestedBy"] = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")


def _range_off(node):
    if isinstance(node.get("taskIndexEnd"), int):
        node["taskIndexEnd"] = node["taskIndexEnd"] + 3


def _more_participants(node):
    node["participants"]["total"] = node["participants"]["total"] + 1


def _bucket_off(node):
    node["successCount"] = node["successCount"] + 1


def _imports_off(node):
    node["persisted"] = node["persisted"] + 2


def ignores(name: str, suffix: str):
    """The server drops a query parameter of requests to paths ending in `suffix`."""
    return lambda app: Rewrite(app, request=drop_query_parameter(name, suffix))


def _run_artifacts_short(scope, status, body):
    if scope["path"].endswith("/artifacts") and "/workers/" not in scope["path"] and isinstance(body, dict):
        body["items"] = (body.get("items") or [])[:-1]


DRIFTS = [
    ("offset-ignored", "cursors", "A-81", ignores("offset", "/benchmarks")),
    ("max-lines-ignored", "cursors", "A-87", ignores("maxLines", "/logs")),
    ("run-artifact-list-short", "derived", "A-89", lambda app: Rewrite(app, on_json(_run_artifacts_short))),
    ("timestamp-without-ms", "units", "P-timestamps",
     when("createdAt", lambda n: n.__setitem__("createdAt", "2026-04-19T10:00:00Z"))),
    ("timestamp-with-offset", "units", "P-timestamps",
     when("updatedAt", lambda n: n.__setitem__("updatedAt", "2026-04-19T12:00:00.000+02:00"))),
    ("worker-range-disagrees", "attempt fencing", "A-23", when("taskIndexEnd", _range_off)),
    ("composite-score-out-of-range", "units", "A-75",
     when("compositeScore", lambda n: n.__setitem__("compositeScore", 150))),
    ("success-rate-percent", "units", "A-96", when("successRate", lambda n: n.__setitem__("successRate", 87.5))),
    ("run-envelope-dropped", "spec", "P-envelopes", lambda app: Rewrite(app, on_json(_unwrap_run))),
    ("slug-uppercase", "catalog drift", "A-17",
     each(lambda n: n.__setitem__("slug", n["slug"].upper()) if isinstance(n.get("slug"), str) and "config" in n
          else None)),
    ("download-url-relative", "spec", "A-61",
     when("downloadUrl", lambda n: n.__setitem__("downloadUrl", "/api/v1/artifacts/download"))),
    ("json-as-text", "spec", "A-05", lambda app: Rewrite(app, on_headers(
        lambda s, st, t: t.__setitem__(b"content-type", b"text/plain") if s["path"].endswith("/runs") else None))),
    ("progress-participants-total", "derived", "A-85",
     each(lambda n: _more_participants(n) if isinstance(n.get("participants"), dict) and "total" in n["participants"]
          else None)),
    ("bucket-counts-disagree", "derived", "A-96", when("successCount", _bucket_off)),
    ("import-states-disagree", "derived", "A-100", when("eventBatches", _imports_off)),
    ("api-key-echoed", "non-disclosure", "crawl.non_disclosure", lambda app: Rewrite(app, on_json(_echo_key))),
    ("server-error-on-timeline", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"].endswith("/timeline")))),
    ("undocumented-status", "spec", "P-status",
     lambda app: Rewrite(app, set_status(203, lambda s, st: s["path"].endswith("/progress")))),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kind", "claim", "wrap"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS])
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap):
    with served(wrap(create_app(api="benchsdk"))) as url:
        found = caught(lambda: _crawl(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the crawl reported {sorted(found) or 'nothing'}"


def test_unmodified_mock_passes():
    with served(create_app(api="benchsdk")) as url:
        found = caught(lambda: _crawl(url))
    assert not found, f"the crawl reported drift on the unmodified mock: {sorted(found)}"
