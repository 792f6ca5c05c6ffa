"""BenchGen's drift catalogue clause by clause: for every clause the suite asserts (`contracts/benchgen/clauses.py`;
a claim not split there is one clause, `B-nn`), a drift that breaks that clause alone, injected around the
unmodified mock, and the one suite check that must catch it under that clause (`Drift.clause`, or the claim for a
claim stated as one clause), filed under its claim. The unmodified mock passes every check used here.

Each drift serves the drifted app once and runs one check (a function of `contracts/benchgen/suite`, called as the
suite calls it). The drifts that need to know what the control surface did (which token was minted with which
scopes, which was revoked, whom an organizer approved) watch `/__mock` as well; none changes a control answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

from contracts.benchgen.exchange import Control, Exchange
from contracts.benchgen.suite import test_access, test_public, test_runs
from contracts.benchgen.suite.conftest import OPERATIONS
from contracts.benchgen.world import World
from contracts.runner.claims import clause_claim
from mock_server.app import create_app
from mock_server.benchgen.fixtures import DEMO_TOKEN
from tests.drift.harness import caught, served
from tests.drift.test_benchgen import SUITE_CHECKS, _joined, _queued, status_of
from tests.drift.test_clauses import json_answer, query_rewrite
from tests.drifting import Rewrite

READ, RUN = "benchmark:read", "benchmark:run"
PAGE = {"count": 0, "next": None, "previous": None, "results": []}
DONE = {"status": "completed", "done": True, "score": 0.5, "error": None, "check_again_seconds": None}

# -- the checks, each against a served URL (the mock's control surface reset first) ------------------------------


def _check(run: Callable[[Control, Exchange], Any]) -> Callable[[str], None]:
    def check(url: str) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            control = Control(http)
            control.reset()
            run(control, Exchange(http, OPERATIONS, secrets={DEMO_TOKEN}))

    return check


def _scopes(role: str) -> Callable[[str], None]:
    """The scope check for one role, as the suite runs it on the mock."""

    def run(control: Control, exchange: Exchange) -> None:
        place = World.on_mock(control, exchange, name="Contract scopes")
        _, token = control.token(place.user, test_access.ROLES[role])
        exchange.secrets.add(token)
        second = control.competition("Contract scopes 2", True)
        test_access.check_operation_scopes(exchange, place, token, test_access.ROLES[role], second, {200, 201})

    return _check(run)


def _agent(control: Control, exchange: Exchange) -> None:
    test_runs.check_agent_runs(exchange, World.on_deployment(exchange, DEMO_TOKEN), required=True)


CHECKS: dict[str, Callable[[str], None]] = {
    "listing": _check(lambda c, x: test_public.test_listing_is_public_searchable_and_paged(x)),
    "no-token": _check(lambda c, x: test_public.test_no_token_is_401(x, "listUserLlmModels")),
    "unissued-token": _check(lambda c, x: test_public.test_a_token_not_issued_is_401(x, "listUserLlmModels")),
    "scopes-read": _scopes("read"),
    "scopes-run": _scopes("run"),
    "revocation-window": _check(test_access.test_revoked_token_works_until_the_window_ends),
    "results": _check(lambda c, x: test_runs.check_a_run_to_its_results(x, World.on_mock(c, x))),
    "failed-run": _check(lambda c, x: test_runs.check_failed_run_says_why(x, World.on_mock(c, x), c)),
    "credits": _check(lambda c, x: test_runs.check_credits_run_out(x, c)),
    "agent": _check(_agent),
    "joins": SUITE_CHECKS["joins"],
    "every-model": SUITE_CHECKS["every-model"],
    "throttle": SUITE_CHECKS["throttle"],
    "token-surface": SUITE_CHECKS["token-surface"],
}

# -- rewrites ------------------------------------------------------------------------------------------------------


def _bearer(scope: dict[str, Any]) -> str:
    value = dict(scope["headers"]).get(b"authorization", b"").decode()
    return value.removeprefix("Bearer ").strip()


def _json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return {}


def _out(status: int, headers, body: Any, extra: tuple[tuple[bytes, bytes], ...] = ()):
    raw = orjson.dumps(body)
    drop = {b"content-length", b"www-authenticate", b"retry-after", *(k for k, _ in extra)}
    kept = [(k, v) for k, v in headers if k.lower() not in drop]
    return status, [*kept, *extra, (b"content-length", str(len(raw)).encode())], raw


UNAUTHENTICATED = (b"www-authenticate", b'Bearer realm="api"')

# (scope, sent JSON, status, answer JSON) -> a new (status, body[, extra headers]) or None
Edit = Callable[[dict[str, Any], Any, int, Any], tuple | None]


def answers(edit: Edit, *, watch_control: bool = False):
    """A drift that replaces answers with well-formed ones (`edit`); `watch_control`: it also sees `/__mock`
    requests (it never changes their answers), for drifts that depend on what the control surface did."""

    def answer(scope, request_body, status, headers, raw):
        if scope["path"].startswith("/__mock"):
            edit(scope, _json(request_body), status, _json(raw))
            return None
        changed = edit(scope, _json(request_body), status, _json(raw))
        return None if changed is None else _out(changed[0], headers, changed[1], changed[2:])

    applies = (lambda path: True) if watch_control else (lambda path: not path.startswith("/__mock"))
    return lambda app: Rewrite(app, answer, applies=applies)


def on(suffix: str, method: str, old: int, code: str | None = None):
    """The requests of `method` to paths ending in `suffix` whose answer was `old` (with error `code`)."""

    def match(scope, status, body) -> bool:
        if scope["method"] != method or not scope["path"].endswith(suffix) or status != old:
            return False
        return code is None or (isinstance(body, dict) and body.get("code") == code)

    return match


def replace(match, new: int, body: Callable[[dict[str, Any], Any], Any], *extra):
    return answers(
        lambda scope, sent, status, got: (new, body(scope, sent), *extra) if match(scope, status, got) else None
    )


def fresh(factory: Callable[[], Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """A stateful drift, its state made anew for every app it wraps."""
    return lambda app: factory()(app)


def _page(scope, sent):
    return PAGE


def _done(scope, sent):
    sid = int(scope["path"].split("/")[3])
    return {"submission_id": sid, **DONE, "run_path": f"/runs/{sid}"}


def _error(code: str, detail: str, **more):
    return lambda scope, sent: {"detail": detail, "code": code, **more}


# -- stateful drifts: what the control surface did decides the answer ---------------------------------------------


def _revoked_at_once():
    """The revocation window is zero: a token revoked through the control surface is refused from then on."""
    minted: dict[int, str] = {}
    revoked: set[str] = set()

    def edit(scope, sent, status, got):
        if scope["path"] == "/__mock/tokens" and status == 201:
            minted[got["id"]] = got["token"]
        elif scope["path"].startswith("/__mock/tokens/") and scope["method"] == "DELETE":
            revoked.add(minted.get(int(scope["path"].rsplit("/", 1)[1]), "unknown"))
        elif not scope["path"].startswith("/__mock") and _bearer(scope) and _bearer(scope) in revoked:
            return 401, {"detail": "Invalid token.", "code": "authentication_failed"}, UNAUTHENTICATED
        return None

    return answers(edit, watch_control=True)


def _served_past_the_window():
    """The window is longer than 60 s: the first refusal of a revoked token on the models is served instead."""
    served_once = [False]

    def edit(scope, sent, status, got):
        hit = scope["path"].endswith("/user_llm_models/") and status == 401 and _bearer(scope)
        if hit and not served_once[0]:
            served_once[0] = True
            return 200, PAGE
        return None

    return answers(edit)


def _read_only_refused():
    """A token minted with benchmark:read alone is refused on the reads it has the scope for."""
    narrow: set[str] = set()

    def edit(scope, sent, status, got):
        if scope["path"] == "/__mock/tokens" and status == 201 and set(sent.get("scopes", [])) == {READ}:
            narrow.add(got["token"])
        elif scope["method"] == "GET" and _bearer(scope) in narrow and status == 200:
            return 403, {"detail": "Missing scope.", "code": "permission_denied", "required_scopes": [RUN]}
        return None

    return answers(edit, watch_control=True)


def _approval_ignored():
    """An organizer's approval does not reach the run call: the participant's run stays refused as pending."""
    approved: set[int] = set()

    def edit(scope, sent, status, got):
        if scope["path"].endswith("/approve") and status == 200:
            approved.add(int(scope["path"].split("/")[3]))
        elif (
            scope["path"].endswith("/queue_benchmark_run") and status == 201 and sent.get("competition_id") in approved
        ):
            return 400, {"detail": "Participation pending approval.", "code": "participation_pending"}
        return None

    return answers(edit, watch_control=True)


def _done_then_running():
    """From a run's second finished answer on, it is running again."""
    seen: dict[str, int] = {}

    def edit(scope, sent, status, got):
        if scope["path"].endswith("/run_status/") and status == 200 and got.get("done"):
            seen[scope["path"]] = seen.get(scope["path"], 0) + 1
            if seen[scope["path"]] > 1:
                moved = {**got, "done": False, "status": "running", "score": None, "check_again_seconds": 5}
                return 200, moved
        return None

    return answers(edit)


