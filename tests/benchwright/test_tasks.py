"""§7 tasks: the per-task rows and summary (§7.1) and the task payload (§7.2)."""

from __future__ import annotations

import base64

from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources.events import natural_id

TRIALS = RUN_IDS["ok_public"]  # k=3, aggregator mean
SINGLE = RUN_IDS["ok_unlisted"]  # one trial per task, 6 tasks
SIX_DROPPED = {"id", "run_id", "output_preview", "passed", "meta", "links"}


def _tasks(api, run_id: str, query: str = "") -> dict:
    response = api.get(f"/v1/runs/{run_id}/tasks{query}")
    assert response.status_code == 200, response.text
    return response.json()


def _result(api, run_id: str, index: int, **data) -> dict:
    run = pipeline.get_run(api.mock.store, run_id)
    body = {
        "task_id": f"task_{index}",
        "index": index,
        "trial": 0,
        "invocation": 1,
        "score": 0.0,
        "duration_ms": 500,
        "output_preview": "The answer is (C).",
        "error": None,
        "error_class": "ok",
        **data,
    }
    return pipeline.emit(api.mock.store, run, "MaterializeTaskResult", body)


def test_7_1_one_row_per_trial_with_derived_fields(api):
    body = _tasks(api, TRIALS)
    run = pipeline.get_run(api.mock.store, TRIALS)
    events = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    assert len(body["data"]) == len(events) == 18
    assert body["pagination"] == {"has_more": False}
    by_key = {(e["data"]["index"], e["data"]["trial"]): e for e in events}
    for row in body["data"]:
        event = by_key[(row["index"], row["trial"])]
        assert row["passed"] is (row["score"] >= 1.0)
        assert row["timestamp"] == int(event["created_at"].timestamp() * 1000)
        assert row["error_class"] == "ok" and row["error"] is None
        assert base64.urlsafe_b64decode(row["id"] + "==").decode() == f"{TRIALS}:1:{row['index']}"
        assert row["links"]["payload"] == f"/v1/runs/{TRIALS}/tasks/{row['id']}/payload"
    assert [(r["index"], r["trial"]) for r in body["data"]] == sorted(by_key)


def test_7_1_summary_prefers_aggregated_rows_and_describes_trials(api):
    """§7.1: `summary.total` is per task (aggregated), not `data.length` (per trial)."""
    body = _tasks(api, TRIALS)
    run = pipeline.get_run(api.mock.store, TRIALS)
    folded = [e["data"]["score"] for e in run.events if e["type"] == "MaterializeTaskAggregated"]
    summary = body["summary"]
    assert summary["total"] == len(folded) == 6 != len(body["data"])
    assert summary["passed"] == sum(1 for s in folded if s >= 1.0)
    assert summary["failed"] == 6 - summary["passed"]
    assert summary["pass_rate"] == round(summary["passed"] / 6, 4)
    assert (summary["trials"], summary["attempts_per_task"], summary["aggregator"]) == (3, 3, "mean")
    assert (summary["invocation"], summary["invocation_count"]) == (1, 1)
    durations = sorted(r["duration_ms"] for r in body["data"])
    assert summary["duration_ms_p50"] == durations[8] and summary["duration_ms_p95"] == durations[17]


def test_7_1_single_trial_summary_has_no_trial_fields(api):
    summary = _tasks(api, SINGLE)["summary"]
    assert summary["total"] == 6
    assert not {"trials", "attempts_per_task", "aggregator"} & set(summary)


def test_7_1_summary_omits_percentiles_without_durations(api):
    summary = _tasks(api, RUN_IDS["killed"])["summary"]
    assert summary["total"] == 0 and summary["invocation_count"] == 0
    assert "duration_ms_p50" not in summary and "duration_ms_p95" not in summary


def test_7_1_retries_supersede_and_errored_rows_leave_the_summary(api):
    """§7.1: the final attempt per index by default; `include_retries=true` keeps the rest."""
    _result(api, SINGLE, 1, score=0.0, error="attempt timed out after 600s", error_class="timeout")
    rows = _tasks(api, SINGLE)["data"]
    assert len(rows) == 6
    retried = next(r for r in rows if r["index"] == 1)
    assert (retried["error_class"], retried["passed"]) == ("timeout", False)
    both = [r for r in _tasks(api, SINGLE, "?include_retries=true")["data"] if r["index"] == 1]
    assert [r["error_class"] for r in both] == ["ok", "timeout"]
    summary = _tasks(api, SINGLE)["summary"]
    assert summary["total"] == 5
    assert summary["error_class_counts"] == {"timeout": 1}


def test_7_1_include_retries_matches_only_the_literal_true(api):
    _result(api, SINGLE, 2, error="boom", error_class="code_error")
    for value in ("1", "yes", "TRUE"):
        assert len(_tasks(api, SINGLE, f"?include_retries={value}")["data"]) == 6, value
    assert len(_tasks(api, SINGLE, "?include_retries=true")["data"]) == 7


