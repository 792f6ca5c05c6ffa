"""BenchGen's drift catalogue: each drift, injected around the unmodified mock, must be caught by the crawl
of the existing data (the public listing, the models, the seeded finished run's status and item results:
spec validation, the conventions check, the score rollup, non-disclosure), naming the claim it broke
(B-nn, or the mock's proposal P-…). Test ids carry class and claim. The unmodified mock passes the same
checks; the ten-seed loop of the whole suite is `tests/drift/test_seeds.py` (marked slow)."""

from __future__ import annotations

import pytest

from mock_server.app import create_app
from mock_server.benchgen.fixtures import DEMO_TOKEN
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_json, served, set_status

ENV = {"BENCHGEN_TOKEN": DEMO_TOKEN}


def _crawl(url: str):
    return crawl_drifts("benchgen", url, ENV)


def at(suffix, fn):
    def edit(scope, status, body):
        if scope["path"].endswith(suffix):
            fn(body)

    return lambda app: Rewrite(app, on_json(edit))


def _first(body, **changes):
    for row in body.get("results") or []:
        row.update(changes)
        return


def _echo_token(body):
    body["owner_token"] = DEMO_TOKEN


def _all_results(fn):
    return lambda body: [fn(row) for row in body.get("results") or []]


DRIFTS = [
    ("listing-id-string", "catalog drift", "B-09", at("/public/", lambda b: _first(b, id="mmlu-mini"))),
    ("page-count-short", "cursors", "P-pages", at("/user_llm_models/", lambda b: b.__setitem__("count", 1))),
    ("page-next-not-url", "cursors", "P-pages", at("/public/", lambda b: b.__setitem__("next", 2))),
    ("done-as-string", "units", "B-33", at("/run_status/", lambda b: b.__setitem__("done", "true"))),
    ("score-as-percent", "units", "B-34", at("/run_status/", lambda b: b.__setitem__("score", 83.0))),
    ("score-and-error", "derived", "B-34", at("/run_status/", lambda b: b.__setitem__("error", "boom"))),
    ("finished-asks-to-poll", "derived", "B-37",
     at("/run_status/", lambda b: b.__setitem__("check_again_seconds", 30))),
    ("item-without-model-answer", "spec", "B-41",
     at("/item_results/", _all_results(lambda r: r.pop("model_answer", None)))),
    ("correct-as-string", "units", "B-41",
     at("/item_results/", _all_results(lambda r: r.__setitem__("correct", str(r.get("correct")))))),
    ("score-disagrees-with-items", "derived", "B-34",
     at("/item_results/", _all_results(lambda r: r.__setitem__("correct", True)))),
    ("token-echoed", "non-disclosure", "B-46", at("/user_llm_models/", _echo_token)),
    ("server-error-on-results", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"].endswith("/item_results/")))),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kind", "claim", "wrap"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS])
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap):
    with served(wrap(create_app(api="benchgen"))) as url:
        found = caught(lambda: _crawl(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the crawl reported {sorted(found) or 'nothing'}"


def test_unmodified_mock_passes():
    with served(create_app(api="benchgen")) as url:
        found = caught(lambda: _crawl(url))
    assert not found, f"the crawl reported drift on the unmodified mock: {sorted(found)}"
