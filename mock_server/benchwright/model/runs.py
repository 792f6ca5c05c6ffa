"""The run domain the resources share (§4.1, §14): who may read or change a run,
its representation (cached per run state), and how a run is constructed.

Nothing here imports a resource module: reading a run needs none of what launch
needs (the catalog, egress, authoring). The lifecycle itself (phases, events,
costs, halts) is `lifecycle.py`.
"""

from __future__ import annotations

from datetime import datetime
from operator import attrgetter
from typing import Any

import orjson

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.store import Store, User
from mock_server.policies.idempotency import compact
from mock_server.policies.problems import Problem, not_found
from mock_server.state.clock import rfc3339
from mock_server.state.ids import hex_token, uuid4

DASHBOARD = "https://benchwright.ai/run/"
DEFAULT_DRIVER = "gemini-3-flash-preview"


# -- access -------------------------------------------------------------------


def team_ids(store: Store, user: User) -> set[str]:
    """The users whose runs `user` reads as a teammate (§2.5): the team, or just themselves."""
    if not user.team_id:
        return {user.id}
    team = store.teams.get(user.team_id)
    return set(team.member_ids) if team else {user.id}


def can_read(store: Store, user: User | None, run: Run) -> bool:
    if run.visibility in ("public", "unlisted"):
        return True
    if user is None:
        return False
    return user.admin or run.user_id in team_ids(store, user)


def readable_run(store: Store, user: User | None, run_id: str) -> Run:
    """The run if the caller may read it; `404` when it is hidden (§14)."""
    run = pipeline.get_run(store, run_id)
    if run is None or not can_read(store, user, run):
        raise not_found("Run")
    return run


def owned_run(store: Store, user: User | None, run_id: str) -> Run:
    """The run if the caller may change it: its owner or an admin (§4.3, §4.11).
    A teammate gets `403 team_readonly` (§2.5), anyone else who can see it `403 forbidden`."""
    run = readable_run(store, user, run_id)
    if user is None:
        raise Problem(401, "auth_required")
    if user.admin or run.user_id == user.id:
        return run
    if run.user_id in team_ids(store, user):
        raise Problem(403, "team_readonly", "Team members may read this run but not change it.")
    raise Problem(403, "forbidden", "Only the run's owner can do this.")


# -- representation -----------------------------------------------------------


def display_status(run: Run) -> str:
    """§4.1.1: fold `halted`/`halt_reason` into what a UI should show."""
    reason = run.halt_reason or ""
    if run.halted or reason.startswith("operator_kill"):
        if reason.startswith("operator_kill"):
            return "killed"
        if reason.startswith("operator_pause"):
            return "paused"
        if reason.startswith("agent_review"):
            return "waiting"
        return "halted"
    return run.status


def _money(usd: float) -> dict[str, Any]:
    return {"amount_cents": pipeline.cents_up(usd), "currency": "USD", "amount_usd": round(usd, 6)}


def _links(run_id: str) -> dict[str, str]:
    base = f"/v1/runs/{run_id}"
    return {
        "self": base,
        "events": f"{base}/events",
        "artifacts": f"{base}/artifacts",
        "tasks": f"{base}/tasks",
        "report": f"{base}/report",
        "dashboard": DASHBOARD + run_id,
    }


# what the representation reads that can change, besides the event count and the clock
_STATE = attrgetter(
    "updated_at", "status", "halted", "halt_reason", "visibility", "fingerprint_hash", "review_resolution",
    "forked_from", "forked_from_deleted", "benchmark_id", "subset_id", "impl_id", "score", "current_phase", "error",
)  # fmt: skip


def _cached(store: Store, run: Run, detail: bool) -> list[Any]:
    """The memo entry of the run's representation in its current state: `[key, json, bytes]`.
    The key holds everything the representation reads that can change, so a stale copy is
    never served; the encoded bytes are made once per state, when first asked for."""
    key = (len(run.events), _STATE(run), None if run.finished_at or not run.started_at else store.clock.now())
    name = "detail" if detail else "json"
    entry = run.memo.get(name)
    if entry is None or entry[0] != key:
        entry = run.memo[name] = [key, _run_json(store, run, detail, None), None]
    return entry


