"""§4.2.1's ceilings: the `limits` levels, their pre-`limits` spellings, and `metadata.proxy_linger_seconds`.

- `run` and `phase` ceilings stop the run (§4.2.1#19, #20), a run-level one with
  `halt_reason=limit_exceeded:<level>.<quantity>` (#21); `phase:<name>` overrides `phase` for that
  phase alone (#22); `run.cost` compares `cost.incurred`, model spend included, so it fires while
  `cost.billed` is still under it (#25).
- A `task` ceiling stops only that task: recorded failed, the other tasks carry on, the run is not
  halted (#23), and the task is never retried (#24).
- The pre-`limits` spellings mean the same ceilings in their own units: `constraints.max_cost_cents`
  (#26), `constraints.max_duration_ms` (#27), `constraints.max_tasks` (#28), and
  `metadata.task_timeout_sec`, which bounds one try (`attempt.duration`, #29).
- `metadata.proxy_linger_seconds` keeps the proxy that long after the run finishes (#30), silently
  clamped to the spec's `x-clamp` (#31 above, #32 below), as the run's `ProxySandboxLinger` event shows.

Mock only: the runs must finish, which the simulated clock makes quick, and each ceiling is set from
what an unbounded twin of the run spent, read first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from contracts.benchwright.suite._support import LAUNCH, advance, body_of, expect
from contracts.benchwright.suite.conftest import BUNDLE, require

RUN = "GET /v1/runs/{id}"
LIMIT_EXCEEDED = "limit_exceeded:"
LINGER = BUNDLE["components"]["schemas"]["LaunchRequest"]["properties"]["metadata"]["properties"][
    "proxy_linger_seconds"
]["x-clamp"]


def _launch(client, change: dict[str, Any], clause: str) -> str:
    response = client.post("/v1/runs", json={**LAUNCH, **change})
    expect(response.status_code == 202, clause, "POST /v1/runs", f"{change} answered {response.status_code}", response)
    return (body_of(response) or {}).get("id")


def _finished(
    client, target, changes: dict[str, dict[str, Any]], clauses: dict[str, str] | None = None
) -> dict[str, tuple[dict[str, Any], Any]]:
    """Launch each change (refused, it breaks its clause in `clauses`, else §4.2.1#1), let the runs finish,
    and read each with its phase breakdown."""
    launched = {
        name: _launch(client, change, (clauses or {}).get(name, "§4.2.1#1")) for name, change in changes.items()
    }
    advance(target, 600)
    out = {}
    for name, run_id in launched.items():
        read = client.get(f"/v1/runs/{run_id}", params={"expand": "phase_breakdown"})
        out[name] = (body_of(read) or {}, read)
    return out


def _phases(run: dict[str, Any]) -> set[str]:
    return {str(row.get("phase")) for row in run.get("phase_breakdown") or []}


def _stopped(run: dict[str, Any]) -> bool:
    """Halted and ended, before Report started."""
    return run.get("halted") is True and run.get("status") == "error" and "report" not in _phases(run)


def _limit_halted(run: dict[str, Any], *reasons: str) -> bool:
    return run.get("halted") is True and str(run.get("halt_reason")) in reasons


def _usd(run: dict[str, Any], entry: str) -> float:
    return float(((run.get("cost") or {}).get(entry) or {}).get("amount_usd") or 0.0)


def test_run_and_phase_ceilings_stop_the_run(client, target, policy, mock_only):
    """§4.2.1#19 a run ceiling stops the run, §4.2.1#21 with `limit_exceeded:run.duration`; §4.2.1#20 a phase
    ceiling stops it too; §4.2.1#22 `phase:find` lifts `phase` for Find alone; §4.2.1#25 `run.cost` set
    between an unbounded twin's billed and incurred cost halts on `limit_exceeded:run.cost`."""
    require(policy, "launchRun")
    twin, _ = _finished(client, target, {"twin": {}})["twin"]
    billed, incurred = _usd(twin, "billed"), _usd(twin, "incurred")
    runs = _finished(
        client,
        target,
        {
            "run": {"limits": {"run": {"duration": 1}}},
            "phase": {"limits": {"phase": {"calls": 1}}},
            "override": {"limits": {"phase": {"calls": 1}, "phase:find": {"calls": 1000}}},
            "cost": {"limits": {"run": {"cost": (billed + incurred) / 2}}},
        },
    )
    run, read = runs["run"]
    summary = {k: run.get(k) for k in ("status", "halted", "halt_reason")} | {"phases": sorted(_phases(run))}
    expect(_stopped(run), "§4.2.1#19", RUN, f"a run with limits.run.duration 1 reads {summary}", read)
    expect(
        _limit_halted(run, f"{LIMIT_EXCEEDED}run.duration"),
        "§4.2.1#21",
        RUN,
        f"a run stopped by run.duration reads halt_reason {run.get('halt_reason')!r}",
        read,
    )
    run, read = runs["phase"]
    summary = {k: run.get(k) for k in ("status", "halted", "halt_reason")} | {"phases": sorted(_phases(run))}
    expect(_stopped(run), "§4.2.1#20", RUN, f"a run with limits.phase.calls 1 reads {summary}", read)
    run, read = runs["override"]
    expect(
        run.get("halted") is True and "analyze" in _phases(run) and "report" not in _phases(run),
        "§4.2.1#22",
        RUN,
        f"phase.calls 1 with phase:find.calls 1000 ran {sorted(_phases(run))}, halted {run.get('halted')}",
        read,
    )
    run, read = runs["cost"]
    expect(
        billed < incurred and _limit_halted(run, f"{LIMIT_EXCEEDED}run.cost"),
        "§4.2.1#25",
        RUN,
        f"run.cost {(billed + incurred) / 2:.4f}, between the twin's billed {billed} and incurred {incurred}, "
        f"ended {run.get('status')} with halt_reason {run.get('halt_reason')!r}",
        read,
    )


def _tasks(client, run_id: str, **params: str) -> tuple[list[dict[str, Any]], Any]:
    read = client.get(f"/v1/runs/{run_id}/tasks", params=params)
    return (body_of(read) or {}).get("data") or [], read


def _not_limit_halted(run: dict[str, Any]) -> bool:
    return not run.get("halted") and not str(run.get("halt_reason") or "").startswith(LIMIT_EXCEEDED)


def test_task_ceilings_stop_only_their_task(client, target, policy, mock_only):
    """§4.2.1#23 a task ceiling every task reaches fails each task, every task still runs and the run is not
    halted; §4.2.1#24 none is retried though `task.attempts` allows 3; §4.2.1#29 `metadata.task_timeout_sec`
    bounds one try: 0 fails every try and leaves the run going, 1 second on two trials fails no try under it."""
    require(policy, "launchRun")
    runs = _finished(
        client,
        target,
        {
            "task": {"limits": {"task": {"duration": 0.001, "attempts": 3}}},
            "zero": {"metadata": {"task_timeout_sec": 0}},
            "second": {"metadata": {"task_timeout_sec": 1}, "trials": {"plan": {"k": 2}}},
        },
    )
    run, _ = runs["task"]
    rows, tasks = _tasks(client, run.get("id"))
    indices = {row.get("index") for row in rows}
    failed = all(row.get("passed") is False and row.get("error_class") != "ok" for row in rows)
    expect(
        _not_limit_halted(run) and failed and indices == set(range(int(run.get("task_count") or 0))),
        "§4.2.1#23",
        "GET /v1/runs/{id}/tasks",
        f"task.duration 0.001: halted {run.get('halted')} ({run.get('halt_reason')!r}), "
        f"{len(indices)} of {run.get('task_count')} tasks ran, all failed: {failed}",
        tasks,
    )
    retried, tries = _tasks(client, run.get("id"), include_retries="true")
    attempts = [(row.get("index"), row.get("trial")) for row in retried]
    expect(
        len(attempts) == len(set(attempts)),
        "§4.2.1#24",
        "GET /v1/runs/{id}/tasks?include_retries=true",
        f"tasks stopped by task.duration were tried again: {len(attempts)} rows for {len(set(attempts))} tries",
        tries,
    )
    for name, run_fails in (("zero", True), ("second", False)):
        run, _ = runs[name]
        rows, tasks = _tasks(client, run.get("id"), include_retries="true")
        timed_out = [row for row in rows if row.get("error_class") == "timeout"]
        holds = bool(rows) and (
            len(timed_out) == len(rows)
            if run_fails
            else all(int(row.get("duration_ms") or 0) >= 1000 for row in timed_out)
        )
        expect(
            _not_limit_halted(run) and holds,
            "§4.2.1#29",
            "GET /v1/runs/{id}/tasks",
            f"task_timeout_sec {'0' if run_fails else '1 over two trials'}: halted {run.get('halted')} "
            f"({run.get('halt_reason')!r}), {len(timed_out)} of {len(rows)} tries timed out "
            f"({sorted(int(r.get('duration_ms') or 0) for r in timed_out)} ms)",
            tasks,
        )


def test_legacy_limit_spellings_mean_their_ceilings(client, target, policy, mock_only):
    """§4.2.1#26 `constraints.max_cost_cents` is `run.cost` in cents and §4.2.1#27 `max_duration_ms` is
    `run.duration` in ms: each set to half of what an unbounded twin spent halts the run (read as dollars or
    seconds it never would), on `limit_exceeded:` or the pre-`limits` `max_*_exceeded` (§4.1.1);
    §4.2.1#28 `constraints.max_tasks` caps the task count."""
    require(policy, "launchRun")
    twin, _ = _finished(client, target, {"twin": {}})["twin"]
    cents = max(1, int(_usd(twin, "incurred") * 100) // 2)
    millis = max(1, int(twin.get("duration_ms") or 0) // 2)
    runs = _finished(
        client,
        target,
        {
            "cost": {"constraints": {"max_cost_cents": cents}},
            "duration": {"constraints": {"max_duration_ms": millis}},
            "tasks": {"constraints": {"max_tasks": 3}},
        },
    )
    for name, clause, reasons in (
        ("cost", "§4.2.1#26", (f"{LIMIT_EXCEEDED}run.cost", "max_cost_exceeded")),
        ("duration", "§4.2.1#27", (f"{LIMIT_EXCEEDED}run.duration", "max_duration_exceeded")),
    ):
        run, read = runs[name]
        expect(
            _limit_halted(run, *reasons),
            clause,
            RUN,
            f"constraints {'max_cost_cents ' + str(cents) if name == 'cost' else 'max_duration_ms ' + str(millis)}"
            f" (the twin spent {_usd(twin, 'incurred')} USD over {twin.get('duration_ms')} ms) ended "
            f"{run.get('status')} with halt_reason {run.get('halt_reason')!r}",
            read,
        )
    run, read = runs["tasks"]
    expect(run.get("task_count") == 3, "§4.2.1#28", RUN, f"max_tasks 3 reads task_count {run.get('task_count')}", read)


def _lingered(client, run: dict[str, Any]) -> tuple[list[int], Any]:
    """The seconds each `ProxySandboxLinger` event of the run grants past its finish (§15)."""
    read = client.get(f"/v1/runs/{run.get('id')}/events", params={"limit": 1000})
    finished = datetime.fromisoformat(str(run.get("finished_at")).replace("Z", "+00:00"))
    finished_ms = int(finished.timestamp() * 1000)
    granted = [
        (int((event.get("data") or {}).get("granted_expires_at_ms") or 0) - finished_ms) // 1000
        for event in (body_of(read) or {}).get("data") or []
        if event.get("type") == "ProxySandboxLinger"
    ]
    return [seconds for seconds in granted if seconds > 0], read


def test_proxy_linger_is_clamped(client, target, policy, mock_only):
    """§4.2.1#30 `metadata.proxy_linger_seconds: 600` keeps the proxy 600 s past the finish; §4.2.1#31 a
    value above the spec's clamp is granted the maximum, not refused; §4.2.1#32 a negative one is granted
    nothing, not refused. Read on each run's `ProxySandboxLinger` event."""
    require(policy, "launchRun")
    high, low = LINGER["max"], LINGER["min"]
    asked = {"within": 600, "above": high + 13600, "below": low - 5}
    clauses = {"within": "§4.2.1#30", "above": "§4.2.1#31", "below": "§4.2.1#32"}
    changes = {name: {"metadata": {"proxy_linger_seconds": n}} for name, n in asked.items()}
    runs = _finished(client, target, changes, clauses)
    for name, wanted in (("within", [600]), ("above", [high]), ("below", [low] if low > 0 else [])):
        clause = clauses[name]
        granted, read = _lingered(client, runs[name][0])
        expect(
            granted == wanted,
            clause,
            "GET /v1/runs/{id}/events",
            f"proxy_linger_seconds {asked[name]} kept the proxy {granted or 'no'} seconds past the finish",
            read,
        )
