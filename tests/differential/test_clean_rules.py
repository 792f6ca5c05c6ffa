"""The rules that keep a clean target clean (docs/differential.md, "Clean against clean"): what each side
makes up is paired wherever a later request names it, rows are paired by what they hold, a resource read
at two points of its course is not compared in that snapshot, and the proxy leaves overlapping exchanges
of one client session uncompared. Each case is one cause of a false difference measured against a
served Benchwright mock, and the issue's rule it follows (values the two sides cannot agree on are
unpaired, never drift)."""

from __future__ import annotations

import httpx
import orjson

from contracts.runner.differential.compare import Comparison, timestamp
from contracts.runner.differential.oracle import Oracle
from contracts.runner.differential.pairing import Pairing
from contracts.runner.differential.proxy import ProxyOracle
from contracts.runner.differential.volatile import Volatile, paired_names, sized_names

TARGET, ORACLE = "http://target.test", "http://127.0.0.1:9"
UUID_T, UUID_O = "3a9b5385-e27f-4dad-b389-4ba5584b62cc", "ffab34f9-cd2c-4fbb-b047-0f3782b36dd9"


def never(_path) -> bool:
    return False


def test_a_paired_link_pairs_its_path_segments():
    """§10 (Benchwright top-ups): the checkout `url` a top-up answers names its session; the control call that
    pays it (`/__mock/topups/{session}/pay`) must reach the oracle with the oracle's session."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn(
        {"url": "https://checkout.stripe.com/c/pay/cs_test_aaa"},
        {"url": "https://checkout.stripe.com/c/pay/cs_test_bbb"},
        eligible=True,
    )
    assert pairing.path_to_oracle("/__mock/topups/cs_test_aaa/pay") == "/__mock/topups/cs_test_bbb/pay"


def test_a_page_cursor_pairs_on_any_read():
    """§3.4 (cursor pagination): each side's cursor for the next page of the same list pairs even on a plain
    list read, so page two is asked of the oracle with its own cursor."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"pagination": {"next_page_token": "tA"}}, {"pagination": {"next_page_token": "oB"}}, eligible=False)
    assert pairing.query_to_oracle("limit=1&page_token=tA") == "limit=1&page_token=oB"
    pairing.learn({"id": "row-t"}, {"id": "row-o"}, eligible=False)
    assert not pairing.known("row-t")  # an ordinary id on a plain read stays unpaired


def test_custom_methods_and_kind_prefixes_map_through_the_pairing():
    """§2.4 `POST /v1/tokens/{id}:rotate` names the id before its verb; §10 `GET /v1/billing/topups/{id}` takes
    the id with or without its `top_` prefix: both reach the oracle with the oracle's id."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"id": "tok-t"}, {"id": "tok-o"}, eligible=True)
    pairing.learn({"id": f"top_{UUID_T}"}, {"id": f"top_{UUID_O}"}, eligible=True)
    assert pairing.path_to_oracle("/v1/tokens/tok-t:rotate") == "/v1/tokens/tok-o:rotate"
    assert pairing.path_to_oracle(f"/v1/billing/topups/{UUID_T}") == f"/v1/billing/topups/{UUID_O}"
    assert pairing.references("/v1/tokens/tok-t:rotate", "")


def test_a_principal_minted_in_the_session_pairs_its_rows():
    """What a user made in the session reads is the session's (its egress sessions, its pending requests):
    a credential minted in view marks the read; the run's own ready credential does not."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.credentials({"BW_PAT": "ready-t"}, {"BW_PAT": "ready-o"})
    pairing.learn({"cookie": "sess_t"}, {"cookie": "sess_o"}, eligible=True)
    assert not pairing.minted(["Bearer ready-t"])
    assert pairing.minted(["bw_session=sess_t"])