def run_json(store: Store, run: Run, *, detail: bool = False, expand: set[str] | None = None) -> dict[str, Any]:
    """The Run object (§4.1), a fresh dict the caller may change. Cached per run state."""
    if expand:
        return _run_json(store, run, detail, expand)
    return dict(_cached(store, run, detail)[1])


def run_bytes(store: Store, run: Run, *, detail: bool = False) -> bytes:
    """The Run object (§4.1) encoded as JSON, cached per run state (a raw `Reply` body)."""
    entry = _cached(store, run, detail)
    encoded = entry[2]
    if encoded is None:
        encoded = entry[2] = compact(orjson.dumps(entry[1], option=orjson.OPT_NON_STR_KEYS))
    return encoded


def _run_json(store: Store, run: Run, detail: bool, expand: set[str] | None) -> dict[str, Any]:
    usd = run.usd
    narration = _money(usd.get("narration", 0.0))
    narration.update(calls=0, input_tokens=0, output_tokens=0)
    tokens_in, tokens_out = run.tokens.get("input", 0), run.tokens.get("output", 0)
    driver_in, driver_out = run.tokens.get("driver_input", 0), run.tokens.get("driver_output", 0)
    end = run.finished_at or store.clock.now()
    body: dict[str, Any] = {
        "id": run.id,
        "object": "run",
        "user_id": run.user_id,
        "status": run.status,
        "display_status": display_status(run),
        "current_phase": run.current_phase,
        "halted": run.halted,
        "halt_reason": run.halt_reason,
        "request": run.request,
        "driver": run.driver,
        "benchmark": None,
        "benchmark_name": run.benchmark_name,
        "subset": None,
        "impl": None,
        "model": dict(run.model),
        "sut_config": run.sut_config,
        "backend": run.backend,
        "harness": run.harness,
        "harness_config": run.harness_config,
        "fingerprint_hash": run.fingerprint_hash,
        "score": run.score,
        "task_count": run.task_count,
        "cache_hits": {"count": 0, "phases": {}},
        "materialize_indices": run.materialize_indices,
        "canonical_indices": run.canonical_indices,
        "cost": {
            "incurred": _money(pipeline.incurred_usd(run)),
            "driver": _money(usd.get("driver", 0.0)),
            "model": _money(usd.get("model", 0.0)),
            "sandbox": _money(usd.get("sandbox", 0.0)),
            "billed": _money(pipeline.billed_usd(run)),
            "proxy_linger": _money(usd.get("proxy_linger", 0.0)),
            "narration": narration,
        },
        "tokens": {
            "input": tokens_in,
            "output": tokens_out,
            "total": tokens_in + tokens_out,
            "driver": {"input": driver_in, "output": driver_out, "total": driver_in + driver_out},
        },
        "duration_ms": int((end - (run.started_at or run.created_at)).total_seconds() * 1000) if run.started_at else 0,
        "visibility": run.visibility,
        "forked_from": run.forked_from,
        "forked_from_deleted": run.forked_from_deleted,
        "fork_description": run.fork_description,
        "relaunch_count": run.relaunch_count,
        "relaunch_budget_sec": None,
        "port_version": "0.5.15",
        "storage": dict(run.derived("storage", _storage)),
        "created_at": rfc3339(run.created_at),
        "started_at": rfc3339(run.started_at) if run.started_at else None,
        "finished_at": rfc3339(run.finished_at) if run.finished_at else None,
        "updated_at": rfc3339(run.updated_at),
        "error": run.error,
        "error_type": run.error_type,
        "review_resolution": run.review_resolution,
        "links": _links(run.id),
    }
    if run.terminal:  # the catalog projection exists only once finalized (§4.1, §3.10)
        body["benchmark_id"] = run.benchmark_id
        body["subset_id"] = run.subset_id
        body["impl_id"] = run.impl_id
    if detail:
        body["inference"] = run.derived("inference", _inference)
    if expand and "phase_breakdown" in expand:
        body["phase_breakdown"] = phase_breakdown(run)
    if expand and "child_forks" in expand:
        body["child_forks"] = [
            {
                "id": child.id,
                "fork_description": child.fork_description,
                "status": child.status,
                "created_at": rfc3339(child.created_at),
            }
            for child in pipeline.runs(store).values()
            if child.forked_from == run.id
        ]
    return body


