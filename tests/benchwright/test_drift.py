"""The contract suite fails, and names the drift, against a server that drifted;
and passes with zero failures on the unmodified mock across seeds (§ per case).

Each case serves the mock over real HTTP with one deliberate drift and runs the
`benchwright-contract` CLI against it in a subprocess, then reads its exit status and
Markdown drift report. Per commit the runs use the `smoke` profile, which catches every drift
here; the nightly (`make test-nightly`, `HARNESS_MODES_PROFILE=full`) runs them at the full
profile, and adds the seeded runs of the unmodified mock (`slow`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contracts.runner.target import LiveServer
from mock_server.app import create_app
from mock_server.benchwright.spec_data import all_scopes
from tests.benchwright.drift import Drifted, Recorder, chain, drop_query_parameter, drop_request_header

ROOT = Path(__file__).resolve().parents[2]
PROFILE = os.environ.get("HARNESS_MODES_PROFILE", "smoke")


def run_suite(tmp_path: Path, url: str | None, *extra: str, pat: str | None = None) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BW_", "PYTEST_"))}
    if url:
        env["BW_API_URL"] = url
    if pat:
        env["BW_PAT"] = pat
    reports = tmp_path / "reports"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "contracts.runner.cli",
            "--api",
            "benchwright",
            "--profile",
            PROFILE,
            "--report-dir",
            str(reports),
            *extra,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = (reports / "drift-report.md").read_text() if (reports / "drift-report.md").exists() else ""
    return proc.returncode, report, proc.stdout[-4000:] + proc.stderr[-4000:]


def drop_display_status(scope: dict[str, Any], status: int, headers: Any, body: Any) -> tuple[int, Any]:
    """A required Run field (§4.1) missing from every run the API returns."""
    if isinstance(body, dict) and body.get("object") == "run":
        body.pop("display_status", None)
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        for row in body["data"]:
            if isinstance(row, dict) and row.get("object") == "run":
                row.pop("display_status", None)
    return status, body


def bug_reports_answer_200(scope: dict[str, Any], status: int, headers: Any, body: Any) -> tuple[int, Any]:
    """§12 says 201; this server answers 200."""
    if scope["path"] == "/v1/bug-reports" and status == 201:
        return 200, body
    return status, body


def drop_required_scope(scope: dict[str, Any], status: int, headers: Any, body: Any) -> tuple[int, Any]:
    """§2.2: 403 scope_insufficient without `required_scope`."""
    if isinstance(body, dict) and body.get("code") == "scope_insufficient":
        body.pop("required_scope", None)
    return status, body


def unclamped(app: Any) -> Any:
    """§3.4: GET /v1/runs serves whatever `limit` asks for."""
    for param in app.state.mock.router.by_id["listRuns"].params:
        if param.name == "limit":
            param.clamp = {"default": param.clamp["default"], "max": 10**9}
    return app


DRIFTS = {
    "dropped-required-field": (
        lambda app: Drifted(app, response=drop_display_status),
        ["spec.schema", "display_status"],
    ),
    "wrong-status-code": (
        lambda app: Drifted(app, response=bug_reports_answer_200),
        ["spec.status", "POST /v1/bug-reports"],
    ),
    "ignored-if-match": (
        lambda app: Drifted(app, request=drop_request_header(b"if-match", method="PATCH")),
        ["etag.if_match", "PATCH /v1/runs/{id}"],
    ),
    "unclamped-page": (unclamped, ["pagination.clamp", "GET /v1/runs"]),
    "missing-required-scope": (
        lambda app: Drifted(app, response=drop_required_scope),
        ["scopes.enforced", "required_scope"],
    ),
    "sse-ignores-last-event-id": (
        lambda app: Drifted(
            app,
            request=chain(
                drop_request_header(b"last-event-id", ":stream"), drop_query_parameter("last_event_id", ":stream")
            ),
        ),
        ["sse.resume", "GET /v1/runs/{id}/events:stream"],
    ),
}


# end to end (the CLI's exit status, the report naming the claim, a redacted curl line), nightly: per commit,
# the catalogues of tests/drift catch each of these under its claim (scopes.enforced, etag.if_match,
# pagination.clamp, sse.resume, spec.schema; bug reports' statuses in test_benchwright_resources), and
# tests/engine/test_toy_contract.py runs the CLI end to end on a drifted API
PER_COMMIT: tuple[str, ...] = ()


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=() if name in PER_COMMIT else pytest.mark.slow) for name in DRIFTS]
)
def test_the_suite_fails_and_names_the_drift(tmp_path, name):
    wrap, must_mention = DRIFTS[name]
    with LiveServer(wrap(create_app())) as server:
        code, report, output = run_suite(tmp_path, server.url)
    assert code == 1, f"{name}: exit {code}\n{output}"
    for text in must_mention:
        assert text in report, f"{name}: the drift report does not mention {text!r}\n{report[:3000]}"
    assert "curl " in report and "bw_live_pat_" not in report  # reproducible, and tokens redacted


@pytest.mark.slow  # per commit, .ci/run's make contract SEEDS=N runs the unmodified mock under fixed seeds
@pytest.mark.parametrize("seed", [1, 2])
def test_the_unmodified_mock_passes_with_any_seed(tmp_path, seed):
    code, report, output = run_suite(tmp_path, None, "--seed", str(seed))
    assert code == 0, f"seed {seed}: exit {code}\n{report[:3000]}\n{output}"
    assert "No drift" in report


def test_plan_mode_calls_nothing(tmp_path):
    """A plan lists what would run against a live target, and which operations the safety layer holds back."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BW_")}
    env["BW_API_URL"] = "http://127.0.0.1:9"  # nothing listens there: a request would fail the command
    proc = subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", "--plan"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "SKIPPED: spends money" in proc.stdout and "SKIPPED: destroys data" in proc.stdout
    assert "DELETE /v1/runs/{id}" in proc.stdout


@pytest.mark.slow  # per commit: tests/modes' benchwright-production case, the same run and assertions
def test_live_targets_are_safe_by_default(tmp_path):
    """Against a deployment without the mock's control surface (someone's account),
    the suite sends nothing but safe reads unless the user opts in (production mode);
    what it could not check is listed with the reason."""
    app = create_app(control=False)
    mock = app.state.mock
    owner = mock.store.users[mock.store.default_user_id]
    owner.quota_overrides = {"read_rpm": 10**9, "write_rpm": 10**9}
    _, pat = mock.store.add_token(owner.id, all_scopes(mock), label="staging")
    recorder = Recorder(app)
    with LiveServer(recorder) as server:
        code, report, output = run_suite(tmp_path, server.url, "--max-requests", "100000", pat=pat)
    assert code == 0, f"exit {code}\n{report[:3000]}\n{output}"
    written = {(method, path) for method, path in recorder.calls if method not in ("GET", "HEAD", "OPTIONS")}
    assert not written, f"a live account was written to without an opt-in: {sorted(written)}"
    assert "Not checked here" in report and "--allow-spend" in report and "control surface" in report