def test_rows_paired_by_position_are_matched_on_what_they_hold():
    """§8 host rules listed in another order on each side (sorted by made-up ids) pair by their shared values,
    not crosswise, so nothing differs."""
    pairing = Pairing(TARGET, ORACLE)
    target = {"data": [{"id": "t1", "host_pattern": "pypi.org"}, {"id": "t2", "host_pattern": "*.openrouter.ai"}]}
    oracle = {"data": [{"id": "o2", "host_pattern": "*.openrouter.ai"}, {"id": "o1", "host_pattern": "pypi.org"}]}
    pairing.learn(target, oracle, eligible=True)
    assert pairing.forward["t1"] == "o1" and pairing.forward["t2"] == "o2"
    result = Comparison(never, pairing.known).run(target, pairing.to_target(oracle))
    assert [d.kind for d in result.diffs] == ["order"]  # the order itself still compares


def test_rows_paired_by_position_prefer_the_references_they_share():
    """§10.4 ledger rows made in the session (their ids each side's own) that name seed runs both sides hold:
    a row pairs with the one naming the same run, never crosswise, even listed in another order (crossed, the
    two seed runs were paired with each other and every later read of them differed)."""
    pairing = Pairing(TARGET, ORACLE)
    target = {"data": [{"id": "txn_t1", "kind": "trace_debit", "reference_id": "run-a"},
                       {"id": "txn_t2", "kind": "trace_debit", "reference_id": "run-b"}]}  # fmt: skip
    oracle = {"data": [{"id": "txn_o2", "kind": "trace_debit", "reference_id": "run-b"},
                       {"id": "txn_o1", "kind": "trace_debit", "reference_id": "run-a"}]}  # fmt: skip
    pairing.learn(target, oracle, eligible=True)
    assert pairing.forward["txn_t1"] == "txn_o1" and pairing.forward["txn_t2"] == "txn_o2"
    assert pairing.forward["run-a"] == "run-a" and pairing.forward["run-b"] == "run-b"


def test_a_clock_reading_the_client_sends_back_reaches_the_oracle_as_the_oracles():
    """A-93 (benchsdk `since`/`until` at millisecond precision): a run's `createdAt` sent back as `since` is the
    target's clock reading; the oracle is asked with its own reading of the same moment."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"createdAt": "2026-04-23T14:02:33.633Z"}, {"createdAt": "2026-04-23T14:02:33.635Z"}, True)
    assert pairing.query_to_oracle("since=2026-04-23T14:02:33.633Z") == "since=2026-04-23T14%3A02%3A33.635Z"


def test_a_filter_bound_at_a_session_runs_instant_reaches_the_oracle_at_its_twins():
    """§3.5 filter operators: `started_at=lte:<a run's started_at>`, the instant re-spelt by the client, asks
    the oracle with its twin run's own reading (the twin started microseconds later and would fall outside the
    bound); the rows of a list matched by an id paired in the session pair their clock readings."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"id": "run-t"}, {"id": "run-o"}, eligible=True)
    pairing.learn(
        {"data": [{"id": "run-t", "started_at": "2026-04-23T14:02:17.446127Z"}]},
        {"data": [{"id": "run-o", "started_at": "2026-04-23T14:02:17.446301Z"}]},
        eligible=False,
    )
    sent = "started_at=lte:2026-04-23T14:02:17.446127%2B00:00&status=in:run-t,ok"
    assert pairing.query_to_oracle(sent) == ("started_at=lte%3A2026-04-23T14%3A02%3A17.446301Z&status=in%3Arun-o%2Cok")
    assert pairing.query_to_oracle("started_at=gte:2026-04-23T14:02:18Z") == "started_at=gte%3A2026-04-23T14%3A02%3A18Z"
    pairing.learn(
        {"data": [{"id": "fixture", "at": "2026-01-01T00:00:00Z"}]},
        {"data": [{"id": "fixture", "at": "2026-01-01T00:00:01Z"}]},
        False,
    )
    assert not pairing.known("2026-01-01T00:00:00Z")  # a row both sides share is not one of the session's


