"""The pytest plugin (entry point `pytest11`): one fixture per API, each a `ServedMock`.

    def test_lists_runs(benchwright_mock):
        response = httpx.get(f"{benchwright_mock.url}/v1/runs",
                             headers={"Authorization": f"Bearer {benchwright_mock.credential}"})
        assert response.status_code == 200

`benchwright_mock`, `benchsdk_mock`, `benchgen_mock`, `bench_mock`: the API's mock, served once per
test session (the first time a test asks for it) on a free loopback port and reset before each
test that uses it (`ServedMock.reset`). A session that asks for none starts nothing: this module
imports nothing of the mocks until a fixture is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .bench import BenchControl
    from .benchgen import BenchgenControl
    from .benchsdk import BenchsdkControl
    from .benchwright import BenchwrightControl
    from .served import ServedMock


class Mocks:
    """The mocks of one test session, each started the first time a test asks for it."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.served: dict[str, ServedMock[Any]] = {}

    def fresh(self, api: str) -> ServedMock[Any]:
        if api not in self.served:
            from .served import serve

            self.served[api] = self.stack.enter_context(serve(api))
        mock = self.served[api]
        mock.reset()
        return mock

    def close(self) -> None:
        self.stack.close()


@pytest.fixture(scope="session")
def harness_mocks() -> Iterator[Mocks]:
    """Every mock this session started; stopped when it ends."""
    mocks = Mocks()
    yield mocks
    mocks.close()


@pytest.fixture
def benchwright_mock(harness_mocks: Mocks) -> ServedMock[BenchwrightControl]:
    """Benchwright (`/v1`), reset for this test; `credentials`: `BW_PAT`, a full-scope token of the seeded user."""
    return harness_mocks.fresh("benchwright")


@pytest.fixture
def benchsdk_mock(harness_mocks: Mocks) -> ServedMock[BenchsdkControl]:
    """The benchsdk Benchmarks Platform (`/api/v1` under `url`), reset for this test; `credentials`:
    `BENCHMARKS_PLATFORM_API_KEY`, an API key of the seeded organization `acme`."""
    return harness_mocks.fresh("benchsdk")


@pytest.fixture
def benchgen_mock(harness_mocks: Mocks) -> ServedMock[BenchgenControl]:
    """BenchGen, reset for this test; `credentials`: `BENCHGEN_TOKEN` (`benchmark:read benchmark:run`)."""
    return harness_mocks.fresh("benchgen")


@pytest.fixture
def bench_mock(harness_mocks: Mocks) -> ServedMock[BenchControl]:
    """The Bench platform, reset for this test; `credentials`: `BENCH_API_KEY` (an API key of the growth
    account), `BENCH_OAUTH_TOKEN` (its account-class OAuth credential) and `BENCH_SDK_KEY` (an API key of the
    same account spelt `bench_sk_...`, the form the tracing client `bench_sdk.Bench` requires)."""
    return harness_mocks.fresh("bench")
