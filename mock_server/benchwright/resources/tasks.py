"""Tasks and results (§7): per-task rows, the run's summary, and task payloads.

A row is one `MaterializeTaskResult` event: one trial of one benchmark index in
one materialize invocation. A later event for the same (invocation, index,
trial) is a retry and supersedes the earlier attempt; `include_retries=true`
keeps the superseded ones too.

"`summary` is computed from a different row set than `data`" (§7.1): the
`MaterializeTaskAggregated` rows when the run produced them (trials folded into
one score per task), otherwise the final per-trial rows with errored ones
filtered out. The error-class counts and durations come from the final
per-trial rows, since aggregated rows carry neither.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.events import decode_natural_id, natural_id, public_data
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import not_found
from mock_server.state.clock import epoch_ms, rfc3339

SLIM_DROPS = ("id", "run_id", "output_preview", "passed", "meta", "links")  # §7.1: six fields, not two
PAYLOAD_ROW_FIELDS = (
    *("id", "run_id", "invocation", "index", "trial", "task_id"),
    *("meta", "score", "passed", "duration_ms", "error", "error_class"),
)


def _key(event: dict[str, Any]) -> tuple[int, int, int]:
    data = event["data"]
    return data.get("invocation", 1), data["index"], data.get("trial", 0)


def results(run: Run, *, retries: bool = False) -> list[dict[str, Any]]:
    """The run's result events in (index, trial, seq) order; without `retries`
    only the final attempt per (invocation, index, trial)."""
    events = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    if not retries:
        final = {_key(e): e for e in events}
        events = list(final.values())
    return sorted(events, key=lambda e: (*_key(e)[1:], e["seq"]))


def error_class(ctx: Ctx, data: dict[str, Any]) -> str:
    """§7.1: derived, never null; one of the spec's `TaskErrorClass` buckets."""
    buckets = ctx.api.spec["components"]["schemas"]["TaskErrorClass"]["enum"]
    stated = data.get("error_class")
    if stated in buckets:
        return stated
    return "other" if data.get("error") else "ok"


def passed(score: Any) -> bool:
    return isinstance(score, int | float) and score >= 1.0


def task_row(ctx: Ctx, run: Run, event: dict[str, Any]) -> dict[str, Any]:
    data = public_data(event["data"])
    invocation, index, trial = _key(event)
    task_id = natural_id(run.id, invocation, index)
    created = event.get("created_at")
    return {
        "id": task_id,
        "run_id": run.id,
        "invocation": invocation,
        "index": index,
        "trial": trial,
        "task_id": data.get("task_id") or f"task_{index}",
        "output_preview": data.get("output_preview") or "",
        "score": data.get("score"),
        "passed": passed(data.get("score")),
        "duration_ms": data.get("duration_ms"),
        "error": data.get("error"),
        "error_class": error_class(ctx, data),
        "timestamp": epoch_ms(created) if created else 0,
        "meta": data.get("meta") or {},
        "links": {"payload": f"/v1/runs/{run.id}/tasks/{task_id}/payload"},
    }


def invocations(run: Run) -> list[int]:
    return sorted({_key(e)[0] for e in results(run, retries=True)})


def _percentile(values: list[int], fraction: float) -> int:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(ctx: Ctx, run: Run, invocation: int) -> dict[str, Any]:
    finals = [task_row(ctx, run, e) for e in results(run) if _key(e)[0] == invocation]
    aggregated = {
        e["data"]["index"]: e["data"]
        for e in run.events
        if e["type"] == "MaterializeTaskAggregated" and e["data"].get("invocation", 1) == invocation
    }
    if aggregated:
        scores = [data.get("score") for data in aggregated.values()]
    else:
        scores = [row["score"] for row in finals if row["error_class"] == "ok"]
    wins = sum(1 for score in scores if passed(score))
    errors: dict[str, int] = {}
    for row in finals:
        if row["error_class"] != "ok":
            errors[row["error_class"]] = errors.get(row["error_class"], 0) + 1
    out: dict[str, Any] = {
        "total": len(scores),
        "passed": wins,
        "failed": len(scores) - wins,
        "pass_rate": round(wins / len(scores), 4) if scores else 0.0,
        "invocation": invocation,
        "invocation_count": len(invocations(run)),
        "error_class_counts": errors,
    }
    durations = [row["duration_ms"] for row in finals if isinstance(row["duration_ms"], int)]
    if durations:
        out["duration_ms_p50"] = _percentile(durations, 0.50)
        out["duration_ms_p95"] = _percentile(durations, 0.95)
    if run.trials > 1:
        attempts: dict[int, int] = {}
        for event in results(run, retries=True):
            if _key(event)[0] == invocation:
                attempts[_key(event)[1]] = attempts.get(_key(event)[1], 0) + 1
        out["trials"] = run.trials
        out["attempts_per_task"] = max(attempts.values(), default=run.trials)
        out["aggregator"] = next(
            (data["aggregator"] for data in aggregated.values() if data.get("aggregator")),
            run.aggregator or "any_pass",
        )
    return out