def test_a_value_the_spec_marks_paired_is_an_identifier():
    """§12a: a pending message has no id; its `ts` (each side's clock, in ms) is the handle for
    `DELETE …/pending/{ts}`. `x-volatile: paired` pairs it like an id."""
    doc = {"components": {"schemas": {"Item": {"properties": {"ts": {"type": "integer", "x-volatile": "paired"}}}}}}
    names = paired_names(doc)
    assert names == {"ts"}
    pairing = Pairing(TARGET, ORACLE, made_up=names)
    pairing.learn({"pending": [{"ts": 1776978013001}]}, {"pending": [{"ts": 1776978013290}]}, eligible=True)
    assert pairing.path_to_oracle("/v1/operators/op/pending/1776978013001") == "/v1/operators/op/pending/1776978013290"
    unpaired = Comparison(never, pairing.known, made_up=names).run({"ts": 5}, {"ts": 6})
    assert unpaired.diffs == [] and unpaired.unpaired == 1


def test_a_size_of_text_holding_clock_readings_compares_within_one_percent():
    """§4.1 `storage.event_bytes` counts the events' text, which holds each side's `duration_ms`: a digit more
    where a duration crosses a power of ten is not drift; a size counted another way is."""
    doc = {"components": {"schemas": {"S": {"properties": {"event_bytes": {"type": "integer", "x-volatile": "size"}}}}}}
    sized = sized_names(doc)
    assert sized == {"event_bytes"}
    assert Comparison(never, never, sized=sized).run({"event_bytes": 2001}, {"event_bytes": 2000}).diffs == []
    assert Comparison(never, never, sized=sized).run({"event_bytes": 9}, {"event_bytes": 10}).diffs == []
    far = Comparison(never, never, sized=sized).run({"event_bytes": 2100}, {"event_bytes": 2000})
    assert [d.kind for d in far.diffs] == ["value"]
    unmarked = Comparison(never, never).run({"event_bytes": 2001}, {"event_bytes": 2000})
    assert [d.kind for d in unmarked.diffs] == ["value"]


def test_a_moving_resources_counts_are_not_compared_in_that_snapshot():
    """§4.1 a `running` run (x-moving-states) read a moment apart: its `tokens/driver/total` is a count named
    like a list's total, and was compared at the end of the comparison, after the run's other fields had been
    set aside (a clean served mock: 0 tokens on the target, 4580 on the oracle)."""

    def running(name: str, state: object) -> bool:
        return name == "status" and state == "running"

    t = {"data": [{"id": "r1", "status": "running", "tokens": {"driver": {"total": 0}}}]}
    o = {"data": [{"id": "r1", "status": "running", "tokens": {"driver": {"total": 4580}}}]}
    moving = Comparison(never, never, transient=running).run(t, o)
    assert moving.diffs == [] and moving.moving == 1
    t["data"][0]["status"] = o["data"][0]["status"] = "ok"
    assert [d.kind for d in Comparison(never, never, transient=running).run(t, o).diffs] == ["value"]


