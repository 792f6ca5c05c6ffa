"""Fixtures of the generic conformance checks: the run's target session."""

from __future__ import annotations

import pytest

from contracts.runner.session import current


@pytest.fixture(scope="session")
def contract_session():
    return current()


def pytest_configure(config):
    # also registered by the runner's report plugin; here for a suite run under plain pytest
    config.addinivalue_line("markers", "claim(*ids): the reference claims a check covers (coverage report)")
