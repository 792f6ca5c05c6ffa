"""`benchwright-contract`: run the contract suite and write its reports.

    benchwright-contract [--profile quick|full] [--plan] [--allow-spend] [--allow-destructive]
                         [--allow-writes] [--max-requests N] [--seed N] [--report-dir reports] [-k EXPR]

The target is the embedded mock unless `BW_API_URL` is set (see
`contracts.target`). Exit status: 0 when the target agrees with the spec and the
reference, 1 on drift, 2 on a usage or setup error. Reports: `junit.xml` and
`drift-report.md` in the report directory.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "suite"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchwright-contract", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--profile",
        choices=["quick", "full"],
        default=os.environ.get("BW_CONTRACT_PROFILE", "quick"),
        help="quick: derandomized, under a minute against the mock; full: deeper, for nightly runs",
    )
    parser.add_argument("--plan", action="store_true", help="list what would be called, without calling anything")
    parser.add_argument(
        "--allow-spend", action="store_true", help="against a live target, also run operations that spend money"
    )
    parser.add_argument(
        "--allow-destructive", action="store_true", help="against a live target, also run operations that destroy data"
    )
    parser.add_argument(
        "--allow-writes", action="store_true", help="against a live target, also run writes that change existing state"
    )
    parser.add_argument("--max-requests", type=int, help="request budget (live default 2000)")
    parser.add_argument("--seed", type=int, help="a hypothesis seed (runs non-derandomized with that seed)")
    parser.add_argument("--report-dir", default="reports")
    parser.add_argument("-k", dest="keyword", help="only checks matching this pytest -k expression")
    return parser


def plan(args: argparse.Namespace) -> str:
    from contracts.safety import Policy
    from contracts.suite._support import session_only
    from mock_server.spec import iter_operations, load_bundle

    url = os.environ.get("BW_API_URL")
    live = bool(url)
    policy = Policy(
        live=live,
        allow_spend=args.allow_spend,
        allow_destructive=args.allow_destructive,
        allow_writes=args.allow_writes,
    )
    lines = [
        f"Target: {url or 'the embedded mock'}"
        + (
            " (treated as a live account: a mock's control surface is only detected when the suite runs)"
            if live
            else ""
        ),
        f"Profile: {args.profile}",
        "",
        "Stateless and stateful conformance (schemathesis), per operation:",
    ]
    runs = skips = 0
    for method, path, _, operation in iter_operations(load_bundle()):
        allowed, reason = policy.permits(method, operation)
        streams = "text/event-stream" in (operation.get("responses", {}).get("200", {}).get("content") or {})
        needs_session = session_only(operation)
        if streams:
            verdict = "read incrementally by the SSE checks"
        elif not allowed:
            verdict, skips = f"SKIPPED: {reason}", skips + 1
        elif needs_session and live:
            verdict, skips = "SKIPPED: needs a browser session", skips + 1
        else:
            verdict, runs = "fuzzed (positive and negative data)", runs + 1
        lines.append(f"  {method.upper():6} {path:58} {operation['operationId']:32} {verdict}")
    lines += [
        "",
        f"{runs} operations fuzzed, {skips} skipped.",
        "Semantic checks: idempotency (§3.7), ETag races (§3.8), pagination and clamps (§3.4), scopes (§2.2),"
        " revoked/expired tokens (§2.4), SSE resume (§5.2), run lifecycle (§4.1.1, §4.6-§4.11; mock or --allow-spend).",
        f"Request budget: {args.max_requests or ('2000' if live else 'unlimited')}; 429s wait out Retry-After.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.plan:
        print(plan(args))
        return 0
    import pytest

    from contracts.report import DriftReport

    os.environ["BW_CONTRACT_PROFILE"] = args.profile
    if args.allow_spend:
        os.environ["BW_CONTRACT_ALLOW_SPEND"] = "1"
    if args.allow_destructive:
        os.environ["BW_CONTRACT_ALLOW_DESTRUCTIVE"] = "1"
    if args.allow_writes:
        os.environ["BW_CONTRACT_ALLOW_WRITES"] = "1"
    if args.max_requests is not None:
        os.environ["BW_CONTRACT_MAX_REQUESTS"] = str(args.max_requests)
    report_dir = Path(args.report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    pytest_args = [
        str(SUITE),
        "-q",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        str(report_dir / "junit.xml"),
        "-o",
        "junit_family=xunit2",
        "--rootdir",
        str(SUITE.parent.parent),
        "-W",
        "ignore::DeprecationWarning",
    ]
    if args.seed is not None:
        os.environ["BW_CONTRACT_SEED"] = str(args.seed)
        pytest_args += ["--hypothesis-seed", str(args.seed)]
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    target = os.environ.get("BW_API_URL") or "embedded mock"
    report = DriftReport(report_dir / "drift-report.md", target)
    code = pytest.main(pytest_args, plugins=[report])
    print(f"\nDrift report: {report_dir / 'drift-report.md'}   JUnit: {report_dir / 'junit.xml'}")
    if code == 0:
        return 0
    if code == 1:
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
