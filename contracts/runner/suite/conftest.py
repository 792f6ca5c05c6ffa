"""Fixtures of the generic conformance checks: the run's target session."""

from __future__ import annotations

import pytest

from contracts.runner.session import current


@pytest.fixture(scope="session")
def contract_session():
    return current()
