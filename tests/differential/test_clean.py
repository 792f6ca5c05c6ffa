"""Clean against clean: a mock served as `make serve` serves it (its clock following real time) is the
target, and the differential engine alone judges representative stateful sessions of each API (the
crawl of its existing data and the suite's own scenarios, through the differential front): zero
differences, since target and oracle are the same executable reading of the reference."""

from __future__ import annotations

import pytest

from mock_server.apis import profile
from mock_server.app import create_app
from tests.differential.catalogue import measure
from tests.drift import test_bench, test_benchgen, test_benchsdk, test_benchwright

SESSIONS = {
    "bench": {
        "crawl": test_bench._crawl,
        **{k: test_bench.SUITE_CHECKS[k] for k in ("versioning", "folds", "key-once")},
    },
    "benchsdk": {"crawl": test_benchsdk._crawl, **{k: test_benchsdk.SUITE_CHECKS[k] for k in ("records", "shapes")}},
    "benchgen": {"crawl": test_benchgen._crawl, **{k: test_benchgen.SUITE_CHECKS[k] for k in ("every-model", "joins")}},
    "benchwright": {
        k: test_benchwright.CHECKS[k] for k in ("crawl", "clamp", "idempotency", "idempotency-scope", "rate-counters")
    },
}
CASES = [(api, name) for api, sessions in SESSIONS.items() for name in sessions]


def served_as_make_serve(api: str):
    chosen = profile(api)
    return lambda: create_app(api=api, **{**chosen.serve_options, "clock_scale": 1.0})


@pytest.mark.parametrize(("api", "session"), CASES, ids=[f"{a}:{s}" for a, s in CASES])
def test_a_served_mock_shows_no_difference(api, session):
    """§3 of each reference, as the mock implements it: the oracle (a fresh mock) answers every request
    of the session as the served mock does (C-53 error formats, §3.8 ETags, §3.7 replays included)."""
    outcome = measure(api, session, "-", lambda app: app, SESSIONS[api][session], served_as_make_serve(api))
    assert outcome.compared > 0, f"{api}:{session} compared nothing"
    assert outcome.reported == [], f"{api}:{session}: " + "\n".join(outcome.reported)