def _score_moves():
    """From a run's second finished answer on, its score is another one."""
    seen: dict[str, int] = {}

    def edit(scope, sent, status, got):
        if scope["path"].endswith("/run_status/") and status == 200 and got.get("done"):
            seen[scope["path"]] = seen.get(scope["path"], 0) + 1
            if seen[scope["path"]] > 1 and isinstance(got.get("score"), int | float):
                return 200, {**got, "score": round(1 - got["score"], 4) if got["score"] != 0.5 else 0.25}
        return None

    return answers(edit)


def _external_key_echoed(scope, sent, status, got):
    if scope["path"].endswith("/queue_benchmark_run") and status == 201 and sent.get("model_token"):
        return 201, {**got, "model_token": sent["model_token"]}
    return None


def _is_agent(scope, sent, status, got):
    queued = scope["path"].endswith("/queue_benchmark_run") and status == 201
    if queued and sent.get("model_id") == 458:  # the seeded account's connected agent
        return 400, {"detail": "Agents cannot be run through this call.", "code": "does_not_exist"}
    return None


def _platform_model_id(scope, sent, status, got):
    by_id = "model_id" in sent and "model_source" not in sent
    if scope["path"].endswith("/queue_benchmark_run") and status == 201 and by_id:
        return 400, {"detail": "Unknown model.", "code": "does_not_exist"}
    return None