def test_paired_ids_listed_in_another_order_are_the_same_set():
    """§9 a `409 ambiguous` lists its candidate ids sorted by id: each side's made-up ids sort differently, the
    set is what compares."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"id": "bm_1"}, {"id": "bm_9"}, eligible=True)
    pairing.learn({"id": "bm_2"}, {"id": "bm_3"}, eligible=True)
    same = Comparison(never, pairing.known).run(
        {"candidates": ["bm_1", "bm_2"]}, pairing.to_target({"candidates": ["bm_3", "bm_9"]})
    )
    assert same.diffs == []
    other = Comparison(never, pairing.known).run({"candidates": ["bm_1"]}, pairing.to_target({"candidates": ["bm_9"]}))
    assert other.diffs == []
    wrong = Comparison(never, pairing.known).run({"candidates": ["bm_1", "bm_1"]}, {"candidates": ["bm_1", "bm_2"]})
    assert wrong.diffs  # another set is drift


def test_a_run_read_at_another_point_of_its_course_is_compared_by_its_states():
    """§5 runs move on their own: a snapshot where one side took one more step (its age at its last change
    differs) is not compared field by field; the same snapshot at the same step is."""
    base = {"id": "r", "status": "running", "created_at": "2026-04-23T14:00:00Z"}
    earlier = {**base, "updated_at": "2026-04-23T14:00:00Z", "storage": {"event_count": 3}}
    later = {**base, "updated_at": "2026-04-23T14:00:00.400000Z", "storage": {"event_count": 4}}
    seen = []
    moving = Comparison(never, lambda v: False, lifecycle=lambda *a: seen.append(a)).run(earlier, later)
    assert moving.diffs == [] and moving.moving == 1 and seen  # its state still goes to the lifecycle
    still = Comparison(never, lambda v: False).run(earlier, {**earlier, "storage": {"event_count": 4}})
    assert [d.where for d in still.diffs] == ["storage/event_count"]


def test_a_header_learned_volatile_is_volatile_on_every_operation():
    """§1 `X-Benchwright-Request-Id` is unique per request on every server: seen to differ between the two
    oracles on one operation, it is noise on all."""
    from contracts.runner.differential.compare import Diff

    volatile = Volatile({})
    volatile.learn("GET /a 200", [Diff(("header", "x-request-id"), "value")])
    assert volatile.checker("GET /b 404", None)(("header", "x-request-id"))
    assert not volatile.checker("GET /b 404", None)(("body", "x"))


def test_two_benchwright_mocks_run_the_same_launch_alike():
    """The mock draws a run's course (which trials pass, how long tasks take) from its place on the server,
    not its random id: two fresh mocks given the same session show the same scores (§7.2 best trial)."""
    mocks = [Oracle("benchwright", 0.0).start() for _ in range(2)]
    try:
        tasks = []
        for mock in mocks:
            key = {"authorization": f"Bearer {mock.credentials['BW_PAT']}"}
            body = {
                "request": "Run MMLU Abstract Algebra via OpenRouter",
                "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"},
                "trials": {"plan": {"k": 3}, "aggregator": {"name": "mean"}},
                "metadata": {"indices": "0-9"},
            }
            launched = mock.client.post("/v1/runs", json=body, headers=key)
            assert launched.status_code == 202, launched.text
            mock.client.post("/__mock/clock", json={"advance_seconds": 3600})
            run = launched.json()["id"]
            rows = mock.client.get(f"/v1/runs/{run}/tasks", params={"include_retries": "true"}, headers=key)
            tasks.append([(r["index"], r["trial"], r["score"]) for r in rows.json()["data"]])
        assert tasks[0] and tasks[0] == tasks[1]
    finally:
        for mock in mocks:
            mock.close()


class _Exchange:
    def __init__(self, credential: str) -> None:
        self.request_headers = {"authorization": credential}


def test_the_proxy_compares_only_exchanges_that_overlap_none_of_their_session():
    """Sequential exchanges of a client compare in the order sent; two of one session in flight together are
    replayed, not compared (their order on the target is unknown); another client's do not interfere."""
    proxy = ProxyOracle.__new__(ProxyOracle)  # its bookkeeping alone: no oracle needed
    proxy.lock, proxy.in_flight = __import__("threading").Lock(), {}
    first, second, other = _Exchange("Bearer a"), _Exchange("Bearer a"), _Exchange("Bearer b")
    proxy.begin(first)
    proxy.begin(other)
    assert proxy.end(other) is False  # another session's exchange in flight does not count
    proxy.begin(second)
    assert proxy.end(second) is True and proxy.end(first) is True
    assert proxy.end(first) is True  # idempotent: the flag is kept
    later = _Exchange("Bearer a")
    proxy.begin(later)
    assert proxy.end(later) is False