def test_7_1_error_class_is_derived_and_filterable(api):
    _result(api, SINGLE, 3, error="something odd", error_class=None)
    _result(api, SINGLE, 4, error=None, error_class=None)
    rows = {r["index"]: r for r in _tasks(api, SINGLE)["data"]}
    assert rows[3]["error_class"] == "other" and rows[4]["error_class"] == "ok"
    assert [r["index"] for r in _tasks(api, SINGLE, "?error_class=other")["data"]] == [3]
    assert len(_tasks(api, SINGLE, "?error_class=ok")["data"]) == 5
    bad = api.get(f"/v1/runs/{SINGLE}/tasks?error_class=bogus")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_argument"


def test_7_1_passed_filter(api):
    everything = _tasks(api, TRIALS)["data"]
    passing = _tasks(api, TRIALS, "?passed=true")["data"]
    failing = _tasks(api, TRIALS, "?passed=false")["data"]
    assert passing and failing
    assert all(r["passed"] for r in passing) and not any(r["passed"] for r in failing)
    assert len(passing) + len(failing) == len(everything)


def test_7_1_version_selects_an_invocation_and_clamps_to_the_latest(api):
    for index in (0, 1):
        _result(api, SINGLE, index, invocation=2, score=1.0)
    latest = _tasks(api, SINGLE)
    assert {r["invocation"] for r in latest["data"]} == {2} and len(latest["data"]) == 2
    assert (latest["summary"]["invocation"], latest["summary"]["invocation_count"]) == (2, 2)
    assert latest["summary"]["total"] == 2 and latest["summary"]["pass_rate"] == 1.0
    first = _tasks(api, SINGLE, "?version=1")
    assert {r["invocation"] for r in first["data"]} == {1} and len(first["data"]) == 6
    assert first["summary"]["invocation"] == 1
    assert _tasks(api, SINGLE, "?version=99") == latest
    assert api.get(f"/v1/runs/{SINGLE}/tasks?version=0").status_code == 400


def test_7_1_slim_drops_exactly_six_fields(api):
    full = _tasks(api, TRIALS)["data"]
    slim = _tasks(api, TRIALS, "?slim=1")["data"]
    assert len(slim) == len(full)
    for wide, narrow in zip(full, slim, strict=True):
        assert set(wide) - set(narrow) == SIX_DROPPED
        assert narrow == {k: v for k, v in wide.items() if k not in SIX_DROPPED}
    assert _tasks(api, TRIALS, "?slim=0")["data"] == full


def test_7_2_payload_defaults_to_the_best_scoring_trial(api):
    """§7.2: omit `trial` and you get the best-scoring trial, not trial 0 or the last."""
    for trial, score in enumerate((0.0, 1.0, 0.0)):
        _result(api, TRIALS, 6, trial=trial, score=score, output_preview=f"The answer is ({'ABC'[trial]}).")
    url = f"/v1/runs/{TRIALS}/tasks/{natural_id(TRIALS, 1, 6)}/payload"
    payload = api.get(url).json()
    assert (payload["trial"], payload["score"], payload["passed"]) == (1, 1.0, True)
    assert payload["output"] == "The answer is (B)." and payload["expected"] == "B"
    pinned = api.get(url + "?trial=0").json()
    assert (pinned["trial"], pinned["passed"], pinned["output"]) == (0, False, "The answer is (A).")
    assert pinned["expected"] != "A"


def test_7_2_payload_fields_and_raw_0(api):
    row = _tasks(api, SINGLE)["data"][0]
    payload = api.get(row["links"]["payload"]).json()
    for key in ("id", "run_id", "invocation", "index", "trial", "task_id", "score", "duration_ms", "error_class"):
        assert payload[key] == row[key], key
    assert payload["output"] == row["output_preview"]
    assert row["output_preview"] in payload["raw_output"]
    assert payload["expected"] in "ABCD" and payload["input"]["question"]
    assert payload["atif"]["duration_ms"] == row["duration_ms"]
    assert payload["size_bytes"] > len(payload["raw_output"])
    again = api.get(row["links"]["payload"]).json()
    assert again == payload
    lean = api.get(row["links"]["payload"] + "?raw=0").json()
    assert "raw_output" not in lean and lean["output"] == payload["output"]
    assert "raw_output" in api.get(row["links"]["payload"] + "?raw=false").json()


def test_7_2_unknown_task_ids_are_404(api):
    other_task = _tasks(api, SINGLE)["data"][0]["id"]
    for task_id in (natural_id(TRIALS, 1, 99), natural_id(TRIALS, 7, 0), other_task, "Zm9v"):
        response = api.get(f"/v1/runs/{TRIALS}/tasks/{task_id}/payload")
        assert response.status_code == 404, task_id
        assert response.json()["code"] == "not_found"
    missing_trial = api.get(f"/v1/runs/{TRIALS}/tasks/{natural_id(TRIALS, 1, 0)}/payload?trial=3")
    assert missing_trial.status_code == 404


def test_2_2_anonymous_reads_tasks_of_public_runs_only(anon):
    body = _tasks(anon, TRIALS)
    assert anon.get(body["data"][0]["links"]["payload"]).status_code == 200
    hidden = anon.get(f"/v1/runs/{RUN_IDS['error']}/tasks")
    assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"
