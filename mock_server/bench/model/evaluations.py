"""Evaluation runs over simulated time (C-47–C-50, C-45, C-46).

queued -> running -> completed | failed, or canceled. A run captures, when it starts,
the context version and the enabled sources it is evaluated with; later edits change
future runs only. Case outcomes are a fixed function of (run id, case id), so results
are reproducible.
"""

from __future__ import annotations

import copy
import hashlib
from datetime import datetime, timedelta
from typing import Any

from ..store import AiSystem, EvaluationRun, Store
from .context import bounded_sources, structured
from .errors import Refusal

ACTIVE = ("queued", "running")
TERMINAL = ("completed", "failed", "canceled")


def _passes(run_id: int, case_id: str) -> bool:
    return hashlib.sha256(f"{run_id}:{case_id}".encode()).digest()[0] < 192


def capture(system: AiSystem) -> tuple[list[Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The enabled sources, cases and criteria a run of the system is evaluated with, now."""
    evidence, cases, criteria = [], [], []
    for src in system.context.sources.values():
        entry = structured(src)
        if entry is not None and not entry.get("enabled", True):
            continue
        evidence.append(src)
        if entry is None:
            continue
        if entry["type"] == "case":
            cases.append(
                {
                    "case_id": src.case_id or src.id,
                    "source_id": src.id,
                    "component_id": entry.get("component_id"),
                    "input": copy.deepcopy(entry.get("input")),
                    "expected": copy.deepcopy(entry.get("expected")),
                }
            )
        else:
            criteria.append(
                {"source_id": src.id, "component_id": entry.get("component_id"), "statement": entry["statement"]}
            )
    return evidence, cases, criteria


def new_run(
    store: Store,
    *,
    tenant: str,
    account_id: str,
    credential_id: str | None,
    kind: str,
    system: AiSystem | None,
    repo_full_name: str | None,
    now: datetime,
    cases: list[dict[str, Any]] | None = None,
    request: dict[str, Any] | None = None,
) -> EvaluationRun:
    evidence, sys_cases, criteria = capture(system) if system else ([], [], [])
    run = EvaluationRun(
        id=store.seq("evaluation", start=1000),
        tenant=tenant,
        account_id=account_id,
        credential_id=credential_id,
        kind=kind,
        ai_system_id=system.id if system else None,
        repo_full_name=repo_full_name,
        status="queued",
        created_at=now,
        context_version=system.context.version if system else None,
        evidence=evidence,
        cases=sys_cases if cases is None else cases,
        criteria=criteria,
        request=request or {},
    )
    store.evaluations[run.id] = run
    return run


def evaluable(system: AiSystem) -> bool:
    """C-48: a system with no components or no enabled cases starts no run (and spends nothing)."""
    _, cases, _ = capture(system)
    return bool(system.components) and bool(cases)


def finish(store: Store, run: EvaluationRun, status: str, now: datetime) -> None:
    run.status = status
    if status != "canceled":  # a run canceled while still queued never started
        run.started_at = run.started_at or now
    run.finished_at = now
    if status == "completed" and run.ai_system_id in store.systems:
        system = store.systems[run.ai_system_id]
        for case in results(run)["cases"]:
            if case["status"] == "failed":
                key = f"case:{case['case_id']}"
                system.findings.setdefault(
                    key,
                    {
                        "key": key,
                        "status": "open",
                        "title": f"Case {case['case_id']} failed",
                        "evaluation_run_id": run.id,
                    },
                )


def advance(store: Store, now: datetime, queued_seconds: float, running_seconds: float) -> None:
    for run in store.evaluations.values():
        if run.status not in ACTIVE:
            continue
        if run.status == "queued" and now >= run.created_at + timedelta(seconds=queued_seconds):
            run.status = "running"
            run.started_at = run.created_at + timedelta(seconds=queued_seconds)
        if run.status == "running" and now >= run.created_at + timedelta(seconds=queued_seconds + running_seconds):
            finish(store, run, run.outcome, run.created_at + timedelta(seconds=queued_seconds + running_seconds))


def results(run: EvaluationRun) -> dict[str, Any]:
    cases = [{**c, "status": "passed" if _passes(run.id, c["case_id"]) else "failed"} for c in run.cases]
    criteria = [{**c, "status": "met" if _passes(run.id, c["source_id"]) else "not_met"} for c in run.criteria]
    passed = sum(1 for c in cases if c["status"] == "passed")
    total = len(cases)
    return {
        "cases": cases,
        "criteria": criteria,
        "summary": {
            "passed": passed,
            "failed": total - passed,
            "total": total,
            "score": round(100 * passed / total, 2) if total else 0.0,
        },
    }


def run_json(run: EvaluationRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "kind": run.kind,
        "ai_system_id": run.ai_system_id,
        "repo_full_name": run.repo_full_name,
        "status": run.status,
        "archived": run.archived,
        "context_version": run.context_version,
        "rerun_of": run.rerun_of,
        "summary": results(run)["summary"] if run.status == "completed" else None,
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
    }


def get(store: Store, tenant: str, run_id: str | int) -> EvaluationRun:
    try:
        rid = int(run_id)
    except (TypeError, ValueError):
        rid = -1
    run = store.evaluations.get(rid)
    if run is None or run.tenant != tenant:
        raise Refusal(404, "evaluation_not_found", f"Evaluation run {run_id} was not found.")
    return run


def require_finished(run: EvaluationRun) -> None:
    if run.status in ACTIVE:
        raise Refusal(409, "evaluation_not_finished", f"Evaluation run {run.id} is {run.status}; poll get_evaluation.")


def artifacts(run: EvaluationRun, max_bytes: int = 4194304) -> dict[str, Any]:
    """C-46: the evidence captured at start, whatever the context holds now."""
    require_finished(run)
    res = (
        results(run)
        if run.status == "completed"
        else {"cases": [], "criteria": [], "summary": {"passed": 0, "failed": 0, "total": 0, "score": 0.0}}
    )
    evidence, cut = bounded_sources(run.evidence, max_bytes)
    return {
        "run_id": run.id,
        "status": run.status,
        "context_version": run.context_version,
        "evidence": evidence,
        "evidence_truncated": cut,
        **res,
        "review": run.review,
    }


def fix_brief(run: EvaluationRun) -> dict[str, Any]:
    require_finished(run)
    failures = [c for c in results(run)["cases"] if c["status"] == "failed"] if run.status == "completed" else []
    if run.status != "completed":
        text = f"Run {run.id} ended {run.status}; there are no case results to fix."
    elif failures:
        text = "Fix these failing cases: " + "; ".join(f"{c['case_id']} (expected {c['expected']!r})" for c in failures)
    else:
        text = "Every case passed; nothing to fix."
    return {"run_id": run.id, "failures": failures, "text": text}


def cancel(store: Store, run: EvaluationRun, now: datetime, bench_only: bool = False) -> None:
    if bench_only and run.kind != "system":
        raise Refusal(409, "not_a_bench", f"Evaluation run {run.id} is not a system bench.")
    if run.status in TERMINAL:
        raise Refusal(409, "evaluation_finished", f"Evaluation run {run.id} already ended ({run.status}).")
    finish(store, run, "canceled", now)


def archive(run: EvaluationRun, archived: bool) -> None:
    if archived:
        require_finished(run)
    run.archived = archived


def history(store: Store, tenant: str, include_active: bool) -> list[dict[str, Any]]:
    """Newest first; archived runs are hidden; active ones only with include_active=true."""
    runs = [r for r in store.evaluations.values() if r.tenant == tenant and not r.archived]
    if not include_active:
        runs = [r for r in runs if r.status in TERMINAL]
    return [run_json(r) for r in sorted(runs, key=lambda r: r.id, reverse=True)]