def test_an_oracle_in_a_process_of_its_own_serves_like_the_embedded_one():
    """A contract run serves its oracles in processes of their own (`make serve`'s command): the same API and
    ready credentials as an oracle in this process."""
    spawned = Oracle("bench", 0.0).start(separate=True)
    local = Oracle("bench", 0.0).start()
    try:
        assert spawned.credentials == local.credentials
        key = {"Authorization": f"Bearer {spawned.credentials['BENCH_API_KEY']}"}
        one = httpx.get(f"{spawned.base_url}/api/billing/plans", headers=key)
        two = httpx.get(f"{local.base_url}/api/billing/plans", headers=key)
        assert one.status_code == two.status_code == 200 and one.json() == two.json()
    finally:
        spawned.close()
        local.close()


def test_rows_made_at_the_same_moment_may_list_in_either_order():
    """§8 host rules list by creation, ties by id: the starter rules made at one moment list in each side's
    own id order, which is no drift; rows made at different moments in another order are."""
    rows = {"id": "a", "created_at": "2026-04-23T14:00:00Z"}, {"id": "b", "created_at": "2026-04-23T14:00:00Z"}
    tie = Comparison(never, lambda v: True).run({"data": list(rows)}, {"data": list(reversed(rows))})
    assert tie.diffs == []
    later = {"id": "b", "created_at": "2026-04-23T14:00:09Z"}
    swapped = Comparison(never, lambda v: True).run({"data": [rows[0], later]}, {"data": [later, rows[0]]})
    assert [d.kind for d in swapped.diffs] == ["order"]


def test_a_resource_in_a_state_it_leaves_on_its_own_is_compared_by_its_states():
    """§5: once the oracle was seen to leave `running` on its own, a run read `running` is on its way: its
    counters are not compared in that snapshot; a run in a state nobody leaves is compared field by field."""
    from contracts.runner.differential.lifecycle import Lifecycles

    lifecycles = Lifecycles()
    lifecycles.observe("GET /v1/runs/{id}", ("status",), "r0", "running", "running")
    lifecycles.observe("GET /v1/runs/{id}", ("status",), "r0", "succeeded", "succeeded")
    running = {"id": "r1", "status": "running", "storage": {"event_count": 1}}
    moving = Comparison(never, lambda v: False, transient=lifecycles.moving).run(
        running, {**running, "storage": {"event_count": 2}}
    )
    assert moving.diffs == [] and moving.moving == 1
    done = {"id": "r1", "status": "succeeded", "storage": {"event_count": 1}}
    still = Comparison(never, lambda v: False, transient=lifecycles.moving).run(
        done, {**done, "storage": {"event_count": 2}}
    )
    assert [d.where for d in still.diffs] == ["storage/event_count"]


def test_the_spec_says_which_states_move_before_any_is_seen_to():
    """§4.1.1: a `running` run moves on its own (`x-moving-states` on the run's `status`): the engine knows it
    from the first exchange, so a run read `running` a moment apart on each side (one event more on the oracle,
    whose clock is level or ahead) is not a difference even before the oracle was seen to leave `running`."""
    from contracts.runner.differential.lifecycle import Lifecycles
    from contracts.runner.differential.volatile import moving_states
    from mock_server.apis import bundle

    moving = moving_states(bundle("benchwright"))
    assert moving["status"] == {"running"}
    lifecycles = Lifecycles(moving)
    running = {"id": "r1", "status": "running", "storage": {"event_count": 1, "event_bytes": 144}}
    seen = Comparison(never, lambda v: False, transient=lifecycles.moving).run(
        running, {**running, "storage": {"event_count": 2, "event_bytes": 226}}
    )
    assert seen.diffs == [] and seen.moving == 1


