"""The harness' own test tiers (docs/testing.md).

Per commit, `make test` runs every test not marked `slow`, in about ten minutes on two cores.
The nightly workflow runs `make test-nightly`: the same tests plus the `slow` ones (the drift
catalogues at the full profile, the target-mode matrix at the full profile, every seed of the
catalogue checks, the differential catalogue). A `slow` test is deselected, not skipped: a skip
says a check could not run, and these can; they run elsewhere. `-m slow`, `HARNESS_SLOW=1`
(or the older `HARNESS_DRIFT_SLOW=1`) select them."""

from __future__ import annotations

import os

import pytest


def wants_slow(config: pytest.Config) -> bool:
    return "slow" in (config.getoption("-m") or "") or "1" in (
        os.environ.get("HARNESS_SLOW"),
        os.environ.get("HARNESS_DRIFT_SLOW"),
    )


# the files whose tests each run a whole contract suite: started first, so that no worker is left alone with
# one of them at the end (xdist's worksteal takes work from the end of a busy worker's queue)
LONG = (
    "tests/modes/",
    "tests/benchwright/test_drift.py",
    "tests/proxy/test_raw_path.py",
    "tests/test_schemathesis_cli",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not wants_slow(config):
        slow = [item for item in items if "slow" in item.keywords]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if "slow" not in item.keywords]
    items.sort(key=lambda item: not item.nodeid.startswith(LONG))  # stable: the order within each part is kept
