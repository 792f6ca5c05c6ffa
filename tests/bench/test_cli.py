"""trybench-sdk's `bench eval` CLI (`bench_sdk/cli.py`) and the `EvaluationClient` under it
(`bench_sdk/evaluations.py`), unmodified, against `bench_mock`: every command exits 0 on a run the mock
finished, printing the fields it reads; each result is read back through the platform API. The reference
names long work as background runs polled explicitly (C-63) and spending as the user's approval (C-49);
the shapes are the client's (docs/interpretations.md, Bench: runtime evaluation runs)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_sdk import EvaluationClient, EvaluationPolicy, EvaluationResult
from bench_sdk import cli as bench_cli

from .sdk_helpers import SYSTEM, Mock, covers, platform

pytestmark = pytest.mark.http
SECONDS_PER_TRIAL = 2  # spec-free pacing of the mock's trials; the tests move the clock past it generously


def _plan(gain: float, *, configurations: int = 2, max_trials: int = 20) -> dict[str, Any]:
    policy: EvaluationPolicy = {"repetitions": 1, "minimum_quality_gain": gain}
    return {
        "cases": [
            {"id": "c1", "input": "refund after 12 days"},
            {"id": "c2", "input": "refund after 45 days"},
            {"id": "c3", "input": "held out", "split": "confirmation"},
        ],
        "configurations": [
            {"id": cid, "model": model}
            for cid, model in [("current", "gpt-4.1"), ("candidate", "gpt-4.1-mini"), ("third", "claude-haiku-4")][
                :configurations
            ]
        ],
        "budget": {"max_trials": max_trials},
        "policy": policy,
    }


class Cli:
    """`bench eval ...` in-process, as its console entry point runs it (`sys.exit(main())`)."""

    def __init__(self, mock: Mock, capsys, monkeypatch, tmp_path: Path) -> None:
        self.mock, self.capsys, self.tmp = mock, capsys, tmp_path
        monkeypatch.setenv("BENCH_API_KEY", mock.credentials["BENCH_API_KEY"])
        monkeypatch.setenv("BENCH_API_URL", mock.url)
        self.monkeypatch = monkeypatch

    def __call__(self, *args: str) -> tuple[int, str]:
        self.monkeypatch.setattr(sys, "argv", ["bench", "eval", *args])
        code = bench_cli.main()
        out, err = self.capsys.readouterr()
        assert code != 0 or not err, err
        return code, out

    def json(self, *args: str) -> Any:
        code, out = self(*args, "--system", str(SYSTEM))
        assert code == 0, out
        return json.loads(out)

    def plan(self, spec: dict[str, Any]) -> str:
        path = self.tmp / "plan.json"
        path.write_text(json.dumps(spec))
        return self.json("plan", "--file", str(path))["plan"]["id"]

    def finished_run(self, spec: dict[str, Any], key: str) -> str:
        run_id = self.json("run", self.plan(spec), "--key", key)["run"]["id"]
        self.mock.control.advance_clock(3600)
        return run_id


@pytest.fixture
def bench(bench_mock: Mock, capsys, monkeypatch, tmp_path) -> Cli:
    return Cli(bench_mock, capsys, monkeypatch, tmp_path)


def _served(mock: Mock, run_id: str) -> dict[str, Any]:
    return platform(mock).call("runtime_eval_results", path={"id": SYSTEM, "runID": run_id})


def _decision(result: dict[str, Any], gain: float) -> str:
    """The decision recomputed from the served comparisons (model: a candidate gains at least `gain`)."""
    deltas = [c["delta"] for c in result["comparisons"]]
    return (
        "insufficient_evidence" if not deltas else "validated_improvement" if max(deltas) >= gain else "no_improvement"
    )


@covers(
    "cli:bench eval plan",
    "cli:bench eval run",
    "cli:bench eval status",
    "cli:bench eval results",
    "cli:bench eval watch",
    "cli:--system",
    "cli:--file",
    "cli:--key",
    "cli:--after",
    "evaluations:EvaluationClient.plan",
    "evaluations:EvaluationClient.run",
    "evaluations:EvaluationClient.status",
    "evaluations:EvaluationClient.events",
    "evaluations:EvaluationPolicy",
)
def test_plan_run_watch_and_status(bench: Cli, bench_mock: Mock):
    """C-63: a background run polled explicitly: run is idempotent by key; watch prints each event with its
    cursor and ends on the finished status; status and results print the status and result served."""
    plan_id = bench.plan(_plan(-1.0))
    run = bench.json("run", plan_id, "--key", "cli-run-key-1")["run"]
    assert bench.json("run", plan_id, "--key", "cli-run-key-1")["run"]["id"] == run["id"]  # no second run
    early = bench.json("status", run["id"])
    assert early["status"] in ("queued", "running") and early["completed_trials"] < 6 and early["decision"] is None
    bench_mock.control.advance_clock(6 * SECONDS_PER_TRIAL + 1)  # 3 cases x 2 configurations x 1 repetition
    code, out = bench("watch", run["id"], "--system", str(SYSTEM))
    lines = [json.loads(line) for line in out.splitlines()]
    served = platform(bench_mock).call(
        "runtime_eval_events", path={"id": SYSTEM, "runID": run["id"], "action": "events"}
    )
    assert code == 0 and lines[:-1] == served["events"]
    assert [e["type"] for e in lines[:-1]] == ["queued", "started", "completed"]
    assert lines[-1] == {"status": "completed", "next_cursor": served["events"][-1]["cursor"]}
    code, out = bench("watch", run["id"], "--system", str(SYSTEM), "--after", "2")
    assert code == 0 and [json.loads(line).get("type") for line in out.splitlines()] == ["completed", None]
    for command in ("status", "results"):
        printed = bench.json(command, run["id"])
        assert printed == _served(bench_mock, run["id"])
        assert (printed["status"], printed["completed_trials"]) == ("completed", 6)
        assert sum(m["trials"] for m in printed["result"]["metrics"].values()) == 6


@covers(
    "cli:bench eval compare",
    "cli:bench eval export",
    "cli:bench eval gate",
    "cli:--format",
    "cli:--output",
    "cli:--json",
    "cli:--api",
)
def test_compare_export_and_gate(bench: Cli, bench_mock: Mock, tmp_path: Path):
    """compare prints the comparisons, export writes JSON, CSV and Markdown of the result, gate exits 0 on a
    validated improvement, 2 on no improvement, 3 without the evidence (the client's vocabulary); each
    decision agrees with a model recomputed from the served comparisons."""
    passing = bench.finished_run(_plan(-1.0), "gate-pass-key")
    served = _served(bench_mock, passing)
    assert served["result"]["decision"] == _decision(served["result"], -1.0) == "validated_improvement"
    assert bench.json("compare", passing, "--json") == served["result"]["comparisons"]
    (comparison,) = served["result"]["comparisons"]
    metrics = served["result"]["metrics"]
    assert comparison["delta"] == round(metrics["candidate"]["quality"] - metrics["current"]["quality"], 3)

    code, _ = bench("export", passing, "--system", str(SYSTEM), "--format", "csv", "--output", str(tmp_path / "r.csv"))
    rows = [row for row in csv.reader(io.StringIO((tmp_path / "r.csv").read_text())) if row]
    expected = [[c, k, str(v)] for c, m in metrics.items() for k, v in m.items()]
    assert code == 0 and rows == [["configuration", "metric", "value"], *expected]
    code, out = bench("export", passing, "--system", str(SYSTEM), "--format", "markdown")
    assert code == 0 and f"# Bench runtime evaluation {passing}" in out
    assert "Status: completed" in out and "Decision: validated_improvement" in out
    assert bench.json("export", passing, "--format", "json", "--api", bench_mock.url) == served
    assert bench("gate", passing, "--system", str(SYSTEM))[0] == 0

    failing = bench.finished_run(_plan(2.0), "gate-fail-key")
    assert _served(bench_mock, failing)["result"]["decision"] == "no_improvement"
    assert bench("gate", failing, "--system", str(SYSTEM))[0] == 2
    alone = bench.finished_run(_plan(0.0, configurations=1), "gate-alone-key")
    assert _served(bench_mock, alone)["result"] == {
        "decision": "insufficient_evidence",
        "comparisons": [],
        "metrics": {
            "current": {
                "trials": 3,
                "cost_usd": 0.006,
                "duration_s": 6.0,
                "quality": _served(bench_mock, alone)["result"]["metrics"]["current"]["quality"],
            }
        },
    }
    assert bench("gate", alone, "--system", str(SYSTEM))[0] == 3


@covers(
    "cli:bench eval cancel",
    "cli:bench eval resume",
    "cli:--extend-cost",
    "cli:--extend-trials",
    "cli:--extend-seconds",
    "cli:--retry-ambiguous-attempt",
    "evaluations:EvaluationClient.cancel",
    "evaluations:EvaluationClient.resume",
)
def test_cancel_and_resume(bench: Cli, bench_mock: Mock):
    """resume continues a budget-paused run with more budget (or an acknowledged retry), and resumes a
    canceled one; the continued run completes and gates like any other."""
    plan_id = bench.plan(_plan(-1.0, max_trials=2))
    paused = bench.json("run", plan_id, "--key", "pause-key-01")["run"]["id"]
    bench_mock.control.advance_clock(3600)
    assert _served(bench_mock, paused)["status"] == "paused"
    assert bench("gate", paused, "--system", str(SYSTEM))[0] == 3
    extend = ["--extend-trials", "10", "--extend-cost", "1.5", "--extend-seconds", "60"]
    resumed = bench.json("resume", paused, "--key", "resume-key-01", *extend)
    assert resumed["run"]["status"] == "running"
    bench_mock.control.advance_clock(3600)
    assert _served(bench_mock, paused)["status"] == "completed"
    assert bench("gate", paused, "--system", str(SYSTEM))[0] == 0

    again = bench.json("run", plan_id, "--key", "pause-key-02")["run"]["id"]
    bench_mock.control.advance_clock(3600)
    retried = bench.json("resume", again, "--key", "resume-key-02", "--retry-ambiguous-attempt")
    assert retried["run"]["status"] == "running"

    third = bench.json("run", plan_id, "--key", "cancel-key-01")["run"]["id"]
    assert bench.json("cancel", third)["run"]["status"] == "canceled"
    assert _served(bench_mock, third)["status"] == "canceled"
    assert bench("gate", third, "--system", str(SYSTEM))[0] == 1
    assert bench.json("resume", third, "--key", "resume-key-03")["run"]["status"] == "running"
    events = platform(bench_mock).call("runtime_eval_events", path={"id": SYSTEM, "runID": third, "action": "events"})
    assert [e["type"] for e in events["events"]][-2:] == ["canceled", "resumed"]


@covers(
    "cli:bench eval review",
    "cli:bench eval candidates",
    "cli:--case",
    "cli:--verdict",
    "cli:--note",
    "cli:--run",
    "cli:--providers",
    "cli:--domains",
    "evaluations:EvaluationClient.review_cases",
    "evaluations:EvaluationClient.review",
    "evaluations:EvaluationClient.candidates",
)
def test_review_and_candidates(bench: Cli, bench_mock: Mock):
    """review lists development cases only and records a verdict; candidates proposes unverified models of
    the allowed providers that the plan does not measure yet."""
    plan_id = bench.plan(_plan(0.0))
    assert [c["id"] for c in bench.json("review", plan_id)["items"]] == ["c1", "c2"]  # c3 is confirmation
    review = bench.json("review", plan_id, "--case", "c2", "--verdict", "bad", "--note", "too lenient")["review"]
    assert (review["case_id"], review["verdict"], review["note"]) == ("c2", "bad", "too lenient")
    listed = platform(bench_mock).call("runtime_eval_review_cases", path={"id": SYSTEM, "planID": plan_id})
    assert [c["review"] and c["review"]["verdict"] for c in listed["items"]] == [None, "bad"]
    run_id = bench.finished_run(_plan(0.0), "candidates-key")
    found = bench.json(
        "candidates", plan_id, "--run", run_id, "--providers", "openai,anthropic", "--domains", "support"
    )
    models = {(c["provider"], c["model"]) for c in found["candidates"]}
    # openai's two models are both measured by the plan already; google and mistral are not allowed
    assert models == {("anthropic", "claude-sonnet-4"), ("anthropic", "claude-haiku-4")}
    assert all(c["verified"] is False for c in found["candidates"])


@covers("evaluations:EvaluationClient.get_plan", "evaluations:EvaluationResult")
def test_evaluation_client_reads_a_plan_and_a_result(bench_mock: Mock):
    """The library under the CLI: get_plan returns counts without confirmation content; status carries every
    key of the client's EvaluationResult."""
    client = EvaluationClient(bench_mock.url, bench_mock.credentials["BENCH_API_KEY"], SYSTEM)
    plan = client.plan(_plan(0.0))["plan"]
    got = client.get_plan(plan["id"])["plan"]
    assert got == plan and got["counts"]["confirmation"] == 1 and "cases" not in got
    run_id = client.run(plan["id"], "library-key-1")["run"]["id"]
    bench_mock.control.advance_clock(3600)
    status = client.status(run_id)
    assert set(EvaluationResult.__annotations__) <= set(status)
    assert (status["schema_version"], status["phase"], status["completed_trials"]) == (1, "done", 6)


def test_the_cli_as_a_program(bench_mock: Mock, tmp_path: Path):
    """`python -m bench_sdk.cli` with only the environment pointing at the mock (BENCH_API_URL, BENCH_API_KEY)."""
    env = {"BENCH_API_URL": bench_mock.url, "BENCH_API_KEY": bench_mock.credentials["BENCH_API_KEY"], "PATH": ""}
    spec = tmp_path / "plan.json"
    spec.write_text(json.dumps(_plan(0.0)))
    args = [sys.executable, "-m", "bench_sdk.cli", "eval", "plan", "--system", str(SYSTEM), "--file", str(spec)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    plan_id = json.loads(done.stdout)["plan"]["id"]
    assert (
        platform(bench_mock).call("runtime_eval_get_plan", path={"id": SYSTEM, "planID": plan_id})["plan"]["id"]
        == plan_id
    )
    refused = subprocess.run(
        args,
        env={**env, "BENCH_API_KEY": "bench_dev_key_revoked"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 1 and "401" in json.loads(refused.stderr)["error"]
