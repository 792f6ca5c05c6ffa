"""`make diff-bench` (`contracts.runner.differential.cost`): the issue's "Cost" must-show, the differential
quick profile at most 2x the plain run's time, measured as a benchmark (alternating rounds in one run), never
as a timed test. These tests check the bookkeeping and that the benchmark really runs both sides; the
measured ratios are in docs/differential.md."""

from __future__ import annotations

from pathlib import Path

from contracts.runner.differential import cost
from contracts.runner.differential.cost import Timing


def _pair(plain: float, diff: float, codes: tuple[int, int] = (0, 0)) -> tuple[Timing, Timing]:
    return Timing(False, plain, plain, codes[0]), Timing(True, diff, diff * 1.1, codes[1], 100)


def test_the_verdict_is_the_median_ratio_against_the_budget():
    ratio, said = cost.verdict([_pair(10, 15), _pair(10, 25), _pair(10, 19)])
    assert ratio == 1.9 and said == "met"
    ratio, said = cost.verdict([_pair(10, 21), _pair(10, 25), _pair(10, 15)])
    assert ratio == 2.1 and said == "NOT met"


def test_a_failed_run_is_not_a_measurement():
    """A differential run that found behavioural drift (exit 1) or a plain run that failed timed something
    else: no ratio, whatever the times say."""
    for codes in [(1, 0), (0, 1)]:
        ratio, said = cost.verdict([_pair(10, 12), _pair(10, 12, codes)])
        assert ratio is None and said.startswith("not measured")
    text = cost.report("benchgen", "quick", [_pair(10, 12, (0, 1))])
    assert "differential exited 1" in text and "**not measured" in text


def test_the_report_shows_each_round_and_the_median(tmp_path: Path):
    text = cost.report("bench", "quick", [_pair(20, 30), _pair(20, 34)])
    rows = [line for line in text.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert rows == [
        "| 1 | 20.0 s | 30.0 s | 1.50x | 20.0 s | 33.0 s | 1.65x | 100 |",
        "| 2 | 20.0 s | 34.0 s | 1.70x | 20.0 s | 37.4 s | 1.87x | 100 |",
    ]
    assert "Median wall-time ratio 1.60x (budget <= 2.0x): **met**" in text


def test_the_benchmark_runs_both_sides_of_a_round(tmp_path: Path, monkeypatch):
    """One real round of BenchGen's smoke profile: the plain run and the differential run both pass (the
    differential side with requests compared, so the oracle was really in the path), whichever went first;
    an inherited HARNESS_CONTRACT_DIFFERENTIAL does not turn the plain side differential."""
    monkeypatch.setenv(cost.ENV, "1")
    out = tmp_path / "diff-cost.md"
    code = cost.main(["--api", "benchgen", "--profile", "smoke", "--rounds", "1", "--out", str(out)])
    text = out.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| 1 "))
    assert "exited" not in row, text
    assert int(row.rstrip(" |").rsplit("|", 1)[1]) > 0, text  # requests compared by the differential side
    assert code == (0 if "**met**" in text else 1)
    plain = cost.run("benchgen", False, "smoke", tmp_path / "plain")
    assert plain.code == 0 and plain.compared is None
    assert "Behavioural drift" not in (tmp_path / "plain" / "drift-report.md").read_text(encoding="utf-8")


def test_make_diff_bench_runs_the_benchmark_with_its_options():
    """`make diff-bench API=... ROUNDS=... PROFILE=...` (README, docs/differential.md) reaches the module above
    with each option; with no API it measures all four."""
    import subprocess

    root = Path(__file__).resolve().parents[2]

    def line(*args: str) -> str:
        out = subprocess.run(
            ["make", "--no-print-directory", "-n", "diff-bench", *args], cwd=root, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return next(text for text in out.stdout.splitlines() if "contracts.runner.differential.cost" in text)

    one = line("API=benchgen", "ROUNDS=1", "PROFILE=smoke")
    assert "--api benchgen" in one and "--rounds 1" in one and "--profile smoke" in one
    every = line()
    assert all(f"--api {api}" in every for api in ("benchwright", "benchsdk", "benchgen", "bench"))
