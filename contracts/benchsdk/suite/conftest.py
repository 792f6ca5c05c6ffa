"""The target of the benchsdk suite: the runner's session (or a stand-alone one, see `_runner`)."""

from __future__ import annotations

import pytest

from .._runner import KEY_ENV
from .._runner import target as resolve_target
from ._client import Platform


@pytest.fixture(scope="session")
def target():
    return resolve_target()


@pytest.fixture(scope="session")
def http(target):
    client = target.client()
    yield client
    client.close()


@pytest.fixture(scope="session")
def platform(target, http):
    return Platform(http, target.base_url, target.env[KEY_ENV])


def pytest_configure(config):
    """Run directly (not by the runner), use the runner's `quick` profile all the same."""
    import os

    from hypothesis import settings

    import contracts.runner.profiles  # noqa: F401  (registers quick/full)

    if os.environ.get("HARNESS_CONTRACT_API") != "benchsdk":
        settings.load_profile(os.environ.get("HARNESS_CONTRACT_PROFILE", "quick"))
