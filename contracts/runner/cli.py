"""`harness-contract` (alias `benchwright-contract`): run the contract suites and write their reports.

    harness-contract [--api NAME ...] [--profile quick|full] [--plan] [--allow spend,writes,destructive]
                     [--allow-spend] [--allow-destructive] [--allow-writes] [--max-requests N]
                     [--seed N | --seeds N] [--report-dir reports] [-k EXPR]

Target: per API, its URL variable unset is the embedded mock; set, the suite finds out
whether it is a mock someone served (its `/__mock` surface answers: the suite makes its own
credentials there) or a deployment (staging with opt-ins, production without), see
`contracts.runner.session`. Every option has an environment spelling read by every API's
suite: `HARNESS_CONTRACT_ALLOW_SPEND`, `..._ALLOW_WRITES`, `..._ALLOW_DESTRUCTIVE`,
`..._MAX_REQUESTS`, `..._PROFILE`, `..._SEED` (`BW_CONTRACT_*` accepted too), and
`make contract ALLOW=spend,writes,destructive MAX_REQUESTS=N` passes them.

Which APIs: those named with `--api` (repeatable); else, when any API's live URL
variable is set (`BW_API_URL`, `BENCHMARKS_PLATFORM_URL`, `BENCHGEN_API_URL`,
`BENCH_API_BASE_URL`), only those APIs, each against its deployment; else every
registered API against its embedded mock. `benchwright-contract` checks
Benchwright alone.

Reports: one API writes `junit.xml` and `drift-report.md` in the report
directory; several write them under `<report-dir>/<api>/`, plus a combined
`drift-report.md`. Exit status: 0 when every target agrees with its spec and
reference, 1 on drift, 2 on a usage or setup error.

`--seeds N` runs the whole selection N times in a row, with hypothesis seeds 1 to N
(each seed's reports under `<report-dir>/seed-<n>/`, a summary in
`<report-dir>/seeds.md`), and stops at the first seed that finds drift: CI runs two on every commit (`make contract
SEEDS=2`), so a check that passes only on the derandomized profile's one draw is caught. A seed's run is
reproducible (the same requests every time: `contracts.runner.fingerprint`). `--explore N` runs N random seeds
and writes what drifts as regression corpus entries; `--regressions` replays the corpus (`contracts.runner.seeds`,
docs/testing.md).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from contracts.apis import CONTRACT_APIS, contract
from contracts.runner import seeds
from contracts.runner.safety import LIVE_DEFAULT_BUDGET, OPT_INS, setting

ROOT = Path(__file__).resolve().parents[2]
OPTION_ENV = {
    "allow_spend": "ALLOW_SPEND",
    "allow_destructive": "ALLOW_DESTRUCTIVE",
    "allow_writes": "ALLOW_WRITES",
}


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--api", action="append", help=f"an API to check (repeatable): {', '.join(CONTRACT_APIS)}, or module:attribute"
    )
    parser.add_argument(
        "--profile",
        choices=["smoke", "quick", "full"],
        default=setting("PROFILE") or "quick",
        help="quick: derandomized, under a minute per API against the mock; full: deeper, for nightly runs;"
        " smoke: the fewest examples (the target-mode matrix of make test)",
    )
    parser.add_argument("--plan", action="store_true", help="list what would be called, without calling anything")
    parser.add_argument(
        "--clauses",
        action="store_true",
        help="print the clause coverage the checks declare (read from the suite, nothing sent) and write clauses.json",
    )
    parser.add_argument(
        "--allow",
        type=_opt_ins,
        default=[],
        metavar="spend,writes,destructive",
        help="the opt-ins against a deployment, comma-separated (the same as the three --allow-* flags)",
    )
    parser.add_argument(
        "--allow-spend", action="store_true", help="against a live target, also run operations that spend money"
    )
    parser.add_argument(
        "--allow-destructive", action="store_true", help="against a live target, also run operations that destroy data"
    )
    parser.add_argument(
        "--allow-writes", action="store_true", help="against a live target, also run writes that change existing state"
    )
    parser.add_argument(
        "--max-requests", type=int, help=f"request budget per API (default against a deployment: {LIVE_DEFAULT_BUDGET})"
    )
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--seed", type=int, help="a hypothesis seed (runs non-derandomized with that seed)")
    runs.add_argument("--seeds", type=int, metavar="N", help="run everything with seeds 1..N in a row")
    runs.add_argument(
        "--explore",
        type=int,
        metavar="N",
        help="run everything with N random seeds; what drifts becomes a regression corpus entry (nightly)",
    )
    runs.add_argument(
        "--regressions",
        action="store_true",
        help="replay every entry of the regression corpus (contracts/regressions.toml) at its API, profile and seed",
    )
    parser.add_argument(
        "--corpus", type=Path, default=seeds.CORPUS, help="the regression corpus --regressions replays (TOML)"
    )
    parser.add_argument("--report-dir", default="reports")
    parser.add_argument("-k", dest="keyword", help="only checks matching this pytest -k expression")
    parser.add_argument(
        "--differential", action="store_true", help="also send each request to an oracle mock and compare the answers"
    )
    return parser


def _opt_ins(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in OPT_INS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown opt-in {', '.join(unknown)}; known: {', '.join(OPT_INS)}")
    return names


def selected(args: argparse.Namespace) -> list[str]:
    if args.api:
        return list(dict.fromkeys(args.api))
    live = [name for name in CONTRACT_APIS if os.environ.get(contract(name).url_env)]
    return live or list(CONTRACT_APIS)


def _environment(args: argparse.Namespace, name: str) -> dict[str, str]:
    env = dict(os.environ)
    env["HARNESS_CONTRACT_API"] = name
    env["HARNESS_CONTRACT_PROFILE"] = args.profile
    for option, suffix in OPTION_ENV.items():
        if getattr(args, option) or option.removeprefix("allow_") in args.allow:
            env[f"HARNESS_CONTRACT_{suffix}"] = "1"
    if args.max_requests is not None:
        env["HARNESS_CONTRACT_MAX_REQUESTS"] = str(args.max_requests)
    if args.seed is not None:
        env["HARNESS_CONTRACT_SEED"] = str(args.seed)
    if args.differential:
        env["HARNESS_CONTRACT_DIFFERENTIAL"] = "1"
    env.update(contract(name).extra_env)
    return env


def run_one(args: argparse.Namespace, name: str, report_dir: Path) -> int:
    """One API's suite, in-process (the caller runs each API in its own process)."""
    import pytest

    from contracts.runner import claims, report

    spec = contract(name)
    claims.register(spec.claim_list())
    report.REDACTIONS.extend(spec.redactions)
    os.environ.update(_environment(args, name))
    from contracts.runner import profiles

    profiles.load()
    report_dir.mkdir(parents=True, exist_ok=True)
    pytest_args = [
        str(spec.suite),
        # the generic suite: spec conformance (unless the API runs its own) and the crawl, every API
        str(Path(__file__).parent / "suite" / ("" if spec.conformance else "test_crawl.py")),
        "-q",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        str(report_dir / "junit.xml"),
        "-o",
        "junit_family=xunit2",
        "-c",
        str(Path(__file__).with_name("pytest.ini")),
        "--rootdir",
        str(ROOT),
        "-W",
        "ignore::DeprecationWarning",
    ]
    if args.seed is not None:
        pytest_args += ["--hypothesis-seed", str(args.seed)]
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    if args.clauses:
        return _clause_plan(name, pytest_args, report_dir)
    url = os.environ.get(spec.url_env)
    drift = report.DriftReport(report_dir / "drift-report.md", f"{name}: {url or 'embedded mock'}", api=name)
    code = pytest.main(pytest_args, plugins=[drift])
    _write_fingerprint(name, report_dir)
    from contracts.runner import differential

    if differential.finish() and code == 0:  # behavioural drift is drift
        code = 1
    print(f"\n[{name}] Drift report: {report_dir / 'drift-report.md'}   JUnit: {report_dir / 'junit.xml'}")
    return 0 if code == 0 else 1 if code == 1 else 2


