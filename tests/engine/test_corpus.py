"""The nightly exploration and the regression corpus (docs/testing.md), on the toy API: random seeds
find a drift, write it as a corpus entry with its seed and example, and the entry, replayed, fails on
the drifted server, passes once it is fixed, and fails as stale when its checks are gone."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from contracts.runner import seeds

ROOT = Path(__file__).resolve().parents[2]
GREEN, DRIFTED = "tests.engine.toy.contract:CONTRACT", "tests.engine.toy.drifted:CONTRACT"


def cli(tmp_path: Path, *args: str) -> tuple[int, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HARNESS_", "TOY_"))}
    environ["HARNESS_EXPLORE_SEED"] = "29"  # the exploration's seeds drawn the same way on every run
    proc = subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout[-3000:] + proc.stderr[-3000:]


def corpus(path: Path, entries: list[seeds.Regression]) -> Path:
    path.write_text("".join(seeds.render(entry) for entry in entries), encoding="utf-8")
    return path


def test_an_entry_round_trips_through_the_corpus_file(tmp_path):
    entry = seeds.Regression(
        "benchgen", "full", 2**31 - 1, "test_a or test_b", "2026-12-08: test_a", 'curl -d \'{"a": "\\"x\\""}\'\nline 2'
    )
    assert seeds.load(corpus(tmp_path / "c.toml", [entry, replace(entry, check="")])) == [
        entry,
        replace(entry, check=""),
    ]
    assert entry.options() == ["--api", "benchgen", "--profile", "full", "--seed", str(2**31 - 1), "-k", entry.check]


def test_the_shipped_corpus_loads():
    assert all(entry.api and entry.profile and entry.seed for entry in seeds.load())


def test_exploration_writes_what_drifts_as_an_entry_that_the_replay_then_guards(tmp_path):
    code, output = cli(tmp_path, "--api", DRIFTED, "--explore", "1", "--report-dir", str(tmp_path / "explore"))
    assert code == 1, output
    assert "**0 of 1 random seeds found no drift.**" in (tmp_path / "explore" / "explore.md").read_text()
    (found,) = seeds.load(tmp_path / "explore" / "regressions-found.toml")
    assert found.api == DRIFTED and found.profile == "quick" and found.seed > 0
    # the failing checks by name (the toy's drift is an undocumented error code its conformance test meets)
    assert "test_spec_conformance" in found.check.split(" or "), found
    assert "test_spec_conformance" in found.found
    assert found.example  # what reproduces it, printed with the entry
    assert f"drifted under seed {found.seed}" in output

    # replayed on every commit: it fails while the server drifts ...
    code, output = cli(tmp_path, "--regressions", "--corpus", str(corpus(tmp_path / "c1.toml", [found])),
                       "--report-dir", str(tmp_path / "r1"))  # fmt: skip
    assert code == 1, output
    assert "**0 of 1 entries passed.**" in (tmp_path / "r1" / "regressions.md").read_text()
    # ... passes once the server is fixed ...
    fixed = replace(found, api=GREEN)
    code, output = cli(tmp_path, "--regressions", "--corpus", str(corpus(tmp_path / "c2.toml", [fixed])),
                       "--report-dir", str(tmp_path / "r2"))  # fmt: skip
    assert code == 0, output
    summary = (tmp_path / "r2" / "regressions.md").read_text()
    assert "**1 of 1 entries passed.**" in summary and f"| {found.seed} |" in summary
    # ... and fails as stale once its checks are gone
    stale = replace(fixed, check="test_no_such_check")
    code, output = cli(tmp_path, "--regressions", "--corpus", str(corpus(tmp_path / "c3.toml", [stale])),
                       "--report-dir", str(tmp_path / "r3"))  # fmt: skip
    assert code == 2, output
    assert "stale: no check selected" in (tmp_path / "r3" / "regressions.md").read_text()
