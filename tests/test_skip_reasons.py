"""A skip never hides drift (issue 31, item 5): every `pytest.skip`, `pytest.xfail` and `skipif`/`xfail`
mark in the contract suites and the helpers they call (everything under `contracts/`) gives a reason about
what the run cannot do, never about something the target failed to do.

Allowed: a missing opt-in or a read-only target (the run policy), a missing credential or role on a
deployment, no control surface (the mock's `/__mock`), the request budget or the profile, the published
client's own limits, and data a deployment does not hold that the run may not make. A reason that says
the target did not, could not, failed, answered a status, or did not finish in time is drift the skip
would hide: a promised outcome not reached at its bound is a failed check citing its claim
(`docs/contract-runs.md`, *Waits*)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPERS = {"skip", "xfail", "skipif"}

# what the target failed to do: a skip with such a reason hides drift
FAILED = [
    r"\bdid(?: not|n't)\b",
    r"\bcould(?: not|n't)\b",
    r"\bfail(?:ed|s)?\b",
    r"\banswered\b",
    r"\brefused\b",
    r"\bin time\b",
    r"\btimed? ?out\b",
    r"\bnot (?:imported|served|finished|ready|found)\b",
    r"\bnever\b",
    r"\{[^}]*status[^}]*\}",  # a status the target answered, interpolated
]
# what the run cannot do
ALLOWED = {
    "opt-in or read-only target": r"--allow|opt in|\bALLOW=|read-only|safe reads|\{reason\}",
    "credential or role": r"credential|\btoken\b|\bset [A-Z][A-Z0-9_]+|\bBW_PAT|\brole\b|OAuth|browser session|"
    r"account-class|missing_role",
    "no control surface": r"control surface|/__mock|mock targets only|mock's",
    "budget or profile": r"budget|max-requests|profile",
    "the client's own limits": r"the client accepts only",
    "data a deployment does not hold": r"^(?:\{[^}]*\} )?no |\bhas no\b|\blists no\b|\bholds? no\b|\bfewer than\b|"
    r"too few credits|awaits approval|\bemitted no\b|\bwrote no\b|of fewer than|finished before|"
    r"stopped early: its generation depends on server state",
}


def _render(node: ast.expr) -> str:
    """A reason as its source reads: literal text, `{expression}` for what is interpolated."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
            for part in node.values
            if isinstance(part, ast.Constant | ast.FormattedValue)
        )
    return "{" + ast.unparse(node) + "}"


def _reason(call: ast.Call) -> ast.expr | None:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    for keyword in call.keywords:
        if keyword.arg in ("reason", "msg"):
            return keyword.value
    if name in ("skip", "xfail") and call.args:
        return call.args[0]
    return None


def skip_reasons() -> list[tuple[str, int, str]]:
    """(file, line, reason) of every skip in `contracts/`."""
    found = []
    for path in sorted((ROOT / "contracts").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            base = ast.unparse(node.func.value)
            if node.func.attr not in SKIPPERS or not re.search(r"\bpytest\b", base):
                continue
            reason = _reason(node)
            text = "<no reason>" if reason is None else _render(reason)
            found.append((str(path.relative_to(ROOT)), node.lineno, text))
    return found


def classify(reason: str) -> str:
    """The allowed class of a reason; `failed` when it names what the target failed to do; `unclassified`."""
    if any(re.search(pattern, reason) for pattern in FAILED):
        return "failed"
    for name, pattern in ALLOWED.items():
        if re.search(pattern, reason):
            return name
    return "unclassified"


REASONS = skip_reasons()


def test_the_scan_finds_the_suites_skips():
    files = {f for f, _, _ in REASONS}
    assert any(f.startswith("contracts/benchsdk/suite/") for f in files)
    assert any(f.startswith("contracts/runner/") for f in files)
    assert len(REASONS) >= 40


@pytest.mark.parametrize(("where", "reason"), [(f"{f}:{n}", r) for f, n, r in REASONS])
def test_every_skip_reason_is_about_what_the_run_cannot_do(where, reason):
    kind = classify(reason)
    assert kind not in ("failed", "unclassified"), (
        f"{where}: skip reason {reason!r} is {kind}: a skip may only say what the run cannot do "
        f"({', '.join(ALLOWED)}); what the target failed to do is drift under its claim"
    )


@pytest.mark.parametrize(
    "reason",
    [
        "the platform did not import {batches} batches in time",  # the skip that hid an import never finished
        "could not add a component ({comp.status_code})",
        "GET /v1/settings answered {settings.status_code}",
        "the credential is not served on /v1 ({served.status_code}); nothing to compare",
        "the run never finished",
    ],
)
def test_a_reason_naming_what_the_target_failed_to_do_is_refused(reason):
    assert classify(reason) == "failed"


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("changes state: run with --allow-writes", "opt-in or read-only target"),
        ("no expired token (set BW_PAT_EXPIRED)", "credential or role"),
        ("no control surface: the rest moves the mock's clock (a live lease is not waited out)", "no control surface"),
        ("waiting out two {interval:g} s keep-alive intervals runs in the full profile", "budget or profile"),
    ],
)
def test_a_reason_about_the_run_is_allowed(reason, kind):
    assert classify(reason) == kind
