"""§3.7 idempotency, as a state machine: replays return the original result with
`Idempotent-Replayed: true`; the same key with another body or path is `409
idempotency_conflict`.

The writes are settings PUTs of values the account already holds (restored at the
end), so the machine is safe against a live account; a path conflict targets a key
outside the allowlist, so even a server that ignored the key would change nothing.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from contracts.benchwright.suite._support import code_of, expect
from contracts.benchwright.suite.conftest import require

KEY = "score_display_format"
PATH = f"/v1/settings/{KEY}"
OP = "PUT /v1/settings/{key}"


def test_idempotent_replay_and_conflict(client, policy):
    require(policy, "putSetting")
    settings = client.get("/v1/settings")
    if settings.status_code != 200:
        pytest.skip(f"GET /v1/settings answered {settings.status_code}")
    original = (settings.json().get("data") or {}).get(KEY, {}).get("value")

    class Idempotency(RuleBasedStateMachine):
        sent = Bundle("sent")

        @initialize()
        def start(self):
            self.values = ["fraction", "percent"] if original is None else [original]

        @rule(target=sent, choice=st.integers(0, 1))
        def first_request(self, choice):
            key = f"contract-{uuid.uuid4()}"
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
    key = {"Idempotency-Key": f"caveat-{uuid.uuid4()}"}
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
