"""BenchGen's drift catalogue: each drift, injected around the unmodified mock, must be caught by the crawl
of the existing data (the public listing, the models, the seeded finished run's status and item results:
spec validation, the conventions check, the score rollup, non-disclosure), or by one of the suite's
semantic checks called directly (`SUITE_CHECKS`: runs of every model kind and their credit accounting,
throttled polling, joins, the token surface), naming the claim it broke (B-nn, or the mock's proposal P-…).
Test ids carry class and claim. The unmodified mock passes the same checks; the ten-seed loop of the whole
suite is `tests/drift/test_seeds.py` (marked slow)."""

from __future__ import annotations

import httpx
import orjson
import pytest

from contracts.benchgen.exchange import Control, Exchange
from contracts.benchgen.suite import test_runs
from contracts.benchgen.suite.conftest import OPERATIONS
from contracts.benchgen.world import World
from mock_server.app import create_app
from mock_server.benchgen.fixtures import DEMO_TOKEN
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, served, set_status
from tests.drifting import Rewrite as SharedRewrite

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


# The BenchGen suite's own checks (`contracts/benchgen/suite/test_runs.py`), each called directly against the
# drifted server, its control surface reset first.
def _suite(run):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            control = Control(http)
            control.reset()
            run(Exchange(http, OPERATIONS, secrets={DEMO_TOKEN}), control, http)

    return check


SUITE_CHECKS = {
    "every-model": _suite(lambda x, c, h: test_runs.check_every_kind_of_model_runs(x, World.on_mock(c, x, 1000))),
    "throttle": _suite(lambda x, c, h: test_runs.check_polling_is_throttled(x, World.on_mock(c, x))),
    "joins": _suite(lambda x, c, h: test_runs.check_joins(x, c)),
    "token-surface": _suite(lambda x, c, h: test_runs.check_one_token_serves_the_api(x, DEMO_TOKEN, h)),
}


def replaced(suffix: str, new_status: int, body, marker: bytes = b"", old: int | None = None):
    """Answers to paths ending in `suffix` (whose request body holds `marker`, whose status was `old`) become
    `new_status` with `body(request)`, a well-formed answer, so only a semantic check can tell."""

    def answer(scope, request_body, status, headers, raw):
        if scope["path"].endswith(suffix) and marker in request_body and old in (None, status):
            sent = orjson.loads(request_body) if request_body.strip() else {}
            out = orjson.dumps(body(scope, sent))
            return new_status, [(k, str(len(out)).encode() if k == b"content-length" else v) for k, v in headers], out
        return None

    return lambda app: SharedRewrite(app, answer)


def _queued(scope, sent):
    cid = sent.get("competition_id", 1)
    return {
        "submission_id": 99999,
        "competition_id": cid,
        "status": "queued",
        "credits_charged": 10,
        "credits_remaining": 0,
        "run_path": f"/competitions/{cid}/runs/99999",
    }


def _refused(scope, sent):
    return {"detail": "The model was not found.", "code": "does_not_exist"}


def _joined(scope, sent):
    return {"participant_status": "approved", "competition_id": int(scope["path"].split("/")[3])}


def _no_scope(scope, sent):
    return {"detail": "Missing scope.", "code": "permission_denied", "required_scopes": ["benchmark:read"]}


def _failed_run(body):
    if body.get("done"):
        body.update(score=None, error="The model endpoint did not answer.", status="failed")


def _early_poll_counts(app):
    """The poll Retry-After later is throttled again: the early poll counted."""
    polls: dict[str, int] = {}

    def answer(scope, request_body, status, headers, raw):
        if not scope["path"].endswith("/run_status/"):
            return None
        polls[scope["path"]] = polls.get(scope["path"], 0) + 1
        if polls[scope["path"]] < 3:
            return None
        out = orjson.dumps({"detail": "Request was throttled. Expected available in 5 seconds.", "code": "throttled",
                            "wait": 5})  # fmt: skip
        kept = [(k, v) for k, v in headers if k not in (b"content-length", b"retry-after")]
        return 429, [*kept, (b"content-length", str(len(out)).encode()), (b"retry-after", b"5")], out

    return SharedRewrite(app, answer)


