"""Differential mode reaches every client the suites use: `Session.client()` (benchsdk, BenchGen, Bench)
and `SuiteClient` (Benchwright) route through the oracle when `HARNESS_CONTRACT_DIFFERENTIAL=1`
(`harness-contract --differential`, `make contract DIFF=1`), and the drift report carries the
"Behavioural drift" section, by claim and by operation, with both answers and a redacted curl line."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

import httpx
import pytest

from contracts.runner import cli, differential, session
from contracts.runner.differential.transport import DifferentialTransport
from contracts.runner.http import SuiteClient
from contracts.runner.report import DriftReport
from contracts.runner.safety import RunPolicy

KEY = {"Authorization": "Bearer bench_dev_key_growth"}


@pytest.fixture
def differential_mode(monkeypatch):
    monkeypatch.setenv(differential.ENV, "1")
    monkeypatch.setenv("HARNESS_CONTRACT_API", "bench")
    monkeypatch.setattr(session, "_SESSIONS", {})
    monkeypatch.setattr(differential, "_ENGINES", {})
    yield
    differential.finish()
    for running in session._SESSIONS.values():
        running.close()


def test_the_flag_sets_the_mode(monkeypatch):
    monkeypatch.delenv(differential.ENV, raising=False)
    args = cli._parser("harness-contract").parse_args(["--api", "bench", "--differential"])
    assert cli._environment(args, "bench")[differential.ENV] == "1"
    plain = cli._parser("harness-contract").parse_args(["--api", "bench"])
    assert differential.ENV not in cli._environment(plain, "bench")


def test_session_client_compares_with_the_oracle_and_the_report_shows_it(differential_mode, tmp_path):
    """C-36: a context write moves the version by one. Written to the target behind the suite's back, the
    context the suite then reads disagrees with the oracle's: behavioural drift under the operation's claims."""
    target = session.current("bench")
    direct = target.base_url
    with target.client() as http:
        assert isinstance(http._transport, DifferentialTransport)
        assert http.get("/api/ai-systems/123/context", headers=KEY).status_code == 200
        context = httpx.get(f"{direct}/api/ai-systems/123/context", headers=KEY).json()["context"]
        source = {
            "id": "manual-out-of-band",
            "kind": "user",
            "category": "rules_constraints",
            "scope": "system",
            "text": "x",
        }
        written = httpx.put(
            f"{direct}/api/ai-systems/123/context/sources",
            headers=KEY,
            json={"expected_version": context["version"], "source": source},
        )
        assert written.status_code == 200, written.text
        assert http.get("/api/ai-systems/123/context", headers=KEY).status_code == 200
    engine = differential._ENGINES[("bench", target.base_url)]
    assert engine.ledger.compared == 2
    found = [d for d in engine.ledger.items() if d.operation == "GET /api/ai-systems/{id}/context"]
    assert any("context/version" in d.detail for d in found), [d.line() for d in found]
    report = DriftReport(tmp_path / "drift-report.md", "bench").render()
    section = report[report.index("## Behavioural drift") :]
    assert "### By claim" in section and "### By operation" in section
    assert "| target | oracle |" in section and "curl -sS -X GET" in section
    assert "bench_dev_key_growth" not in section  # credentials redacted


def test_suite_client_and_the_front_route_through_the_oracle(differential_mode):
    """`SuiteClient` on the target's URL sends through `DifferentialTransport`; behind the HTTP front
    (Benchwright's target, `differential.through_front`) it sends plainly to the front, which sees it."""
    target = session.current("bench")
    front = differential.through_front("bench", target.base_url)
    engine = differential._ENGINES[("bench", target.base_url)]
    client = SuiteClient(target.base_url, RunPolicy(live=False), token="bench_dev_key_growth")
    through_front = SuiteClient(front, RunPolicy(live=False), token="bench_dev_key_growth")
    try:
        assert isinstance(client.http._transport, DifferentialTransport)
        assert through_front.http._transport.front == front  # the front sees what is sent to it
        assert client.get("/api/billing/plans").status_code == 200
        assert through_front.get("/api/billing/plans").status_code == 200
    finally:
        client.close()
        through_front.close()
    assert engine.ledger.compared == 2


def test_an_answer_through_the_front_carries_the_targets_one_date(differential_mode):
    """The front relays the target's `Date` and adds none of its own: two `Date` headers read as one
    (`Wed, …, Wed, …`) are no date, and Benchwright's expiry check reads the server's `Date` (§2.4#6)."""
    target = session.current("bench")
    front = differential.through_front("bench", target.base_url)
    answer = httpx.get(f"{front}/api/billing/plans", headers={"Authorization": "Bearer bench_dev_key_growth"})
    assert answer.status_code == 200
    assert len(answer.headers.get_list("date")) == 1
    assert parsedate_to_datetime(answer.headers["date"]).tzinfo is not None


def test_schemathesis_requests_are_compared_with_the_oracle(differential_mode):
    """The generic conformance sends with schemathesis' `case.call`, which in differential mode gets a
    `requests.Session` through the oracle (`differential.call_kwargs`): C-36, a context written behind the
    suite's back is then seen as drift by a request schemathesis alone sent."""
    import schemathesis

    from mock_server.apis import bundle

    target = session.current("bench")
    extra = differential.call_kwargs(target)
    assert set(extra) == {"session"}
    operation = schemathesis.openapi.from_dict(bundle("bench"))["/api/ai-systems/{id}/context"]["GET"]
    case = operation.Case(path_parameters={"id": "123"})
    assert case.call(base_url=target.base_url, headers=KEY, **extra).status_code == 200
    context = httpx.get(f"{target.base_url}/api/ai-systems/123/context", headers=KEY).json()["context"]
    source = {"id": "manual-schemathesis", "kind": "user", "category": "rules_constraints", "scope": "system"}
    source["text"] = "x"
    written = httpx.put(
        f"{target.base_url}/api/ai-systems/123/context/sources",
        headers=KEY,
        json={"expected_version": context["version"], "source": source},
    )
    assert written.status_code == 200, written.text
    assert case.call(base_url=target.base_url, headers=KEY, **extra).status_code == 200
    engine = differential._ENGINES[("bench", target.base_url)]
    assert engine.ledger.compared == 2
    found = [d for d in engine.ledger.items() if d.operation == "GET /api/ai-systems/{id}/context"]
    assert any("context/version" in d.detail for d in found), [d.line() for d in found]


def test_without_the_mode_schemathesis_sends_as_it_always_did(monkeypatch):
    monkeypatch.delenv(differential.ENV, raising=False)
    assert differential.call_kwargs(object()) == {}
