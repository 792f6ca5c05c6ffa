"""The reference's examples, run as written with the real `bench_sdk.BenchPlatform` against the mock served
by the harness' own pytest plugin: the `bench_mock` fixture, a uvicorn server on 127.0.0.1 reset for each
test (only the endpoint differs; the sample ids 123 and 456 are seeded fixtures). A client author's suite
uses the same fixture (docs/pytest-plugin.md).

Sections are those of the reference (docs/reference/bench-platform-clients.md); claims are C-nn.
"""

from __future__ import annotations

import json

import pytest
from bench_sdk import BenchPlatform, PlatformError

from harness_fixtures import BenchControl, ServedMock
from mock_server.bench.spec_catalog import compare

from .conftest import KEY, OAUTH

Mock = ServedMock[BenchControl]

pytestmark = pytest.mark.http

CSV = b"question,expected,actual\nCan I return shoes?,approve,approve\nGift card?,deny,approve\n"


@pytest.fixture
def platform(bench_mock: Mock) -> BenchPlatform:
    assert bench_mock.credentials["BENCH_API_KEY"] == KEY
    return BenchPlatform(KEY, endpoint=bench_mock.url)


def documented(e: PlatformError, status: int, code: str) -> dict:
    """C-53: status, code, message and reference come from the server's error object, kept whole as details."""
    assert (e.status, e.code) == (status, code), (e.status, e.code, e.details)
    assert str(e) == e.details["message"] and e.details["message"]
    assert e.reference == e.details["reference"] and e.reference.startswith("ref_")
    assert e.details["code"] == code
    assert e.retryable is (status == 429 or status >= 500)  # C-57: none of these is retryable
    return e.details


def test_read_systems_and_results(platform):
    """§Read systems and results (C-17, C-24, C-25)."""
    capabilities = platform.call("capabilities")
    systems = platform.call("list_systems")
    system = platform.call("get_system", path={"id": 123})
    history = platform.call("list_evaluations")
    assert capabilities["credential"]["kind"] == "api_key" and capabilities["credential"]["account_authority"] is False
    assert capabilities["links"]["operations_url"].endswith("/api/headless/operations")
    assert [s["id"] for s in systems["items"]] == [123]
    assert {c["id"] for c in system["system"]["components"]} == {456, 457}
    assert platform.call("get_system", path={"id": "123"}) == system  # C-24
    assert [r["id"] for r in history["items"]] == [789]


def test_list_operations_is_the_pinned_catalog(platform):
    """C-08, C-09: the network catalog equals the SDK's local one (order aside; `body: null` is no body)."""
    served = platform.call("list_operations")
    assert compare(platform.operations(), served) == {"missing": [], "extra": [], "changed": []}
    assert len(served["operations"]) == len(platform.operations()["operations"])


def test_upload_a_dataset(platform):
    """§Upload a dataset (C-26–C-29): preview stores nothing; upload with consent and the mapping stores it."""
    preview = platform.call(
        "preview_dataset",
        path={"id": 123},
        form={"mode": "recorded_outputs"},
        files=[{"name": "cases.csv", "content": CSV}],
    )
    assert preview["preview"]["suggested_mapping"] == {"input": "question", "expected": "expected", "actual": "actual"}
    assert preview["preview"]["mapping_error"] is None
    assert len(platform.call("list_datasets", path={"id": 123})["items"]) == 1
    dataset = platform.call(
        "upload_dataset",
        path={"id": 123},
        form={
            "mode": "recorded_outputs",
            "content_consent": True,
            "mapping": {"input": "question", "expected": "expected", "actual": "actual"},
        },
        files=[{"name": "cases.csv", "content": CSV}],
    )
    assert dataset["dataset"]["row_count"] == 2 and dataset["dataset"]["bytes"] == len(CSV)
    assert len(platform.call("list_datasets", path={"id": 123})["items"]) == 2


def test_upload_without_consent_is_refused(platform):
    """C-27: no content_consent, nothing stored."""
    with pytest.raises(PlatformError) as err:
        platform.call(
            "upload_dataset",
            path={"id": 123},
            form={
                "mode": "recorded_outputs",
                "mapping": {"input": "question", "expected": "expected", "actual": "actual"},
            },
            files=[{"name": "cases.csv", "content": CSV}],
        )
    documented(err.value, 400, "content_consent_required")
    assert len(platform.call("list_datasets", path={"id": 123})["items"]) == 1