def _write_fingerprint(name: str, report_dir: Path) -> None:
    """The embedded mock's digest of the run's exchanges (`contracts.runner.fingerprint`), when there was one."""
    from contracts.runner import session

    digest = session.fingerprint(name)
    if digest is not None:
        (report_dir / "fingerprint.txt").write_text(digest.text() + "\n", encoding="utf-8")
        (report_dir / "exchanges.txt").write_text("".join(f"{line}\n" for line in digest.lines), encoding="utf-8")
        print(f"[{name}] fingerprint {digest.text()}")


def _clause_plan(name: str, pytest_args: list[str], report_dir: Path) -> int:
    """`--clauses`: collect the suite without running it and state the clauses its checks assert."""
    import pytest

    from contracts.runner.coverage import ClausePlan

    plan = ClausePlan(name)
    code = pytest.main([*pytest_args, "--collect-only", "-qq"], plugins=[plan])
    if code != 0:
        return 2
    print("\n".join(plan.render()))
    (report_dir / "clauses.json").write_text(plan.json(), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None, prog: str = "harness-contract", default_api: str | None = None) -> int:
    args = _parser(prog).parse_args(argv)
    if default_api and not args.api:
        args.api = [default_api]
    names = selected(args)
    if args.plan:
        for name in names:
            spec = contract(name)
            print(spec.plan(args) if spec.plan else f"{name}: no plan mode")
        return 0
    report_dir = Path(args.report_dir)
    given = argv if argv is not None else sys.argv[1:]
    if args.seeds:
        return seeds.run_seeds(args.seeds, _passthrough(given, ("--seeds", "--report-dir")), report_dir)
    if args.explore:
        options = _passthrough(given, ("--explore", "--report-dir"))
        return seeds.explore(args.explore, names, options, args.profile, report_dir)
    if args.regressions:
        return seeds.replay(args.api, report_dir, args.corpus)
    if len(names) == 1:
        return run_one(args, names[0], report_dir)
    # every API in its own process, all at once: the quick profile of all of them in one API's time
    report_dir.mkdir(parents=True, exist_ok=True)
    processes = {}
    for name in names:
        command = [sys.executable, "-m", "contracts.runner.cli", "--api", name, "--report-dir", str(report_dir / name)]
        command += _passthrough(argv if argv is not None else sys.argv[1:])
        log = (report_dir / f"{name}.log").open("w", encoding="utf-8")
        processes[name] = (subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=seeds.child_env()), log)
    codes: dict[str, int] = {}
    for name, (process, log) in processes.items():
        codes[name] = process.wait()
        log.close()
        print((report_dir / f"{name}.log").read_text(encoding="utf-8")[-1500:])
    _combine(report_dir, names, codes)
    return max(codes.values(), default=0)


