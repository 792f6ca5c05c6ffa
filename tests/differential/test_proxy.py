"""The proxy with an oracle (`make proxy ... ORACLE=1`): the published `trybench-sdk` client's own
tests (tests/bench/test_sdk.py, the reference's examples run as written) go through the validating
proxy in front of a drifted Bench mock, and the drift log names the drift as behavioural drift, though
neither the SDK's tests nor the proxy's spec checks notice it: the allowance reports a limit the plan
does not have (C-47: the allowance of the caller's plan)."""

from __future__ import annotations

import inspect

import orjson
import pytest
from bench_sdk import BenchPlatform

from contracts.proxy.app import ProxyApp
from contracts.runner.target import LiveServer
from harness_fixtures.bench import BenchControl
from harness_fixtures.served import ServedMock
from mock_server.app import create_app
from tests.bench import test_sdk
from tests.bench.conftest import KEY
from tests.proxy.conftest import ProxyServer
from tests.proxy.drifted import Drifted

# the SDK's tests that need only a client and the control surface (not the in-process app)
SDK_TESTS = [
    test_sdk.test_read_systems_and_results,
    test_sdk.test_upload_a_dataset,
    test_sdk.test_save_understanding_and_run_a_bench,
    test_sdk.test_a_stale_write_is_context_changed,
    test_sdk.test_add_test_cases_and_criteria,
    test_sdk.test_publish_real_app_results,
]


def raised_limit(scope, _request, status, headers, body):
    if scope["path"] == "/api/evaluation-allowance" and status == 200:
        answer = orjson.loads(body)
        answer["allowance"]["limit"] += 50
        answer["allowance"]["remaining"] += 50
        return status, headers, orjson.dumps(answer)
    return None


def run_sdk_tests(url: str) -> None:
    """The SDK tests as they run on the `bench_mock` fixture, with the mock (its control surface too) behind
    the proxy at `url`."""
    mock = ServedMock("bench", url, "BENCH_API_BASE_URL", {"BENCH_API_KEY": KEY}, BenchControl(url))
    for test in SDK_TESTS:
        mock.control.reset()
        arguments = {"platform": BenchPlatform(KEY, endpoint=url), "bench_mock": mock}
        test(**{name: arguments[name] for name in inspect.signature(test).parameters})


@pytest.mark.parametrize("drifted", [False, True], ids=["clean", "drifted"])
def test_sdk_tests_through_the_proxy_with_an_oracle(tmp_path, drifted):
    app = create_app(api="bench")
    with LiveServer(Drifted(app, answer=raised_limit) if drifted else app) as upstream:
        proxy = ProxyApp("bench", upstream.url, log=tmp_path / "drift", oracle=True)
        with ProxyServer(proxy) as server:
            run_sdk_tests(server.url)  # the SDK's own assertions pass either way
        behavioural = [
            (e.label, v.message) for e in proxy.exchanges for v in e.violations if "behavioural" in v.message
        ]
    log = (tmp_path / "drift.md").read_text(encoding="utf-8")
    if not drifted:
        assert behavioural == [], behavioural
        return
    assert {label for label, _ in behavioural} == {"GET /api/evaluation-allowance"}, behavioural
    assert any("allowance/limit" in message for _, message in behavioural), behavioural
    assert "behavioural drift (body): allowance/limit: value: target 200, oracle 150" in log