def test_save_understanding_and_run_a_bench(platform, bench_mock: Mock):
    """§Save understanding and run a bench (C-33–C-36, C-47–C-50)."""
    current = platform.call("get_system_context", path={"id": 123})
    platform.call(
        "put_context_source",
        path={"id": 123},
        body={
            "expected_version": current["context"]["version"],
            "source": {
                "id": "manual-refund-policy",
                "kind": "user",
                "category": "rules_constraints",
                "scope": "system",
                "text": "Refund only within 30 days of purchase.",
            },
        },
    )
    allowance = platform.call("evaluation_allowance")
    started = platform.call("start_system_evaluation", body={"ai_system_id": 123})
    run_id = started["runs"][0]["id"]
    assert platform.call("evaluation_allowance")["allowance"]["used"] == allowance["allowance"]["used"] + 1
    assert platform.call("get_evaluation", path={"id": run_id})["run"]["status"] == "queued"
    bench_mock.control.advance_clock(60)
    assert platform.call("get_evaluation", path={"id": run_id})["run"]["status"] == "completed"
    result = platform.call("get_evaluation_artifacts", path={"id": run_id})
    assert result["artifacts"]["context_version"] == current["context"]["version"] + 1
    assert "manual-refund-policy" in {e["id"] for e in result["artifacts"]["evidence"]}


def test_a_stale_write_is_context_changed(platform):
    """C-35, C-36: replaying a write fails with status, code, message, reference and details."""
    version = platform.call("get_system_context", path={"id": 123})["context"]["version"]
    body = {
        "expected_version": version,
        "source": {"id": "manual-x", "kind": "user", "category": "rules_constraints", "scope": "system", "text": "x"},
    }
    platform.call("put_context_source", path={"id": 123}, body=body)
    with pytest.raises(PlatformError) as err:
        platform.call("put_context_source", path={"id": 123}, body=body)
    assert documented(err.value, 409, "context_changed")["current_version"] == version + 1


def test_add_test_cases_and_criteria(platform):
    """§Add test cases and criteria (C-37–C-43): the case and criterion examples, edit, pause, delete."""
    context = platform.call("get_system_context", path={"id": 123})
    case = {
        "id": "manual-library-refund",
        "title": "Refund within 30 days",
        "kind": "user",
        "category": "examples_feedback",
        "scope": "case",
        "case_id": "manual-library-refund",
        "text": json.dumps(
            {
                "type": "case",
                "component_id": 456,
                "enabled": True,
                "input": "Can I refund an order delivered 12 days ago?",
                "expected": {"decision": "approve"},
                "resolved_prompt": "Approve refunds within 30 days. Return a JSON decision.",
            }
        ),
    }
    v1 = platform.call(
        "put_context_source", path={"id": 123}, body={"expected_version": context["context"]["version"], "source": case}
    )["context"]["version"]
    criterion = {
        "id": "manual-library-tone",
        "kind": "user",
        "category": "rules_constraints",
        "scope": "system",
        "text": json.dumps(
            {
                "type": "criterion",
                "component_id": 456,
                "enabled": True,
                "statement": "Polite",
                "pass_condition": "Apologises",
                "fail_condition": "Blunt",
            }
        ),
    }
    v2 = platform.call("put_context_source", path={"id": 123}, body={"expected_version": v1, "source": criterion})[
        "context"
    ]["version"]
    paused = {**case, "text": case["text"].replace('"enabled": true', '"enabled": false')}
    v3 = platform.call("put_context_source", path={"id": 123}, body={"expected_version": v2, "source": paused})[
        "context"
    ]["version"]
    library = {e["source_id"]: e for e in platform.call("list_test_library", path={"id": 123})["items"]}
    assert (
        library["manual-library-refund"]["enabled"] is False and library["manual-library-tone"]["type"] == "criterion"
    )
    assert library["manual-library-refund"]["entry"]["expected"] == {"decision": "approve"}  # C-44
    deleted = platform.call("delete_context_source", path={"id": 123, "sourceID": "manual-library-refund"})
    assert deleted["context"]["version"] == v3 + 1


def test_publish_real_app_results(platform):
    """§Publish real app results (C-51, C-52): stored and listed; the allowance does not move."""
    before = platform.call("evaluation_allowance")
    report = {
        "schema_version": 1,
        "execution_mode": "application_runtime",
        "evidence_origin": "sdk_client_reported",
        "environment": "staging",
        "cases": [{"id": "c1", "status": "passed"}],
        "summary": {"status": "completed", "score": 100, "passed": 1, "failed": 0, "errors": 0, "unscored": 0},
    }
    published = platform.call("publish_runtime_evaluation", path={"id": 123}, body=report)
    listed = platform.call("list_runtime_evaluations", path={"id": 123})
    assert listed["items"][0]["id"] == published["runtime_evaluation"]["id"]
    assert listed["items"][0]["report"] == report
    assert platform.call("evaluation_allowance") == before
    assert platform.call("list_evaluations", query={"include_active": True})["items"][0]["id"] == 789


