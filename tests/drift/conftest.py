"""The drift catalogues' markers: `slow` checks (the ten-seed loop) run only when asked for,
with `-m slow` or `HARNESS_DRIFT_SLOW=1`."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: minutes of work; runs with -m slow or HARNESS_DRIFT_SLOW=1")


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("-m") or "") or os.environ.get("HARNESS_DRIFT_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or HARNESS_DRIFT_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
