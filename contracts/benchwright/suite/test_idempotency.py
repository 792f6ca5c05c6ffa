"""§3.7 idempotency, as a state machine: replays return the original result with
`Idempotent-Replayed: true`; the same key with another body or path is `409
idempotency_conflict`.

The writes are settings PUTs of values the account already holds (restored at the
end), so the machine is safe against a live account; a path conflict targets a key
outside the allowlist, so even a server that ignored the key would change nothing.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from contracts.benchwright.suite._support import body_of, code_of, cookie_header, expect, new_session, token_id
from contracts.benchwright.suite.conftest import require
from contracts.runner import unique
from contracts.runner.http import SuiteClient

KEY = "score_display_format"
PATH = f"/v1/settings/{KEY}"
OP = "PUT /v1/settings/{key}"
COPIES = 4


def test_idempotent_replay_and_conflict(client, policy):
    require(policy, "putSetting")
    settings = client.get("/v1/settings")
    # the token the run holds may read its settings (the read half of the writes it was opted in to)
    expect(
        settings.status_code == 200,
        "spec.status",
        "listSettings",
        f"GET /v1/settings answered {settings.status_code}",
        settings,
    )
    original = (settings.json().get("data") or {}).get(KEY, {}).get("value")

    class Idempotency(RuleBasedStateMachine):
        sent = Bundle("sent")

        @initialize()
        def start(self):
            self.values = ["fraction", "percent"] if original is None else [original]

        @rule(target=sent, choice=st.integers(0, 1))
        def first_request(self, choice):
            key = f"contract-{unique.uuid()}"
            body = {"value": self.values[choice % len(self.values)]}
            response = client.put(PATH, json=body, headers={"Idempotency-Key": key})
            expect(response.status_code == 200, "spec.status", OP, f"PUT answered {response.status_code}", response)
            expect(
                "Idempotent-Replayed" not in response.headers,
                "idempotency.replay",
                OP,
                "a first request was marked Idempotent-Replayed",
                response,
            )
            return key, body, response.status_code, response.content

        @rule(entry=sent)
        def replay(self, entry):
            key, body, status, content = entry
            response = client.put(PATH, json=body, headers={"Idempotency-Key": key})
            expect(
                response.headers.get("Idempotent-Replayed") == "true",
                "idempotency.replay",
                OP,
                f"the retry was not marked Idempotent-Replayed (status {response.status_code})",
                response,
            )
            expect(
                response.status_code == status and response.content == content,
                "idempotency.replay",
                OP,
                "the replay differs from the original response",
                response,
            )

        @rule(entry=sent)
        def other_body(self, entry):
            key, body, _, _ = entry
            response = client.put(
                PATH, json={"value": body["value"], "note": "different"}, headers={"Idempotency-Key": key}
            )
            expect(
                response.status_code == 409 and code_of(response) == "idempotency_conflict",
                "idempotency.conflict",
                OP,
                f"a different body answered {response.status_code} {code_of(response)}",
                response,
            )

        @rule(entry=sent)
        def other_path(self, entry):
            key, body, _, _ = entry
            response = client.put("/v1/settings/not_a_setting_key", json=body, headers={"Idempotency-Key": key})
            expect(
                response.status_code == 409 and code_of(response) == "idempotency_conflict",
                "idempotency.conflict",
                OP,
                f"a different path answered {response.status_code} {code_of(response)}",
                response,
            )

    try:
        run_state_machine_as_test(Idempotency)
    finally:
        if original is None:
            client.delete(PATH)
        else:
            client.put(PATH, json={"value": original})


def test_overlong_keys_are_refused(client, policy):
    require(policy, "putSetting")
    response = client.put(PATH, json={"value": "percent"}, headers={"Idempotency-Key": "k" * 257})
    expect(
        response.status_code == 400 and code_of(response) == "invalid_argument",
        "idempotency.length",
        OP,
        f"a 257-character key answered {response.status_code} {code_of(response)}",
        response,
    )


def test_launch_caveat_replays_a_failed_run(client, target, mock_only):
    """§3.7: a cached 202 replays even after the run errored."""
    key = {"Idempotency-Key": f"caveat-{unique.uuid()}"}
    first = client.post(
        "/v1/runs", json={"request": "Run MMLU", "model": {"model": "m", "provider": "openrouter"}}, headers=key
    )
    expect(first.status_code == 202, "spec.status", "POST /v1/runs", f"launch answered {first.status_code}", first)
    target.control_post(f"/runs/{first.json()['id']}/finish", {"status": "error"})
    again = client.post(
        "/v1/runs", json={"request": "Run MMLU", "model": {"model": "m", "provider": "openrouter"}}, headers=key
    )
    expect(
        again.json().get("id") == first.json()["id"] and again.headers.get("Idempotent-Replayed") == "true",
        "idempotency.replay",
        "POST /v1/runs",
        "the replay of an errored launch did not return the same run",
        again,
    )


def _put(client, value: str, key: str, **headers: str):
    return client.put(PATH, json={"value": value}, headers={"Idempotency-Key": key, **headers})


def _replayed(response) -> bool:
    return response.headers.get("Idempotent-Replayed") == "true"


def test_keys_are_scoped_to_the_caller(client, target, session_cookie, mock_only):
    """§3.7: keyed by (token_id, key); browser sessions share one cache keyed by user_id.
    Another token's use of a key executes as its own request: no replay, no conflict."""
    second = client.with_token(target.mint(["full"], user_id=target.tokens["user_id"], label="contract second"))
    key = f"scope-{unique.uuid()}"
    first = _put(client, "percent", key)
    expect(first.status_code == 200, "spec.status", OP, f"PUT answered {first.status_code}", first)
    other = _put(second, "percent", key)
    expect(
        other.status_code == 200 and not _replayed(other),
        "idempotency.scope",
        OP,
        f"another token's first use of a key answered {other.status_code}, replayed={_replayed(other)}",
        other,
    )
    key = f"scope-{unique.uuid()}"
    _put(client, "percent", key)
    other = _put(second, "fraction", key)
    expect(
        other.status_code == 200 and not _replayed(other),
        "idempotency.scope",
        OP,
        f"another token's key with another body answered {other.status_code} {code_of(other)}",
        other,
    )
    again = _put(client, "percent", key)
    expect(
        _replayed(again) and again.status_code == 200,
        "idempotency.scope",
        OP,
        "the first caller's retry no longer replays its own result",
        again,
    )
    session = client.with_token(None)
    key = f"scope-{unique.uuid()}"
    _put(client, "percent", key)
    browser = _put(session, "percent", key, **cookie_header(session_cookie))
    expect(
        browser.status_code == 200 and not _replayed(browser),
        "idempotency.scope",
        OP,
        f"a session's first use of a PAT's key answered {browser.status_code}, replayed={_replayed(browser)}",
        browser,
    )
    shared = _put(session, "percent", key, **cookie_header(new_session(target)))
    expect(
        _replayed(shared),
        "§3.7#7",
        OP,
        "a second session of the same user did not replay the first session's result (sessions share by user)",
        shared,
    )