def _passthrough(argv: list[str], drop: tuple[str, ...] = ("--api", "--report-dir")) -> list[str]:
    """The options of this invocation, minus those in `drop` (by default `--api` and
    `--report-dir`, set per API) and their values."""
    out: list[str] = []
    skip = False
    for index, item in enumerate(argv):
        if skip:
            skip = False
            continue
        if item in drop:
            skip = index + 1 < len(argv)
            continue
        if item.startswith(tuple(f"{option}=" for option in drop)):
            continue
        out.append(item)
    return out


def _combine(report_dir: Path, names: list[str], codes: dict[str, int]) -> None:
    verdict = {0: "no drift", 1: "DRIFT", 2: "setup error"}
    lines = ["# Contract drift report: every API", "", "| API | result | report |", "|---|---|---|"]
    lines += [
        f"| {n} | {verdict.get(codes[n], codes[n])} | [{n}/drift-report.md]({n}/drift-report.md) |" for n in names
    ]
    lines.append("")
    coverage = []
    for name in names:
        path = report_dir / name / "drift-report.md"
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        found = re.search(r"\*\*(\d+) of (\d+) (.+?) covered \((\d+)%\)\*\*", text)
        if found:
            coverage.append(f"| {name} | {found.group(4)}% | {found.group(1)} of {found.group(2)} {found.group(3)} |")
    if coverage:
        lines += ["## Claim coverage per API", "", "| API | coverage | claims |", "|---|---:|---|", *coverage, ""]
    for name in names:
        path = report_dir / name / "drift-report.md"
        if path.exists():
            lines += [
                path.read_text(encoding="utf-8").replace("# Contract drift report", "## Contract drift report"),
                "",
            ]
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "drift-report.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"\nCombined drift report: {report_dir / 'drift-report.md'}")


def benchwright_main() -> int:
    return main(prog="benchwright-contract", default_api="benchwright")


if __name__ == "__main__":
    sys.exit(main())
