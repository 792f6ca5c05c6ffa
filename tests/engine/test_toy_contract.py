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


def run(tmp_path: Path, api: str = TOY) -> tuple[int, str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HARNESS_", "TOY_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--report-dir", str(tmp_path)],
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
