"""The drift report: a pytest plugin that turns failures into findings grouped by
operation and by reference claim, each with a curl line that reproduces it
(credentials redacted), written as Markdown beside the JUnit XML."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from contracts.runner.claims import SCHEMATHESIS, Drift, claim_of

# Requests sent per operation by the schemathesis checks (stateless and stateful).
CASES: Counter[str] = Counter()


@dataclass
class Finding:
    claim: str
    operation: str
    detail: str
    curl: str
    test: str


# Credentials never reach a report: header values, cookies, and any pattern an
# API adds (its token formats), replaced by the variable a reader would use.
REDACTIONS: list[tuple[str, str]] = [
    (r"(Authorization: )(Bearer |Token |Basic )?[^'\"\s]+", r"\1\2[redacted]"),
    (r"((?:X-Api-Key|X-API-Key|Api-Key|Cookie): )[^'\"]+", r"\1[redacted]"),
]


def _redact(text: str) -> str:
    for pattern, replacement in REDACTIONS:
        text = re.sub(pattern, replacement, text, flags=re.I)
    return text


def _schemathesis_findings(exc: BaseException, test: str) -> list[Finding]:
    try:
        from schemathesis.core.failures import Failure, FailureGroup
    except ImportError:  # pragma: no cover
        return []
    failures: list[BaseException] = list(exc.exceptions) if isinstance(exc, FailureGroup) else [exc]
    text = str(exc)
    curl = next(iter(re.findall(r"^\s*(curl .+)$", text, flags=re.M)), "")
    out = []
    for failure in failures:
        if not isinstance(failure, Failure):
            continue
        inner = getattr(failure, "exception", None)
        if isinstance(inner, Drift):
            out.append(Finding(inner.claim.id, inner.operation, inner.detail, _redact(curl), test))
            continue
        claim = next((SCHEMATHESIS[c] for c in getattr(failure, "checks", ()) if c in SCHEMATHESIS), "spec.other")
        detail = f"{failure.code} {failure.title}: {(failure.message or '').strip()}"
        out.append(Finding(claim, failure.operation, detail[:1500], _redact(curl), test))
    return out


def _is_schemathesis_group(exc: BaseException) -> bool:
    try:
        from schemathesis.core.failures import FailureGroup
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, FailureGroup)


class DriftReport:
    def __init__(self, path: Path, target: str, api: str | None = None) -> None:
        self.path = path
        self.target = target
        self.coverage = None
        if api:
            from contracts.runner.coverage import Coverage

            self.coverage = Coverage(api)
        self.api = api
        self.findings: list[Finding] = []
        self.skipped: list[tuple[str, str]] = []
        self.passed = 0
        self.failed = 0

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "claim(*ids): the reference claims a check covers (coverage report)")

    def pytest_collection_modifyitems(self, session, config, items):
        if self.coverage is not None:
            self.coverage.collected(items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if item.name not in report.nodeid:  # schemathesis' per-operation items share one node id
            report.nodeid = f"{report.nodeid.rpartition('::')[0]}::{item.name}"
        label = self.coverage.label(item) if self.coverage is not None else ""
        if label:  # JUnit's (and the terminal's) test name carries the claims the check covers
            # inside a parametrized id's brackets: JUnit reads a node id's trailing `[...]` as its params
            nodeid = report.nodeid
            report.nodeid = f"{nodeid[:-1]} ({label})]" if nodeid.endswith("]") else f"{nodeid} ({label})"
        if report.when == "call" and report.passed:
            self.passed += 1
        if report.failed:
            self.failed += 1
        if report.when == "call" and self.coverage is not None:
            self.coverage.ran(item)
        if report.skipped and call.excinfo is not None:
            self.skipped.append((item.nodeid, str(call.excinfo.value)[:300]))
        if not report.failed or call.excinfo is None:
            return
        exc = call.excinfo.value
        found = self.collect(exc, item.nodeid)
        if not found:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            found = [Finding("spec.other", item.nodeid, f"{type(exc).__name__}: {first[:500]}", "", item.nodeid)]
        self.findings.extend(found)

    def collect(self, exc: BaseException, test: str) -> list[Finding]:
        if isinstance(exc, Drift):
            return [Finding(exc.claim.id, exc.operation, exc.detail, _redact(exc.curl), test)]
        if _is_schemathesis_group(exc):
            return _schemathesis_findings(exc, test)
        if isinstance(exc, BaseExceptionGroup):
            return [f for sub in exc.exceptions for f in self.collect(sub, test)]
        return _schemathesis_findings(exc, test)

    def pytest_sessionfinish(self, session, exitstatus):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.render(), encoding="utf-8")

    def render(self) -> str:
        lines = [f"# Contract drift report: {self.target}", ""]
        lines += reach(self.api, self.passed, self.failed, self.skipped)
        if not self.findings:
            lines += [f"No drift: {self.passed} checks passed.", ""]
        else:
            lines += [
                f"**{len(self.findings)} finding(s)** across "
                f"{len({f.claim for f in self.findings})} claim(s); {self.passed} checks passed.",
                "",
            ]
            lines += ["## By reference claim", ""]
            by_claim: dict[str, list[Finding]] = defaultdict(list)
            for finding in self.findings:
                by_claim[finding.claim].append(finding)
            for claim_id, findings in sorted(by_claim.items()):
                claim = claim_of(claim_id)
                lines += [f"### {claim.section} {claim.text} (`{claim_id}`)", ""]
                for finding in findings:
                    lines.append(
                        f"- **{finding.operation}**: {finding.detail.splitlines()[0] if finding.detail else ''}"
                    )
                    if finding.curl:
                        lines += ["", "  ```", f"  {finding.curl}", "  ```"]
                lines.append("")
            lines += ["## By operation", ""]
            by_op: dict[str, set[str]] = defaultdict(set)
            for finding in self.findings:
                by_op[finding.operation].add(f"{claim_of(finding.claim).section} `{finding.claim}`")
            lines += ["| operation | claims |", "|---|---|"]
            lines += [f"| {op} | {', '.join(sorted(claims))} |" for op, claims in sorted(by_op.items())]
            lines.append("")
        if CASES:
            counts = sorted(CASES.values())
            lines += [
                "## Operation coverage",
                "",
                f"{sum(counts)} schemathesis cases over {len(counts)} operations "
                f"(per operation: min {counts[0]}, median {counts[len(counts) // 2]}, max {counts[-1]}).",
                "",
                "| operation | cases |",
                "|---|---:|",
            ]
            lines += [f"| {label} | {count} |" for label, count in sorted(CASES.items())]
            lines.append("")
        from contracts.runner import differential

        lines += differential.section()  # "Behavioural drift", when a differential session ran
        if self.coverage is not None:
            lines += self.coverage.render()
        if self.skipped:
            lines += ["## Not checked here", ""]
            lines += [f"- `{test}`: {reason}" for test, reason in self.skipped]
            lines.append("")
        return "\n".join(lines)


# A skipped check's reason, by what would let it run (`reach`): the first pattern found names it.
SKIP_KINDS = (
    ("request budget", "the request budget ran out"),
    ("opt in with", "behind an opt-in (--allow ...)"),
    ("--allow-spend", "behind an opt-in (--allow ...)"),
    ("control surface", "needs a mock's control surface"),
    ("(set ", "needs a credential variable"),
    (": set ", "needs a credential variable"),
    ("full profile", "runs in the full profile"),
    ("still answered 429", "rate limited at the bound"),
)


def skip_kind(reason: str) -> str:
    return next((kind for needle, kind in SKIP_KINDS if needle in reason), "the target holds no data it needs")


def reach(api: str | None, passed: int, failed: int, skipped: list[tuple[str, str]]) -> list[str]:
    """What this run reached in its target mode: checks run, skipped by reason, failed, requests."""
    from contracts.runner.session import _SESSIONS

    session = _SESSIONS.get(api or "")
    mode = session.mode if session is not None else "unresolved"
    kinds = Counter(skip_kind(reason) for _, reason in skipped)
    lines = [
        "## Reach",
        "",
        f"Mode **{mode}**: {passed + failed} checks ran ({passed} passed, {failed} failed), {len(skipped)} skipped.",
        "",
    ]
    if session is not None:
        policy = session.policy
        budget = f"of {policy.max_requests}" if policy.max_requests is not None else "(no budget)"
        lines += [
            f"Requests sent: {policy.spent} {budget}; opt-ins: {', '.join(policy.opt_ins) or 'none'};"
            f" paced {session.pacer.waited:.0f} s under the target's rate limits.",
            "",
        ]
        if policy.exhausted:
            lines += [
                f"The budget stopped {kinds['the request budget ran out']} check(s): run with a larger"
                f" `--max-requests` (`MAX_REQUESTS=`) than {policy.max_requests} to run them.",
                "",
            ]
    if kinds:
        lines += ["| skipped because | checks |", "|---|---:|"]
        lines += [f"| {kind} | {count} |" for kind, count in kinds.most_common()]
        lines.append("")
    return lines