def test_a_body_reaches_the_oracle_as_the_client_wrote_it():
    """§3.7 (idempotency) and §3.3 (validation first): an integer below the 64-bit range under a key already
    used is `400 invalid_argument` on the target, the body refused before the key is looked up. The body must
    reach the oracle as written: read by orjson and written again it became `-9.223372036854776e18`, a whole
    float the oracle accepted as an integer, and its key lookup answered `409 idempotency_conflict`."""
    from contracts.runner.differential.engine import Engine, _rewritten

    target = Oracle("benchwright", 0.0).start()
    engine = Engine("benchwright", target.base_url, target.credentials)
    try:
        key = {"authorization": f"Bearer {target.credentials['BW_PAT']}", "idempotency-key": "0"}
        first = {"request": "Run MMLU", "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"}}
        huge = b'{"request": "Run MMLU", "metadata": {"proxy_linger_seconds": -9223372036854775809}}'
        found = []
        for body in (orjson.dumps(first), huge):
            headers = {**key, "content-type": "application/json"}
            answer = target.client.post("/v1/runs", content=body, headers=headers)
            found += engine.observe(answer.request, answer)
        assert answer.status_code == 400, answer.text
        assert found == [], [f.detail for f in found]
        assert engine.ledger.compared == 2
        rewritten = _rewritten(b'{"run": "t", "n": -9223372036854775809}', _paired("t", "o"))
        assert rewritten == b'{"run":"o","n":-9223372036854775809}'  # rewritten, the integer kept exact
    finally:
        engine.finish()
        target.close()


def _paired(target: str, oracle: str) -> Pairing:
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"id": target}, {"id": oracle}, eligible=True)
    return pairing


def test_a_rate_limit_window_counted_unevenly_leaves_its_counts_unpaired():
    """§13 (fixed windows per account): the oracle answers each exchange a moment after the target, its clock
    level or ahead, so a write made just before a window's end counts in the next window on the oracle
    (`X-RateLimit-Reset` a window apart). `GET /v1/users/me/rate-limits` read in that window then counts one
    more write on the oracle: its `x-volatile: window` counts are unpaired there, compared everywhere else."""
    from contracts.runner.differential.engine import Answer, Engine

    target = Oracle("benchwright", 0.0).start()
    engine = Engine("benchwright", target.base_url, target.credentials, shadow_runs=0)
    try:
        key = {"authorization": f"Bearer {target.credentials['BW_PAT']}"}
        read = target.client.get("/v1/users/me/rate-limits", headers=key)
        counts = read.json()
        write = counts["write"]
        one_more = {**counts, "write": {**write, "count": write["count"] + 1, "remaining": write["remaining"] - 1}}
        window = int(read.headers["x-ratelimit-reset"])

        def differences(oracle_reset: int) -> list[str]:
            headers = {**dict(read.headers), "x-ratelimit-reset": str(oracle_reset)}
            oracle = Answer(200, headers, orjson.dumps(one_more), one_more)
            uneven = engine._windows(Answer.of(read), oracle)
            label, op = "GET /v1/users/me/rate-limits 200", engine.router.match("GET", read.url.path)[0]
            return engine._body(read.request, label, op, Answer.of(read), oracle, lambda *_: None, uneven)

        assert sorted(d[1].split(":")[0] for d in differences(window)) == ["write/count", "write/remaining"]
        assert differences(window + 60) == []  # the exchanges of the window counted apart: unpaired
        assert differences(window) == []  # and so is every later read of either window
    finally:
        engine.finish()
        target.close()


def test_an_error_sentence_naming_a_paired_value_reads_in_the_targets_terms():
    """§12a: `DELETE …/pending/{ts}` of a message already gone answers `404 {"error": "no outstanding message
    <ts>: ..."}`, naming the handle the oracle was asked for (its own `ts`, through the pairing). Read in the
    target's terms the sentences agree; a value the pairing does not hold stays as the oracle wrote it."""
    pairing = Pairing(TARGET, ORACLE, made_up=frozenset({"ts"}))
    pairing.learn({"pending": [{"ts": 1776952839098}]}, {"pending": [{"ts": 1776952839120}]}, eligible=True)
    gone = "no outstanding message {}: already gone, or never queued"
    assert pairing.text_to_target({"error": gone.format(1776952839120)}) == {"error": gone.format(1776952839098)}
    assert pairing.text_to_target({"error": gone.format(1776952839555)}) == {"error": gone.format(1776952839555)}