def _run_path(fn):
    def edit(scope, body):
        fn(body)

    return json_answer(r"/run_status/$", edit)


def _items_before_done(scope, sent, status, got):
    if scope["path"].endswith("/item_results/") and status == 400 and got.get("code") == "run_not_finished":
        item = {"index": 0, "question": "q", "expected_answer": "1", "model_answer": "1", "correct": True}
        return 200, {**PAGE, "count": 1, "results": [item]}
    return None


def _external(keyed: bool):
    """External-endpoint runs with (or without) a key are refused."""

    def edit(scope, sent, status, got):
        external = sent.get("model_source") == "external" and bool(sent.get("model_token")) == keyed
        if scope["path"].endswith("/queue_benchmark_run") and status == 201 and external:
            return 400, {"detail": "Invalid endpoint.", "code": "invalid"}
        return None

    return answers(edit)


def _first_id(body, value):
    for row in body.get("results") or []:
        row["id"] = value
        return


def _ids_shifted(scope, body):
    for row in body.get("results") or []:
        row["id"] += 100000


def _items(fn):
    def edit(scope, body):
        for row in body.get("results") or []:
            fn(row)

    return json_answer(r"/item_results/$", edit)


def _token_echoed(scope, body):
    body["owner_token"] = DEMO_TOKEN