def _storage(run: Run) -> dict[str, int]:
    """§4.1 `storage`: always present, every counter defaulting to 0."""
    event_bytes = sum(len(str(e["data"])) for e in run.events)
    payloads = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    payload_bytes = sum(len(str(e["data"])) * 4 for e in payloads)
    return {
        "event_count": len(run.events),
        "event_bytes": event_bytes,
        "payload_count": len(payloads),
        "payload_bytes": payload_bytes,
        "total_bytes": event_bytes + payload_bytes,
    }


def _inference(run: Run) -> dict[str, Any] | None:
    results = [e for e in run.events if e["type"] == "MaterializeTaskResult"]
    if not results:
        return None
    calls = len(results)
    ok = sum(1 for e in results if e["data"].get("error_class") == "ok")
    completion = run.tokens.get("output", 0)
    duration = sum(e["data"].get("duration_ms", 0) for e in results)
    return {
        "calls": calls,
        "ok": ok,
        "completion_tokens": completion,
        "duration_ms": duration,
        "by_model": [
            {
                "model": run.model["identifier"],
                "calls": calls,
                "ok": ok,
                "completion_tokens": completion,
                "duration_ms": duration,
                "status_codes": {"200": ok, **({"429": calls - ok} if calls > ok else {})},
            }
        ],
    }


def phase_breakdown(run: Run) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for event in run.events:
        data = event["data"]
        if event["type"] == "PhaseStarted":
            current = {
                "phase": data["phase"],
                "invocation": data.get("invocation", 1),
                "duration_ms": 0,
                "tokens": {"input": 0, "output": 0},
                "cost": {"llm_cents": 0},
                "llm_calls": 0,
                "model": run.driver,
            }
            rows.append(current)
        elif current is not None and event["type"] == "LlmCallEvent":
            current["llm_calls"] += 1
            current["tokens"]["input"] += data.get("input_tokens", 0)
            current["tokens"]["output"] += data.get("output_tokens", 0)
            current["cost"]["llm_cents"] = pipeline.cents_up(current["llm_calls"] * data.get("cost_usd", 0.0))
        elif current is not None and event["type"] == "PhaseCompleted":
            current["duration_ms"] = data.get("duration_ms", 0)
    return rows


# -- construction ---------------------------------------------------------------


def new_run(
    store: Store,
    user: User,
    *,
    mode: str,
    request: str,
    model: dict[str, Any],
    harness: str,
    backend: str,
    benchmark_name: str,
    limits: dict[str, dict[str, float]],
    tasks: int,
    indices: str | None,
    driver: str | None = None,
    token_id: str | None = None,
    trials: int = 1,
    aggregator: str | None = None,
    outcome: str = "ok",
    publish_on_complete: bool = False,
    created_at: datetime | None = None,
    **fields: Any,
) -> Run:
    """A run of `user`, planned from `created_at` (default now) and registered."""
    now = created_at or store.clock.now()
    store.runs_made += 1
    run = Run(
        id=uuid4(),
        course=f"run-{store.runs_made:08d}",
        user_id=user.id,
        token_id=token_id,
        mode=mode,
        request=request,
        driver=driver or DEFAULT_DRIVER,
        model=model,
        harness=harness,
        backend=backend,
        benchmark_name=benchmark_name,
        created_at=now,
        updated_at=now,
        limits=limits,
        task_count=tasks,
        materialize_indices=indices,
        trials=trials,
        aggregator=aggregator,
        outcome=outcome,
        publish_on_complete=publish_on_complete,
        sandbox_id="sbx_" + hex_token(12),
        sut_config={"temperature": 0.0, "max_tokens": 2048},
        **fields,
    )
    pipeline.plan_run(run, now, tasks)
    return pipeline.add_run(store, run)