def status_of(suffix: str, method: str, old: int, new: int):
    return lambda app: Rewrite(
        app, set_status(new, lambda s, st: s["path"].endswith(suffix) and s["method"] == method and st == old)
    )


def _refusals_charge(app):
    """After a refused queue, every later answer reports 10 credits fewer."""
    refused = [0]

    def edit(scope, status, body):
        if scope["path"].endswith("/queue_benchmark_run"):
            if status == 400:
                refused[0] += 1
            elif status == 201:
                body["credits_remaining"] -= 10 * refused[0]

    return Rewrite(app, on_json(edit))


def _repeat_join_approves(app):
    """A repeated join of a pending participation approves it: the next run is queued."""
    repeated: set[int] = set()

    def answer(scope, request_body, status, headers, raw):
        if scope["path"].endswith("/register/") and status == 400 and b"already_applied" in raw:
            repeated.add(int(scope["path"].split("/")[3]))
        elif scope["path"].endswith("/queue_benchmark_run") and status == 400 and b"participation_pending" in raw:
            sent = orjson.loads(request_body)
            if sent.get("competition_id") in repeated:
                out = orjson.dumps(_queued(scope, sent))
                return 201, [(k, str(len(out)).encode() if k == b"content-length" else v) for k, v in headers], out
        return None

    return SharedRewrite(app, answer)


def _retry_after(scope, status, table):
    if status == 429:
        table[b"retry-after"] = b"3600"


SUITE_DRIFTS = [
    ("charged-twice", "credit and allowance accounting", "B-29", at("/queue_benchmark_run", lambda b: b.__setitem__(
        "credits_remaining", b["credits_remaining"] - b["credits_charged"]) if "credits_charged" in b else None),
     "every-model"),
    ("refusal-charges", "credit and allowance accounting", "B-29", _refusals_charge, "every-model"),
    ("model-by-name-refused", "runs", "B-20",
     replaced("/queue_benchmark_run", 400, _refused, b'"model":'), "every-model"),
    ("external-endpoint-refused", "runs", "B-21",
     replaced("/queue_benchmark_run", 400, _refused, b'"external"'), "every-model"),
    ("huggingface-refused", "runs", "B-23",
     replaced("/queue_benchmark_run", 400, _refused, b'"huggingface"'), "every-model"),
    ("http-endpoint-accepted", "runs", "B-22",
     replaced("/queue_benchmark_run", 201, _queued, b'"http://'), "every-model"),
    ("every-run-fails", "runs", "B-25", at("/run_status/", _failed_run), "every-model"),
    ("early-poll-counts", "throttling", "P-throttle", _early_poll_counts, "throttle"),
    ("retry-after-past-the-poll", "throttling", "P-throttle",
     lambda app: Rewrite(app, on_headers(_retry_after)), "throttle"),
    ("participant-status-unknown", "joins", "B-12", at("/register/", lambda b: b.__setitem__(
        "participant_status", "accepted") if "participant_status" in b else None), "joins"),
    ("repeat-join-approves", "joins", "B-16", lambda app: _repeat_join_approves(app), "joins"),
    ("draft-joinable", "joins", "B-08", replaced("/register/", 201, _joined, old=404), "joins"),
    ("token-api-exists", "auth and credential states", "B-42", status_of("/api/tokens/", "POST", 404, 201),
     "token-surface"),
    ("token-refused-on-models", "auth and credential states", "B-02",
     replaced("/user_llm_models/", 403, _no_scope), "token-surface"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), SUITE_DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in SUITE_DRIFTS]
)
def test_suite_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app(api="benchgen"))) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; {check} reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("check", sorted(SUITE_CHECKS))
def test_unmodified_mock_passes_the_suite_checks(check):
    with served(create_app(api="benchgen")) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_every_suite_check_has_a_drift():
    assert {d[4] for d in SUITE_DRIFTS} == set(SUITE_CHECKS)