@handler("listRunTasks")
async def list_run_tasks(ctx: Ctx) -> Reply:
    """§7.1. No sort, no limit: the full set in one response, `has_more` false."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    known = invocations(run)
    latest = known[-1] if known else 1
    wanted = ctx.query.get("version")
    invocation = latest if wanted is None or wanted > latest else wanted
    rows = [
        task_row(ctx, run, e)
        for e in results(run, retries=ctx.query.get("include_retries") == "true")
        if _key(e)[0] == invocation
    ]
    if ctx.query.get("passed") is not None:
        rows = [row for row in rows if row["passed"] is ctx.query["passed"]]
    if ctx.query.get("error_class") is not None:
        rows = [row for row in rows if row["error_class"] == ctx.query["error_class"]]
    if ctx.query.get("slim") == "1":
        rows = [{k: v for k, v in row.items() if k not in SLIM_DROPS} for row in rows]
    return Reply({"data": rows, "pagination": {"has_more": False}, "summary": summary(ctx, run, invocation)})


# -- payload (§7.2) ----------------------------------------------------------------


def _record(ctx: Ctx, run: Run, event: dict[str, Any]) -> dict[str, Any]:
    """The full record. `input`, `expected`, `output` and `raw_output` are the
    event's own when it carries them, else derived deterministically from it;
    `passed`, `error_class` and `atif` are computed per request (§7.2)."""
    row = task_row(ctx, run, event)
    data = public_data(event["data"])
    index = row["index"]
    output = data.get("output", row["output_preview"])
    answer = re.search(r"\(([A-D])\)", output) if isinstance(output, str) else None
    letter = answer.group(1) if answer else "ABCD"[index % 4]
    expected = letter if row["passed"] else "ABCD"[("ABCD".index(letter) + 1) % 4]
    duration = row["duration_ms"] or 0
    finished = event["created_at"]
    started = finished.timestamp() * 1000 - duration
    record = {key: row[key] for key in PAYLOAD_ROW_FIELDS}
    record.update(
        input=data.get(
            "input",
            {"question": f"{run.benchmark_name} item {index}: which option is correct?", "choices": list("ABCD")},
        ),
        expected=data.get("expected", expected),
        output=output,
        raw_output=data.get("raw_output", f"Working through {row['task_id']} step by step.\n{output}"),
        atif={"started_at_ms": int(started), "finished_at_ms": epoch_ms(finished), "duration_ms": duration},
        created_at=rfc3339(finished),
    )
    record["size_bytes"] = len(orjson.dumps(record).decode())
    return record


def _score_of(event: dict[str, Any]) -> float:
    score = event["data"].get("score")
    return float(score) if isinstance(score, int | float) else -math.inf


@handler("getRunTaskPayload")
async def get_run_task_payload(ctx: Ctx) -> Reply:
    """§7.2: `?trial=N` pins a trial; omitted, the BEST-scoring trial (ties: the
    lowest trial). `?raw=0` drops `raw_output`."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    parts = decode_natural_id(ctx.path["tsk_id"], 3)
    if parts is None or parts[0] != run.id:
        raise not_found("Task")
    invocation, index = int(parts[1]), int(parts[2])
    trials = [e for e in results(run) if _key(e)[:2] == (invocation, index)]
    if ctx.query.get("trial") is not None:
        trials = [e for e in trials if _key(e)[2] == ctx.query["trial"]]
    if not trials:
        raise not_found("Task")
    best = max(trials, key=lambda e: (_score_of(e), -_key(e)[2]))
    record = _record(ctx, run, best)
    if ctx.query.get("raw") == "0":
        del record["raw_output"]
    return Reply(record)