def _score_while_running(scope, body):
    if body.get("done") is False:
        body["score"] = 0.5


def _failed_silently(scope, body):
    if body.get("status") == "failed":
        body["error"] = ""


# (kind, clause, name, drift, check)
DRIFTS = [
    ("auth", "B-03", "models-served-without-token",
     replace(lambda s, st, b: s["path"].endswith("/user_llm_models/") and st == 401 and not _bearer(s), 200, _page),
     "no-token"),
    ("auth", "B-04", "unissued-bgn-token-accepted",
     replace(lambda s, st, b: st == 401 and _bearer(s).startswith("bgn_contract"), 200, _page), "unissued-token"),
    ("listing", "B-05", "listing-needs-a-token",
     replace(lambda s, st, b: s["path"].endswith("/public/") and not _bearer(s), 401,
             _error("authentication_failed", "Authentication credentials were not provided."), UNAUTHENTICATED),
     "listing"),
    ("listing", "B-09.1", "listing-id-slug", json_answer(r"/public/$", lambda s, b: _first_id(b, "mmlu-mini")),
     "listing"),
    ("listing", "B-09.2", "listed-ids-shifted", json_answer(r"/public/$", _ids_shifted), "agent"),
    ("listing", "B-06", "search-ignored",
     query_rewrite(r"/public/$", lambda q: {k: v for k, v in q.items() if k != "search"}), "listing"),
    ("listing", "B-07", "page-size-ignored",
     query_rewrite(r"/public/$", lambda q: {k: v for k, v in q.items() if k != "page_size"}), "listing"),
    ("joins", "B-10", "join-route-gone",
     replace(on("/register/", "POST", 201), 404, _error("not_found", "Not found.")), "joins"),
    ("joins", "B-11", "join-answers-200",
     lambda app: Rewrite(app, lambda s, b, st, h, r: (200, h, r) if s["path"].endswith("/register/") and st == 201
                         else None), "joins"),
    ("joins", "B-13.1", "pending-runs", replace(on("/queue_benchmark_run", "POST", 400, "participation_pending"),
                                                201, _queued), "joins"),
    ("joins", "B-13.2", "approval-ignored", fresh(_approval_ignored), "joins"),
    ("joins", "B-14", "manual-approves",
     json_answer(r"/register/$", lambda s, b: b.update(participant_status="approved")
                 if b.get("participant_status") == "pending" else None, "POST"), "joins"),
    ("joins", "B-15", "repeat-join-201", replace(on("/register/", "POST", 400, "already_applied"), 201, _joined),
     "joins"),
    ("joins", "B-49", "unjoined-runs", replace(on("/queue_benchmark_run", "POST", 400, "not_participant"), 201,
                                               _queued), "joins"),
    ("scopes", "B-17", "read-token-joins", replace(on("/register/", "POST", 403), 201, _joined), "scopes-read"),
    ("scopes", "B-28", "read-token-queues", replace(on("/queue_benchmark_run", "POST", 403), 201, _queued),
     "scopes-read"),
    ("scopes", "B-32.2", "run-token-reads-status", replace(on("/run_status/", "GET", 403), 200, _done), "scopes-run"),
    ("scopes", "B-44", "run-token-reads-results", replace(on("/item_results/", "GET", 403), 200, _page),
     "scopes-run"),
    ("scopes", "B-45", "wrong-scope-named",
     json_answer(r"/(run_status|item_results|user_llm_models)/$",
                 lambda s, b: b.update(required_scopes=[RUN]) if "required_scopes" in b else None), "scopes-run"),
    ("scopes", "B-43", "read-token-refused-reads", fresh(_read_only_refused), "scopes-read"),
    ("revocation", "B-48.1", "revoked-at-once", fresh(_revoked_at_once), "revocation-window"),
    ("revocation", "B-48.2", "served-past-60s", fresh(_served_past_the_window), "revocation-window"),
    ("runs", "B-18", "json-body-refused",
     replace(on("/queue_benchmark_run", "POST", 201), 415,
             _error("unsupported_media_type", 'Unsupported media type "application/json" in request.')),
     "every-model"),
    ("runs", "B-21.1", "keyed-endpoint-refused", _external(True), "every-model"),
    ("runs", "B-21.2", "endpoint-key-required", _external(False), "every-model"),
    ("runs", "B-19", "model-id-refused", answers(_platform_model_id), "every-model"),
    ("runs", "B-24", "agent-refused", answers(_is_agent), "agent"),
    ("runs", "B-26", "queue-answers-200", status_of("/queue_benchmark_run", "POST", 201, 200), "throttle"),
    ("credits", "B-27", "runs-past-the-credits",
     replace(on("/queue_benchmark_run", "POST", 402), 201, _queued), "credits"),
    ("non-disclosure", "B-31.1", "endpoint-key-echoed", answers(_external_key_echoed), "every-model"),
    ("non-disclosure", "B-46.1", "token-echoed-on-models", json_answer(r"/user_llm_models/$", _token_echoed),
     "token-surface"),
    ("token api", "B-47", "token-revocable", status_of("/api/tokens/1/", "DELETE", 404, 200), "token-surface"),
    ("status", "B-35.1", "failed-without-why", json_answer(r"/run_status/$", _failed_silently), "failed-run"),
    ("status", "B-36.1", "no-run-path", _run_path(lambda b: b.pop("run_path", None)), "results"),
    ("status", "B-36.2", "one-run-path-for-all", _run_path(lambda b: b.update(run_path="/runs")), "results"),
    ("status", "B-50", "score-while-running", json_answer(r"/run_status/$", _score_while_running), "results"),
    ("status", "B-38.1", "done-then-running", fresh(_done_then_running), "results"),
    ("status", "B-38.2", "score-moves-after-done", fresh(_score_moves), "results"),
    ("status", "B-32.1", "status-route-gone",
     replace(on("/run_status/", "GET", 200), 404, _error("not_found", "Not found.")), "results"),
    ("status", "B-37.1", "in-flight-asks-for-0s",
     json_answer(r"/run_status/$", lambda s, b: b.update(check_again_seconds=0) if b.get("done") is False else None),
     "throttle"),
    ("results", "B-41.1", "item-without-expected-answer", _items(lambda r: r.pop("expected_answer", None)),
     "results"),
    ("results", "B-41.2", "item-without-model-answer", _items(lambda r: r.pop("model_answer", None)), "results"),
    ("results", "B-41.3", "correct-as-string", _items(lambda r: r.update(correct=str(r.get("correct")))), "results"),
    ("results", "B-39", "results-route-gone",
     replace(on("/item_results/", "GET", 200), 404, _error("not_found", "Not found.")), "results"),
    ("results", "B-40", "results-before-done", answers(_items_before_done), "results"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "clause", "name", "wrap", "check"), DRIFTS, ids=[f"{d[0]}:{d[1]}:{d[2]}" for d in DRIFTS]
)
def test_clause_drift_is_caught(kind, clause, name, wrap, check):
    with served(wrap(create_app(api="benchgen"))) as url:
        found = caught(lambda: CHECKS[check](url))
    assert clause in found, f"{name}: expected a drift naming {clause}; {check} named {sorted(found) or 'nothing'}"
    assert (clause_claim(clause) or clause) in found, f"{name}: {clause} is not filed under its claim"


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_unmodified_mock_passes(check):
    with served(create_app(api="benchgen")) as url:
        found = caught(lambda: CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_every_check_has_a_drift():
    assert {d[4] for d in DRIFTS} == set(CHECKS)