def test_a_filter_bound_the_oracles_clock_orders_otherwise_is_not_compared():
    """A-93.3 (`until=<a run's createdAt - 1 ms>`) against a deployment: the bound is another resource's reading
    on the target, a millisecond before the run's; on the oracle, which replays each write a little after the
    target answered, the twins of the two fall in one millisecond. The bound cannot mean there what it meant on
    the target, so the pairing says so and the engine leaves the answer unpaired (the oracle's twin run was
    listed, the target's not: 1 false difference in staging mode)."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"createdAt": "2026-04-23T14:00:05.028Z"}, {"createdAt": "2026-04-23T14:00:05.029Z"}, True)
    pairing.learn({"createdAt": "2026-04-23T14:00:05.029Z"}, {"createdAt": "2026-04-23T14:00:05.029Z"}, True)
    # a second before both: as far from the nearest reading on the oracle, in order with every reading
    assert pairing.query_to_oracle("until=2026-04-23T14:00:04.000Z") == "until=2026-04-23T14%3A00%3A04.001Z"
    assert not pairing.unordered
    pairing.query_to_oracle("until=2026-04-23T14:00:05.028Z")
    assert pairing.unordered
    kept = Pairing(TARGET, ORACLE)  # readings that keep their order map as before
    kept.learn({"createdAt": "2026-04-23T14:00:05.028Z"}, {"createdAt": "2026-04-23T14:00:05.029Z"}, True)
    kept.learn({"createdAt": "2026-04-23T14:00:05.029Z"}, {"createdAt": "2026-04-23T14:00:05.031Z"}, True)
    assert kept.query_to_oracle("until=2026-04-23T14:00:05.028Z") == "until=2026-04-23T14%3A00%3A05.029Z"
    assert (
        kept.query_to_oracle("started_at=lte:2026-04-23T14:00:05.029Z")
        == "started_at=lte%3A2026-04-23T14%3A00%3A05.031Z"
    )
    assert not kept.unordered


def test_clock_readings_are_not_read_back_in_the_targets_terms():
    """Against a deployment the oracle's clock runs seconds apart from the target's. A run's `created_at`, paired
    when the create answered, was read back as the target's while its `started_at` stayed the oracle's, so the
    two read 0.75 s out of order on the oracle (Bench's `GET /api/evaluation-runs/{id}` in staging mode): each
    side's readings now compare among themselves."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn(
        {"id": 1000, "created_at": "2026-04-23T14:00:07.386055+00:00"},
        {"id": 1000, "created_at": "2026-04-23T14:00:01.631712+00:00"},
        True,
    )
    oracle = {
        "id": 1000,
        "created_at": "2026-04-23T14:00:01.631712+00:00",
        "started_at": "2026-04-23T14:00:06.631712+00:00",
    }
    assert pairing.to_target(oracle) == oracle
    target = {
        "id": 1000,
        "created_at": "2026-04-23T14:00:07.386055+00:00",
        "started_at": "2026-04-23T14:00:12.386055+00:00",
    }
    assert Comparison(never, pairing.known).run(target, pairing.to_target(oracle)).diffs == []


def test_the_age_of_existing_data_is_not_compared_where_the_clocks_are_apart():
    """Against a deployment (no `/__mock/clock` to follow), a seed token's `created_at` is when each side's data
    was made, its `last_used_at` a moment of the session: the interval measures how long before the session the
    data existed (+9 s on the target, +3 s on the oracle in staging mode). Across the oracle's session start
    only the order compares; readings both made in the session still compare by difference."""
    start = timestamp("2026-04-23T14:00:05Z")
    target = {"id": "tok", "created_at": "2026-04-23T14:00:00Z", "last_used_at": "2026-04-23T14:00:09Z"}
    oracle = {"id": "tok", "created_at": "2026-04-23T14:00:00Z", "last_used_at": "2026-04-23T14:00:06Z"}
    assert Comparison(never, lambda _v: False).run(target, oracle).diffs  # clocks followed: drift
    assert Comparison(never, lambda _v: False, since=start).run(target, oracle).diffs == []
    backwards = {**oracle, "last_used_at": "2026-04-23T13:59:00Z"}  # the order still compares
    assert Comparison(never, lambda _v: False, since=start).run(target, backwards).diffs
    late = {"id": "r", "created_at": "2026-04-23T14:00:06Z", "finished_at": "2026-04-23T14:01:06Z"}
    early = {"id": "r", "created_at": "2026-04-23T14:00:07Z", "finished_at": "2026-04-23T14:00:17Z"}
    assert Comparison(never, lambda _v: False, since=start).run(late, early).diffs  # in the session: compared