def test_rotation_invalidates_the_tokens_keys(client, target, session_cookie, mock_only):
    """§3.7: "rotating a PAT invalidates any outstanding keys tied to it"; the rotated
    value's use of an old key executes afresh."""
    old = target.mint(["full"], user_id=target.tokens["user_id"], label="contract rotation key")
    key = f"rotate-{unique.uuid()}"
    first = _put(client.with_token(old), "percent", key)
    expect(first.status_code == 200, "spec.status", OP, f"PUT answered {first.status_code}", first)
    rotated = client.with_token(None).post(
        f"/v1/tokens/{token_id(client, old)}:rotate", headers=cookie_header(session_cookie)
    )
    new = (body_of(rotated) or {}).get("token")
    expect(
        rotated.status_code == 200 and isinstance(new, str),
        "spec.status",
        "POST /v1/tokens/{id}:rotate",
        f"rotate answered {rotated.status_code}",
        rotated,
    )
    after = _put(client.with_token(new), "percent", key)
    expect(
        after.status_code == 200 and not _replayed(after),
        "idempotency.rotation",
        OP,
        f"after rotating the token, its old key answered {after.status_code}, replayed={_replayed(after)}",
        after,
    )


def test_an_in_flight_retry_never_runs_twice(client, target, policy):
    """§3.7: "a retry that arrives while the first request is still in flight also 409s
    rather than risk running the handler twice". Concurrent copies of one create: one
    executes, every other is its replay or `409 idempotency_conflict`. The create is a
    new private catalog row, so it runs against a live account too. On the mock a latency
    fault holds the first copy in flight (`/__mock/faults`: spent after the key is taken),
    so the others must meet the key in flight: at least one answers 409."""
    require(policy, "createBenchmark")
    held = bool(target.control)
    if held:
        target.control_post("/faults", {"operation_id": "createBenchmark", "latency_ms": 400}).raise_for_status()
    try:
        answers = _concurrent_creates(target, policy)
    finally:
        if held:
            target.control_delete("/faults").raise_for_status()
    operation = "POST /v1/benchmarks"
    executed = [r for r in answers if 200 <= r.status_code < 300 and not _replayed(r)]
    expect(
        len(executed) == 1,
        "idempotency.in_flight",
        operation,
        f"{len(executed)} of {COPIES} concurrent copies executed (statuses {[r.status_code for r in answers]})",
        (executed or answers)[-1],
    )
    if held:
        expect(
            any(r.status_code == 409 for r in answers),
            "idempotency.in_flight",
            operation,
            f"with the first copy held in flight, no copy was refused: {[r.status_code for r in answers]}",
            answers[-1],
        )
    for response in answers:
        if response is executed[0]:
            continue
        expect(
            (_replayed(response) and response.content == executed[0].content)
            or (response.status_code == 409 and code_of(response) == "idempotency_conflict"),
            "idempotency.in_flight",
            operation,
            f"a concurrent copy answered {response.status_code} {code_of(response)},"
            f" replayed={_replayed(response)}: neither the replay nor 409 idempotency_conflict",
            response,
        )


def _concurrent_creates(target, policy) -> list:
    key = f"inflight-{unique.uuid()}"
    body = {"name": f"contract in-flight {unique.hex(12)}", "description": "idempotency check"}
    barrier = threading.Barrier(COPIES)

    def send(_):
        own = SuiteClient(target.base_url, policy, target.credential, pacer=target.pacer)
        try:
            barrier.wait(timeout=10)
            return own.post("/v1/benchmarks", json=body, headers={"Idempotency-Key": key})
        finally:
            own.close()

    with ThreadPoolExecutor(COPIES) as pool:
        return list(pool.map(send, range(COPIES)))
