"""The unmodified mocks pass the whole contract suite of every API, ten seeds in a row.

CI runs two of them on every commit as `make contract SEEDS=2` (`harness-contract --seeds 2`: every API in
parallel per seed, stopping at the first drift; reports/seeds.md). `test_ten_seeds_in_a_row` (marked slow:
the nightly runs it) is ten from pytest. The
default run covers two seeds more cheaply: `test_two_seeds_of_the_catalogue_checks` runs, under
hypothesis seeds 1 and 2, the checks the drift catalogues use that draw random data
(Benchwright's ETag race state machine and its cursor traversal), against the unmodified mock; the
crawl and the other catalogue checks draw nothing at random, and `test_unmodified_mock_passes` of
each catalogue runs them once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import core

from tests.drift import test_benchwright
from tests.drift.harness import caught, served

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_ten_seeds_in_a_row(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", "--seeds", "10", "--report-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    summary = (tmp_path / "seeds.md").read_text() if (tmp_path / "seeds.md").exists() else proc.stdout[-3000:]
    assert proc.returncode == 0, summary
    assert "**10 of 10 seeds in a row passed.**" in summary
    for report in tmp_path.glob("seed-*/*/drift-report.md"):
        assert "No drift" in report.read_text(), report


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("check", ["etags", "traversal"])
def test_two_seeds_of_the_catalogue_checks(seed, check, monkeypatch):
    from hypothesis import settings

    monkeypatch.setattr(core, "global_force_seed", seed)
    settings.register_profile("drift-seeded", settings.get_profile("quick"), derandomize=False)
    previous = settings._current_profile
    settings.load_profile("drift-seeded")
    try:
        with served(test_benchwright.create_app()) as url:
            found = caught(lambda: test_benchwright.CHECKS[check](url))
    finally:
        settings.load_profile(previous or "default")
    assert not found, f"seed {seed}: {check} reported drift on the unmodified mock: {sorted(found)}"