def test_plan_limit_error_shows_the_upgrade_link(bench_mock: Mock):
    """§Errors (C-53, C-54, C-66): set_model_providers on Free carries the four plan-limit fields."""
    platform = BenchPlatform("bench_dev_key_free", endpoint=bench_mock.url)
    with pytest.raises(PlatformError) as err:
        platform.call("set_model_providers", body={"providers": ["openai"]})
    details = documented(err.value, 402, "plan_limit")
    assert details["upgrade_url"].startswith("https://") and details["required_plan"] == "growth"
    assert {"pricing_url", "upgrade_url", "billing_url", "payment_confirmation_required"} <= set(details)
    growth = BenchPlatform(KEY, endpoint=bench_mock.url)
    assert growth.call("set_model_providers", body={"providers": ["openai"]}) == {"providers": ["openai"]}


def test_key_cap_error_carries_manage_key_url(bench_mock: Mock):
    """C-56: the capped key's second start fails with manage_key_url and no upgrade fields."""
    platform = BenchPlatform("bench_dev_key_growth_capped", endpoint=bench_mock.url)
    platform.call("start_system_evaluation", body={"ai_system_id": 123})
    with pytest.raises(PlatformError) as err:
        platform.call("start_system_evaluation", body={"ai_system_id": 123})
    details = documented(err.value, 403, "api_key_cap_reached")
    assert "manage_key_url" in details and not {"upgrade_url", "pricing_url", "billing_url"} & set(details)


def test_exhausted_allowance_is_a_plan_limit(bench_mock: Mock):
    """C-49, C-54: an account with allowance 0 cannot start."""
    account = bench_mock.control.create_account("builder", allowance=0)
    token = bench_mock.control.mint_token("oauth", account_id=account.id).token
    platform = BenchPlatform(token, endpoint=bench_mock.url)
    system = platform.call("create_system", body={"name": "Empty"})["system"]
    assert platform.call("start_system_evaluation", body={"ai_system_id": system["id"]}) == {"runs": []}  # C-48
    assert platform.call("evaluation_allowance")["allowance"]["used"] == 0


def test_account_operations_refuse_api_keys(bench_mock: Mock):
    """C-18, C-19: an API key cannot list or mint keys; the OAuth credential can."""
    with pytest.raises(PlatformError) as err:
        BenchPlatform(KEY, endpoint=bench_mock.url).call("create_api_key", body={"name": "ci"})
    documented(err.value, 403, "account_authorization_required")
    made = BenchPlatform(OAUTH, endpoint=bench_mock.url).call(
        "create_api_key", body={"name": "ci", "max_evaluations_per_month": 2}
    )
    assert made["key"].startswith("bench_dev_key_")
    assert (
        BenchPlatform(made["key"], endpoint=bench_mock.url).call("capabilities")["api_key_limits"][
            "max_evaluations_per_month"
        ]
        == 2
    )


def test_exchange_oauth_token_checks_the_audience(bench_mock: Mock):
    """C-20, C-21, C-22: public exchange; the wrong audience is refused; an AuthKit token is no bearer."""
    anonymous = BenchPlatform(endpoint=bench_mock.url)
    with pytest.raises(PlatformError) as err:
        anonymous.call("exchange_oauth_token", body={"token": "authkit_growth_other_audience"})
    documented(err.value, 401, "invalid_audience")
    cred = anonymous.call("exchange_oauth_token", body={"token": "authkit_growth_mcp"})["credential"]
    assert BenchPlatform(cred, endpoint=bench_mock.url).call("list_api_keys")["items"]
    with pytest.raises(PlatformError) as err:
        BenchPlatform("authkit_growth_mcp", endpoint=bench_mock.url).call("list_systems")
    documented(err.value, 401, "invalid_credential")


def test_streams_return_events_and_raise_on_a_terminal_error(platform):
    """C-61, C-62: NDJSON stage streams; a terminal error event on HTTP 200 raises PlatformError(200, …)."""
    events = platform.call(
        "generate_eval_benchmark", path={"owner": "acme", "repo": "support-bot"}, query={"branch": "main"}
    )
    assert events[-1]["type"] == "result" and events[0]["type"] == "progress"
    with pytest.raises(PlatformError) as err:
        platform.call("run_baseline", path={"owner": "acme", "repo": "support-bot"}, query={"branch": "main"}, body={})
    assert (err.value.status, err.value.code) == (200, "benchmark_not_reviewed")


