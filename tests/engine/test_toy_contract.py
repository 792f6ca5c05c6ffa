"""The contract runner checks the toy API (stateless + links + its one semantic check)
with no runner change, and names drift in it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOY = "tests.engine.toy.contract:CONTRACT"


def run(tmp_path: Path, api: str = TOY, *extra: str) -> tuple[int, str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HARNESS_", "TOY_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--report-dir", str(tmp_path), *extra],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = (tmp_path / "drift-report.md").read_text() if (tmp_path / "drift-report.md").exists() else ""
    return proc.returncode, report, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_the_runner_checks_the_toy_api_green(tmp_path):
    code, report, output = run(tmp_path)
    assert code == 0, output
    assert "No drift" in report and "POST /widgets/" in report  # the cases-per-operation table


def test_junit_names_carry_the_claims_each_check_covers(tmp_path):
    """Issue "claim coverage": "JUnit test names carry the claim". The toy's own semantic check,
    each per-operation conformance case and the links machine name what they check."""
    code, _, output = run(tmp_path)
    assert code == 0, output
    names = [case.get("name") for case in ET.parse(tmp_path / "junit.xml").iter("testcase")]
    assert "test_a_repeated_client_key_answers_the_first_widget (toy.get_or_create)" in names, names
    conformance = [n for n in names if n.startswith("test_spec_conformance[")]
    shape = re.compile(r"test_spec_conformance\[\w+ \S+ \(spec\.status .*\)\]")
    assert conformance and all(shape.fullmatch(n) for n in conformance), conformance
    assert any(n.startswith("test_spec_conformance[POST /widgets/ (") for n in conformance), conformance
    assert any(n.startswith("test_links_state_machine (stateful.links") for n in names), names


def test_the_runner_names_drift_in_the_toy_api(tmp_path):
    """A drifted toy (an undocumented error code) fails under the generic `spec.errors` claim."""
    code, report, output = run(tmp_path, "tests.engine.toy.drifted:CONTRACT")
    assert code == 1, output
    assert "spec.errors" in report


def test_seeds_run_in_a_row_and_stop_at_the_first_drift(tmp_path):
    """`--seeds N` (CI runs ten, issue "the unmodified mocks must pass ten seeds in a row"): each seed
    a whole run with its own reports; the summary counts the seeds passed in a row."""
    code, _, output = run(tmp_path / "green", TOY, "--seeds", "2")
    assert code == 0, output
    assert "**2 of 2 seeds in a row passed.**" in (tmp_path / "green" / "seeds.md").read_text()
    assert "No drift" in (tmp_path / "green" / "seed-2" / "drift-report.md").read_text()
    code, _, output = run(tmp_path / "drifted", "tests.engine.toy.drifted:CONTRACT", "--seeds", "3")
    assert code == 1, output
    assert "**0 of 3 seeds in a row passed.**" in (tmp_path / "drifted" / "seeds.md").read_text()
    assert not (tmp_path / "drifted" / "seed-2").exists()