def test_an_instant_no_reading_names_keeps_its_distance_from_the_sessions_readings():
    """A-93.3 against a deployment: `until=<a run's createdAt - 1 ms>` names no reading of the session, and the
    oracle's clock runs 7 s behind the target's (a staging mock started earlier; months on a live service). Sent
    as it was, the bound fell 7 s after the oracle's twin and listed it (the target did not: 1 difference). The
    oracle gets the instant as far from its own reading of the run as the target's is, in the client's
    spelling; a request body's instant (`expires_at`, an hour from the target's now) the same way."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"createdAt": "2026-04-23T14:00:07.160Z"}, {"createdAt": "2026-04-23T14:00:00.460Z"}, True)
    assert pairing.query_to_oracle("until=2026-04-23T14:00:07.159Z") == "until=2026-04-23T14%3A00%3A00.459Z"
    assert pairing.query_to_oracle("since=2026-04-22T00:00:00Z") == "since=2026-04-21T23%3A59%3A53Z"
    assert not pairing.unordered
    body = {"expires_at": "2026-04-23T15:00:07.160000+00:00", "label": "2026-04-23T14:00:07Z?"}
    assert pairing.to_oracle(body) == {"expires_at": "2026-04-23T15:00:00.460000+00:00", "label": body["label"]}
    assert Pairing(TARGET, ORACLE).to_oracle(body) == body  # no reading yet: nothing to measure from
    odd = {"expires_at": "2026-04-23T15:00:07.1600000-00:00"}  # a spelling `_spelt` cannot write again
    assert pairing.to_oracle(odd) == odd


def test_an_instant_near_existing_data_both_sides_hold_reaches_the_oracle_as_it_is():
    """§4.5 against a staging mock: `started_at=lte:2026-04-22T18:00:00Z`, a bound at seed runs both sides hold
    with the same readings. Measured from the session's nearest reading (7 s apart on the two clocks) it
    excluded a seed run on the oracle that the target listed; the nearest reading is the seed run's own, the
    same on both sides, so the bound reaches the oracle unchanged."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"createdAt": "2026-04-23T14:00:07.160Z"}, {"createdAt": "2026-04-23T14:00:00.460Z"}, True)
    seed = {"data": [{"id": "run-seed", "started_at": "2026-04-22T18:00:00Z"}]}
    pairing.learn(seed, seed, False)
    sent = "started_at=lte:2026-04-22T18:00:00Z"
    assert pairing.query_to_oracle(sent) == "started_at=lte%3A2026-04-22T18%3A00%3A00Z"
    assert pairing.query_to_oracle("until=2026-04-23T14:00:07.159Z") == "until=2026-04-23T14%3A00%3A00.459Z"
    assert not pairing.unordered


def test_an_object_where_the_oracle_answers_null_is_compared_not_dropped():
    """A-77 (`summary-invented`): the target answers an object where the oracle answers null. Learning clock
    readings asked whether the object was a value the client sent before asking whether it was a timestamp,
    hashing a dict: the exchange was dropped as one the engine could not compare, and the drift went unseen."""
    pairing = Pairing(TARGET, ORACLE)
    target = {"run": {"id": "r", "summary": {"run": {}, "results": []}}}
    oracle = {"run": {"id": "r", "summary": None}}
    assert pairing.learn(target, oracle, True) == []
    diffs = Comparison(never, pairing.known).run(target, pairing.to_target(oracle)).diffs
    assert [d.describe() for d in diffs] == ["run/summary: type: target {'run': {}, 'results': []}, oracle None"]
