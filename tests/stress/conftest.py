"""The short stress suite (`tests/stress`): each API's mock in its own process, driven once
per module by `mock_server.stress` at CI size; the tests assert the properties of the issue's
items 1-6, not timings."""

from __future__ import annotations

import pytest

from mock_server.stress import concurrency, disclosure, fuzz, hostile, streams
from mock_server.stress.process import MockProcess
from mock_server.stress.targets import TARGETS, available

APIS = available()
KNOWN = {  # hostile cases with their own, stricter test (test_defects.py)
    "presigned upload: 100 MB declared",
}
SSE_OPERATIONS = ("streamRunEvents", "streamOperatorEvents")  # schemathesis ST108: test_defects.py


def api_param():
    return pytest.mark.parametrize("api", APIS)


class Run:
    """One mock process and everything the short suite did to it, computed on first use."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.mock = MockProcess(api)
        self.said: list[str] = []
        self.secrets = disclosure.plant(self.mock)
        self._fuzz = self._hostile = self._races = self._streams = None

    @property
    def fuzz(self) -> fuzz.FuzzResult:
        if self._fuzz is None:
            exclude = SSE_OPERATIONS if self.api == "benchwright" else ()
            self._fuzz = fuzz.run(self.mock, 150, exclude=exclude, phases="examples,fuzzing")
            self.said.extend(self._fuzz.bodies)
        return self._fuzz

    @property
    def hostile(self):
        if self._hostile is None:
            target = TARGETS[self.api]
            outcomes, memory = hostile.run(self.mock, target, skip=KNOWN)
            self.said.extend(o.body.decode("latin-1") for o in outcomes)
            self._hostile = (outcomes, memory)
        return self._hostile

    @property
    def races(self):
        if self._races is None:
            self._races = concurrency.run(self.mock)
        return self._races

    @property
    def streams(self):
        if self._streams is None:
            self._streams = streams.run(self.mock, 50, 2)
        return self._streams


_RUNS: dict[str, Run] = {}


@pytest.fixture(scope="session")
def runs():
    yield _RUNS
    for run in _RUNS.values():
        run.mock.close()


@pytest.fixture
def stress(runs, api) -> Run:
    if api not in runs:
        runs[api] = Run(api)
    return runs[api]