def test_cancellation(platform):
    """C-63 (background runs and polling): a queued run can be canceled once; the second cancel is refused."""
    run_id = platform.call("start_system_evaluation", body={"ai_system_id": 123})["runs"][0]["id"]
    assert platform.call("cancel_evaluation", path={"id": run_id})["run"]["status"] == "canceled"
    with pytest.raises(PlatformError) as err:
        platform.call("cancel_evaluation", path={"id": run_id})
    documented(err.value, 409, "evaluation_finished")


def test_a_run_canceled_while_queued_never_started(platform, bench_mock: Mock):
    """C-50 (get_evaluation polled): a run canceled while queued reads canceled with no started_at, and keeps
    none as time passes; one canceled while running keeps the instant it started (queued 5 s, x-simulation)."""
    queued = platform.call("start_system_evaluation", body={"ai_system_id": 123})["runs"][0]["id"]
    canceled = platform.call("cancel_evaluation", path={"id": queued})["run"]
    assert (canceled["status"], canceled["started_at"], canceled["finished_at"] is not None) == ("canceled", None, True)
    bench_mock.control.advance_clock(120)
    assert platform.call("get_evaluation", path={"id": queued})["run"]["started_at"] is None
    running = platform.call("start_system_evaluation", body={"ai_system_id": 123})["runs"][0]["id"]
    bench_mock.control.advance_clock(10)
    started = platform.call("get_evaluation", path={"id": running})["run"]
    assert started["status"] == "running" and started["started_at"] is not None
    stopped = platform.call("cancel_evaluation", path={"id": running})["run"]
    assert (stopped["status"], stopped["started_at"]) == ("canceled", started["started_at"])


def test_every_call_is_one_request(platform, bench_mock: Mock):
    """C-04, C-05: a failing write is sent once, never retried (the journal counts it)."""

    def puts() -> list[dict]:
        return [e for e in bench_mock.control.journal() if e["operation_id"] == "put_context_source"]

    before = len(puts())
    with pytest.raises(PlatformError):
        platform.call(
            "put_context_source",
            path={"id": 123},
            body={
                "expected_version": 0,
                "source": {"id": "manual-x", "kind": "user", "category": "c", "scope": "system", "text": "x"},
            },
        )
    entries = puts()
    assert len(entries) - before == 1
    assert all(
        v == "[redacted]" for e in entries for k, v in e["headers"].items() if k.lower() == "authorization"
    )  # C-67


def test_credential_and_repository_errors(bench_mock: Mock):
    """C-57: credential and repository errors are documented, not retryable, and need a configuration change."""
    with pytest.raises(PlatformError) as err:
        BenchPlatform("bench_dev_key_revoked", endpoint=bench_mock.url).call("list_systems")
    documented(err.value, 401, "credential_revoked")
    with pytest.raises(PlatformError) as err:
        BenchPlatform("bench_live_key_growth", endpoint=bench_mock.url).call("list_systems")
    documented(err.value, 401, "wrong_environment")  # C-02
    capped = BenchPlatform("bench_dev_key_growth_capped", endpoint=bench_mock.url)
    with pytest.raises(PlatformError) as err:
        capped.call("list_branches", path={"owner": "acme", "repo": "checkout"})
    documented(err.value, 403, "repository_not_allowed")
    assert capped.call("list_branches", path={"owner": "acme", "repo": "support-bot"})["items"][0]["name"] == "main"


def test_oversized_uploads_never_leave_the_client(platform, bench_mock: Mock):
    """C-31: the SDK refuses a dataset over the catalog's limit before sending (the server's: test_handlers)."""

    def previews() -> int:
        entries = bench_mock.control.journal()
        return sum(e["operation_id"] == "preview_dataset" for e in entries)

    before = previews()
    with pytest.raises(ValueError, match="file-size limit"):
        platform.call(
            "preview_dataset",
            path={"id": 123},
            form={"mode": "replay"},
            files=[{"name": "cases.csv", "content": b"x" * (4194304 + 1)}],
        )
    assert previews() == before


def test_stream_error_message_is_the_events(platform):
    """C-62: the client raises PlatformError(200, code, message) from the terminal error event."""
    with pytest.raises(PlatformError) as err:
        platform.call("generate_eval_benchmark", path={"owner": "acme", "repo": "checkout"}, query={"branch": "main"})
    assert (err.value.status, err.value.code) == (200, "scan_required") and "Scan acme/checkout@main" in str(err.value)
