"""What differential mode costs: one API's contract profile run plain and with `--differential`, in
alternating rounds on the same machine, and the ratio of the two (`make diff-bench`, docs/differential.md).

Each run is a fresh `harness-contract` process against the embedded mock (or the target the environment
names), so the two sides of a round carry the same load; rounds alternate which side goes first. Wall time
is what a user waits for; CPU time (the run's own and its children's, the oracles' processes included) is
reported beside it, steadier on a busy machine. The budget is `BUDGET`: the differential run takes at most
twice the plain run's time (the median ratio of the rounds). A run that fails (a plain check, or behavioural
drift in the differential run) is reported as such: its time measures something else, so the verdict is
"not measured" rather than a ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from contracts.runner.differential import ENV

BUDGET = 2.0  # the differential run's time, at most, as a multiple of the plain run's
COMPARED = re.compile(r"answered the same (\d+) request")


@dataclass(frozen=True)
class Timing:
    """One contract run: its wall and CPU seconds, exit code and (differential runs) requests compared."""

    differential: bool
    wall: float
    cpu: float
    code: int
    compared: int | None = None


def run(api: str, differential: bool, profile: str, report_dir: Path) -> Timing:
    """One `harness-contract` run of `api`, timed (the differential flag given or not, never inherited)."""
    command = [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--profile", profile]
    command += ["--report-dir", str(report_dir)] + (["--differential"] if differential else [])
    env = {k: v for k, v in os.environ.items() if k != ENV}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    code = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    compared = None
    report = report_dir / "drift-report.md"
    if differential and report.exists():
        found = COMPARED.search(report.read_text(encoding="utf-8"))
        compared = int(found.group(1)) if found else None
    return Timing(differential, wall, cpu, code, compared)


def measure(api: str, rounds: int, profile: str, work: Path) -> list[tuple[Timing, Timing]]:
    """`rounds` (plain, differential) pairs; odd rounds run the differential side first."""
    pairs = []
    for index in range(rounds):
        order = [False, True] if index % 2 == 0 else [True, False]
        done = {flag: run(api, flag, profile, work / f"{api}-{index}-{'diff' if flag else 'plain'}") for flag in order}
        pairs.append((done[False], done[True]))
    return pairs


def verdict(pairs: list[tuple[Timing, Timing]]) -> tuple[float | None, str]:
    """The median wall-time ratio of the rounds and what it says against `BUDGET`."""
    if not pairs or any(p.code or d.code for p, d in pairs):
        return None, "not measured (a run failed: its time measures something else)"
    ratio = statistics.median(d.wall / p.wall for p, d in pairs)
    return ratio, "met" if ratio <= BUDGET else "NOT met"


def report(api: str, profile: str, pairs: list[tuple[Timing, Timing]]) -> str:
    ratio, said = verdict(pairs)
    lines = [
        f"# Differential cost: {api}, {profile} profile",
        "",
        "| round | plain wall | differential wall | ratio | plain CPU | differential CPU | CPU ratio | compared |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for index, (plain, diff) in enumerate(pairs, 1):
        failed = [f"{'differential' if t.differential else 'plain'} exited {t.code}" for t in (plain, diff) if t.code]
        lines.append(
            f"| {index} | {plain.wall:.1f} s | {diff.wall:.1f} s | {diff.wall / plain.wall:.2f}x | {plain.cpu:.1f} s"
            f" | {diff.cpu:.1f} s | {diff.cpu / plain.cpu:.2f}x | {diff.compared if diff.compared is not None else '-'}"
            f"{' (' + '; '.join(failed) + ')' if failed else ''} |"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    shown = f"{ratio:.2f}x" if ratio is not None else "-"
    lines += ["", f"Median wall-time ratio {shown} (budget <= {BUDGET}x): **{said}**. Load average after: {load:.2f}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m contracts.runner.differential.cost", description=__doc__)
    parser.add_argument("--api", action="append", required=True, help="the API to measure (repeatable)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating plain/differential rounds per API")
    parser.add_argument("--profile", default="quick", help="the contract profile both runs use")
    parser.add_argument("--out", default="reports/diff-cost.md")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds: at least 1")
    texts, met = [], True
    with tempfile.TemporaryDirectory(prefix="diff-cost-") as work:
        for api in args.api:
            pairs = measure(api, args.rounds, args.profile, Path(work))
            texts.append(report(api, args.profile, pairs))
            met = met and verdict(pairs)[1] == "met"
    text = "\n".join(texts)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
