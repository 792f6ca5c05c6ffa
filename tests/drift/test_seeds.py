"""The unmodified mocks pass the whole contract suite of every API, ten seeds in a row.

`test_ten_seeds_in_a_row` (marked slow, about two minutes a seed on a shared 2-core machine) runs
`harness-contract --seed N` for N = 1..10, every API in parallel, and requires exit 0 and "No drift" in
each report. The default run covers two seeds more cheaply: `test_two_seeds_of_the_catalogue_checks`
runs, under hypothesis seeds 1 and 2, the checks the drift catalogues use that draw random data
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
    for seed in range(1, 11):
        reports = tmp_path / f"seed-{seed}"
        proc = subprocess.run(
            [sys.executable, "-m", "contracts.runner.cli", "--seed", str(seed), "--report-dir", str(reports)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert proc.returncode == 0, f"seed {seed}: exit {proc.returncode}\n{proc.stdout[-3000:]}"
        for report in reports.glob("*/drift-report.md"):
            assert "No drift" in report.read_text(), f"seed {seed}: {report}"


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
