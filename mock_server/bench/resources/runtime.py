"""Real app test reports, evaluation plans and runs, and hosted runtime (C-51, C-52)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import orjson

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import AiSystem, EvaluationPlan, RuntimeEvaluation, RuntimeJob, RuntimeRun
from ._common import body, caller, cfg, now, op, paged, spec_op, store, system

SPLITS = ("development", "confirmation", "calibration")
VERDICTS = ("good", "bad", "skip")
COST_PER_TRIAL_USD = 0.002
SECONDS_PER_TRIAL = 2.0
DEFAULT_MINIMUM_QUALITY_GAIN = 0.05


def report_json(r: RuntimeEvaluation, sid: int) -> dict[str, Any]:
    return {
        "id": r.id,
        "ai_system_id": sid,
        "environment": r.environment,
        "published_at": r.published_at,
        "summary": r.report.get("summary"),
        "report": r.report,
    }


@op("publish_runtime_evaluation")
async def publish_runtime_evaluation(ctx: Ctx):
    """C-51, C-52: stores the complete report as sent; starts nothing and spends nothing."""
    s, o, report = system(ctx), spec_op(ctx), body(ctx)
    limit = o["x-limits"]["max_body_bytes"]
    if len(orjson.dumps(report)) > limit:
        raise Refusal(
            413, "report_too_large", f"A report holds at most {limit} bytes; keep it locally or split the suite."
        )
    missing = [k for k in o["x-report-required"] if k not in report]
    if missing or not isinstance(report.get("cases"), list) or not isinstance(report.get("summary"), dict):
        raise Refusal(
            400,
            "incomplete_report",
            "Publish the complete report from evaluate_system: missing "
            + ", ".join(missing or ["cases (a list) and summary (an object)"])
            + ".",
        )
    r = RuntimeEvaluation(
        id=store(ctx).seq("runtime_evaluation"),
        environment=str(report.get("environment") or "unspecified"),
        report=report,
        published_at=now(ctx),
    )
    s.runtime_evaluations[r.id] = r
    return Reply({"runtime_evaluation": report_json(r, s.id)}, 201)


@op("list_runtime_evaluations")
async def list_runtime_evaluations(ctx: Ctx):
    s = system(ctx)
    env = ctx.raw_query.get("environment")
    items = [
        report_json(r, s.id)
        for r in sorted(s.runtime_evaluations.values(), key=lambda r: r.id, reverse=True)
        if env is None or r.environment == env
    ]
    return paged(ctx, items)


def _invalid(message: str) -> Refusal:
    return Refusal(400, "invalid_plan", message)


def _check_plan(spec: dict[str, Any]) -> None:
    cases, configs, budget = spec.get("cases"), spec.get("configurations"), spec.get("budget")
    if not isinstance(cases, list) or not cases:
        raise _invalid("cases is a non-empty list.")
    ids = set()
    for i, c in enumerate(cases):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or "input" not in c:
            raise _invalid(f"cases[{i}] needs an id and an input.")
        if c.get("split", "development") not in SPLITS:
            raise _invalid(f"cases[{i}].split is one of {', '.join(SPLITS)}.")
        if c["id"] in ids:
            raise _invalid(f"cases[{i}].id {c['id']!r} is repeated.")
        ids.add(c["id"])
    if (
        not isinstance(configs, list)
        or not configs
        or not all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in configs)
    ):
        raise _invalid("configurations is a non-empty list of objects with an id.")
    if not isinstance(budget, dict) or not isinstance(budget.get("max_trials"), int) or budget["max_trials"] < 1:
        raise _invalid("budget needs max_trials (a positive integer); max_cost_usd and max_duration_s are optional.")


def _trials(spec: dict[str, Any]) -> int:
    reps = (spec.get("policy") or {}).get("repetitions", 1)
    return len(spec["cases"]) * len(spec["configurations"]) * max(1, int(reps))


def plan_json(p: EvaluationPlan, sid: int) -> dict[str, Any]:
    """Public counts and estimates; confirmation inputs and expected outcomes are never returned."""
    cases = p.spec["cases"]
    split = {k: sum(1 for c in cases if c.get("split", "development") == k) for k in SPLITS}
    trials = _trials(p.spec)
    return {
        "id": p.id,
        "ai_system_id": sid,
        "status": "saved",
        "counts": {
            "cases": len(cases),
            "groups": len({c.get("group", c["id"]) for c in cases}),
            **split,
            "configurations": len(p.spec["configurations"]),
        },
        "budget": p.spec["budget"],
        "estimate": {
            "trials": trials,
            "cost_usd": round(trials * COST_PER_TRIAL_USD, 4),
            "duration_s": trials * SECONDS_PER_TRIAL,
        },
        "versions": p.spec.get("versions") or {},
        "created_at": p.created_at,
    }


@op("runtime_eval_plan")
async def runtime_eval_plan(ctx: Ctx):
    """Validates and saves an immutable plan; no paid execution."""
    s, spec = system(ctx), body(ctx)
    _check_plan(spec)
    p = EvaluationPlan(id=f"plan_{store(ctx).seq('plan')}", spec=orjson.loads(orjson.dumps(spec)), created_at=now(ctx))
    s.plans[p.id] = p
    return Reply({"plan": plan_json(p, s.id)}, 201)


def _plan(ctx: Ctx, s: AiSystem, plan_id: str | None = None) -> EvaluationPlan:
    pid = ctx.path["planID"] if plan_id is None else plan_id
    if pid not in s.plans:
        raise Refusal(404, "plan_not_found", f"System {s.id} has no plan {pid}.")
    return s.plans[pid]


@op("runtime_eval_get_plan")
async def runtime_eval_get_plan(ctx: Ctx):
    s = system(ctx)
    return {"plan": plan_json(_plan(ctx, s), s.id)}


@op("runtime_eval_review_cases")
async def runtime_eval_review_cases(ctx: Ctx):
    """Development cases only; confirmation and calibration cases are excluded."""
    s = system(ctx)
    p = _plan(ctx, s)
    dev = [
        {**c, "review": p.reviews.get(c["id"])}
        for c in p.spec["cases"]
        if c.get("split", "development") == "development"
    ]
    return {"items": dev}


@op("runtime_eval_review")
async def runtime_eval_review(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    p = _plan(ctx, s)
    if b.get("verdict") not in VERDICTS:
        raise Refusal(400, "invalid_verdict", f"verdict is one of {', '.join(VERDICTS)}.")
    dev = {c["id"] for c in p.spec["cases"] if c.get("split", "development") == "development"}
    if b.get("case_id") not in dev:
        raise Refusal(404, "case_not_found", "No development case with that id in this plan.")
    review = {"case_id": b["case_id"], "verdict": b["verdict"], "note": b.get("note", ""), "reviewed_at": now(ctx)}
    p.reviews[b["case_id"]] = review
    return Reply({"review": review}, 201)


@op("runtime_eval_candidates")
async def runtime_eval_candidates(ctx: Ctx):
    """Unverified proposals across the allowed providers; the saved plan is never edited."""
    s, b = system(ctx), body(ctx)
    p = _plan(ctx, s)
    if b.get("run_id") and b["run_id"] not in s.runtime_runs:
        raise Refusal(404, "run_not_found", f"System {s.id} has no run {b['run_id']}.")
    providers = b.get("allowed_providers") or list(cfg(ctx).providers)
    unknown = [x for x in providers if x not in cfg(ctx).providers]
    if unknown:
        raise Refusal(400, "unknown_provider", f"Unknown providers: {', '.join(unknown)}.")
    current = {c.get("model") for c in p.spec["configurations"]}
    out = []
    for provider in providers:
        for model in cfg(ctx).providers[provider]:
            if model in current:
                continue
            out.append(
                {
                    "id": f"cand-{provider}-{model}",
                    "provider": provider,
                    "model": model,
                    "verified": False,
                    "rationale": f"{model} is allowed and not yet measured in plan {p.id}.",
                }
            )
    return {"candidates": out}


def _event(run: RuntimeRun, kind: str, at, **extra: Any) -> None:
    """`cursor` is what `bench eval watch` reads (and passes back as `after`); `seq` is the same number."""
    n = len(run.events) + 1
    run.events.append({"seq": n, "cursor": n, "type": kind, "at": at, **extra})


def quality(plan_id: str, config_id: str) -> float:
    """A configuration's measured quality on the plan's cases (0..1): fixed per plan and configuration."""
    return round(hashlib.sha256(f"{plan_id}:{config_id}".encode()).digest()[0] / 255, 3)


def result_json(run: RuntimeRun, plan: EvaluationPlan) -> dict[str, Any]:
    """What the trials measured so far: `metrics` per configuration (trials are spread over the configurations
    in plan order), `comparisons` of each candidate with the first configuration (the current one) once both
    have trials, and the `decision` once the run completed: `validated_improvement` when a candidate gains at
    least the policy's `minimum_quality_gain` (default 0.05), `no_improvement` when none does,
    `insufficient_evidence` when the plan has no candidate."""
    configs = [c["id"] for c in plan.spec["configurations"]]
    n, done = len(configs), run.completed_trials
    metrics: dict[str, dict[str, Any]] = {}
    for i, cid in enumerate(configs):
        trials = done // n + (1 if i < done % n else 0)
        metrics[cid] = {
            "trials": trials,
            "cost_usd": round(trials * COST_PER_TRIAL_USD, 4),
            "duration_s": trials * SECONDS_PER_TRIAL,
            "quality": quality(plan.id, cid) if trials else None,
        }
    base = configs[0]
    comparisons = [
        {
            "baseline": base,
            "candidate": cid,
            "metric": "quality",
            "delta": round(metrics[cid]["quality"] - metrics[base]["quality"], 3),
        }
        for cid in configs[1:]
        if metrics[cid]["quality"] is not None and metrics[base]["quality"] is not None
    ]
    return {"decision": run.decision, "comparisons": comparisons, "metrics": metrics}


def _decide(run: RuntimeRun, plan: EvaluationPlan) -> str:
    gain = (plan.spec.get("policy") or {}).get("minimum_quality_gain", DEFAULT_MINIMUM_QUALITY_GAIN)
    deltas = [c["delta"] for c in result_json(run, plan)["comparisons"]]
    if not deltas:
        return "insufficient_evidence"
    return "validated_improvement" if max(deltas) >= gain else "no_improvement"


def _budget(run: RuntimeRun, plan: EvaluationPlan) -> int:
    return plan.spec["budget"]["max_trials"] + sum(int(e.get("max_trials", 0)) for e in run.budget_extensions)


def advance_runs(system_row: AiSystem, current, seconds_per_trial: float) -> None:
    """Trials complete at a fixed simulated pace; a run pauses at its trial budget and completes at its total."""
    for run in system_row.runtime_runs.values():
        if run.status not in ("queued", "running"):
            run.last_tick = current
            continue
        plan = system_row.plans[run.plan_id]
        last = run.last_tick or run.created_at
        run.last_tick = current
        if run.status == "queued":
            run.status, run.phase = "running", "development"
            _event(run, "started", last)
        run.progress_seconds += max(0.0, (current - last).total_seconds())
        done = min(run.total_trials, int(run.progress_seconds / seconds_per_trial))
        cap = _budget(run, plan)
        if done >= cap and cap < run.total_trials:
            run.completed_trials = cap
            run.status, run.phase = "paused", "budget_exhausted"
            _event(run, "paused", current, reason="budget_exhausted", completed_trials=cap)
        elif done >= run.total_trials:
            run.completed_trials = run.total_trials
            run.status, run.phase, run.decision = "completed", "done", _decide(run, plan)
            _event(run, "completed", current, decision=run.decision)
        else:
            run.completed_trials = done


def run_json(r: RuntimeRun) -> dict[str, Any]:
    return {
        "id": r.id,
        "plan_id": r.plan_id,
        "status": r.status,
        "phase": r.phase,
        "decision": r.decision,
        "completed_trials": r.completed_trials,
        "total_trials": r.total_trials,
        "created_at": r.created_at,
    }


def _idempotency_key(ctx: Ctx) -> str:
    rule = spec_op(ctx)["x-idempotency-key"]
    key = ctx.request.headers.get(rule["header"], "")
    if not rule["min_length"] <= len(key) <= rule["max_length"]:
        raise Refusal(
            400,
            "idempotency_key_required",
            f"Send an {rule['header']} header of {rule['min_length']} to {rule['max_length']} characters.",
        )
    return key


@op("runtime_eval_run")
async def runtime_eval_run(ctx: Ctx):
    """Idempotency-Key required; a duplicate start returns the original run and spends nothing."""
    s, b, who = system(ctx), body(ctx), caller(ctx)
    key = _idempotency_key(ctx)
    plan = _plan(ctx, s, b.get("plan_id") or "")
    original = next((r for r in s.runtime_runs.values() if r.idempotency_key == key), None)
    if original is not None:
        return Reply({"run": run_json(original)}, 200)
    if not who.account.installations and not accounts.billing_account(store(ctx), who).installations:
        raise Refusal(409, "github_not_connected", "Starting a plan needs GitHub authorization; connect GitHub first.")
    accounts.spend(store(ctx), cfg(ctx), who, now(ctx))
    run = RuntimeRun(
        id=f"rr_{store(ctx).seq('runtime_run')}",
        plan_id=plan.id,
        idempotency_key=key,
        status="queued",
        created_at=now(ctx),
        total_trials=_trials(plan.spec),
        last_tick=now(ctx),
    )
    _event(run, "queued", now(ctx))
    s.runtime_runs[run.id] = run
    return Reply({"run": run_json(run)}, 201)


def _rrun(ctx: Ctx, s: AiSystem) -> RuntimeRun:
    rid = ctx.path["runID"]
    if rid not in s.runtime_runs:
        raise Refusal(404, "run_not_found", f"System {s.id} has no runtime run {rid}.")
    return s.runtime_runs[rid]


def results_json(run: RuntimeRun, plan: EvaluationPlan) -> dict[str, Any]:
    """The run's status read apart from its decision: `bench eval status/results/gate/compare/export` read the
    top-level `id`, `status` and `result{decision, comparisons, metrics}`; `run` is the run itself."""
    return {
        "schema_version": 1,
        "id": run.id,
        "status": run.status,
        "phase": run.phase,
        "decision": run.decision,
        "completed_trials": run.completed_trials,
        "total_trials": run.total_trials,
        "result": result_json(run, plan),
        "run": run_json(run),
    }


@op("runtime_eval_results")
async def runtime_eval_results(ctx: Ctx):
    s = system(ctx)
    run = _rrun(ctx, s)
    return results_json(run, s.plans[run.plan_id])


@op("runtime_eval_events")
async def runtime_eval_events(ctx: Ctx):
    """action=events reads durable events after the cursor; any other action returns the protected result."""
    s = system(ctx)
    run = _rrun(ctx, s)
    if ctx.path["action"] != "events":
        return results_json(run, s.plans[run.plan_id])
    raw = ctx.raw_query.get("after") or "0"
    if not raw.isdigit():
        raise Refusal(400, "invalid_after", "after is a non-negative integer event cursor.")
    after = int(raw)
    events = [e for e in run.events if e["seq"] > after]
    # `status`: `bench eval watch` stops once the run is neither queued nor running
    return {"events": events, "next_after": events[-1]["seq"] if events else after, "status": run.status}


@op("runtime_eval_control")
async def runtime_eval_control(ctx: Ctx):
    """cancel; resume a canceled run; continue a paused one (action continue, or resume as the client sends it)
    with extend_budget or retry_ambiguous_attempt."""
    s, b = system(ctx), body(ctx)
    run = _rrun(ctx, s)
    action = ctx.path["action"]
    if action not in spec_op(ctx)["x-actions"]:
        raise Refusal(404, "unknown_action", f"action is one of {', '.join(spec_op(ctx)['x-actions'])}.")
    if action == "cancel":
        if run.status not in ("queued", "running", "paused"):
            raise Refusal(409, "invalid_run_state", f"Run {run.id} is {run.status}.")
        run.status, run.phase = "canceled", "canceled"
        _event(run, "canceled", now(ctx), completed_trials=run.completed_trials)
        return {"run": run_json(run)}
    _idempotency_key(ctx)
    # `resume` resumes a canceled run or continues a paused one (EvaluationClient.resume, `bench eval resume`,
    # always POSTs /resume); `continue` continues a paused one only
    if action == "resume" and run.status == "canceled":
        if run.completed_trials >= run.total_trials:
            raise Refusal(409, "invalid_run_state", "Only a canceled run with trials left can be resumed.")
    else:
        if run.status != "paused":
            raise Refusal(
                409,
                "invalid_run_state",
                "Only a canceled run can be resumed, or a paused one continued."
                if action == "resume"
                else "Only a paused run can be continued.",
            )
        if not b.get("extend_budget") and not b.get("retry_ambiguous_attempt"):
            raise Refusal(
                400, "extend_budget_required", "Continue with an explicit extend_budget or retry_ambiguous_attempt."
            )
        if b.get("extend_budget"):
            run.budget_extensions.append(dict(b["extend_budget"]))
    resumed = run.status == "canceled"
    run.status, run.phase, run.last_tick = "running", "development", now(ctx)
    _event(run, "resumed" if resumed else "continued", now(ctx))
    return {"run": run_json(run)}


def job_json(j: RuntimeJob) -> dict[str, Any]:
    return {
        "id": j.id,
        "status": j.status,
        "kind": j.kind,
        "fix": j.fix,
        "pull_request_url": j.pull_request_url,
        "created_at": j.created_at,
    }


def advance_jobs(system_row: AiSystem, current, seconds: float) -> None:
    for job in system_row.jobs.values():
        if job.status in ("queued", "running") and current >= job.created_at + timedelta(seconds=seconds):
            job.status = job.outcome
            if job.status == "completed" and job.fix is None:
                job.fix = {"summary": f"Guard the {job.kind} against the failing cases.", "files": ["app/prompts.py"]}


def settings_json(ctx: Ctx, s: AiSystem) -> dict[str, Any]:
    return {
        "available": True,
        "environment": cfg(ctx).environment["name"],
        "settings": s.runtime_settings,
        "jobs": [job_json(j) for j in s.jobs.values()],
    }


@op("get_runtime_settings")
async def get_runtime_settings(ctx: Ctx):
    return settings_json(ctx, system(ctx))


@op("set_runtime_settings")
async def set_runtime_settings(ctx: Ctx):
    """Enabling hosted execution queues a hosted job (it can spend allowance; the user approved it)."""
    s, b, who = system(ctx), ctx.body, caller(ctx)
    if b["daily_limit"] < 0:
        raise Refusal(400, "invalid_daily_limit", "daily_limit is 0 or more.")
    if not who.account.installations:
        raise Refusal(
            409, "github_not_connected", "Hosted execution runs a connected repository; connect GitHub first."
        )
    st = store(ctx)
    repos = {r: inst for inst in who.account.installations for r in st.installations[inst].repositories}
    if b["repository"] not in repos:
        raise Refusal(404, "repository_not_found", f"{b['repository']} is not in a connected GitHub installation.")
    if b["branch"] not in st.installations[repos[b["repository"]]].repositories[b["repository"]]:
        raise Refusal(404, "repository_not_found", f"{b['repository']} has no branch {b['branch']}.")
    was_enabled = bool(s.runtime_settings and s.runtime_settings["enabled"])
    s.runtime_settings = {k: b[k] for k in ("repository", "branch", "enabled", "daily_limit", "config")}
    if b["enabled"] and not was_enabled:
        job = RuntimeJob(id=f"job_{st.seq('job')}", kind="hosted_run", status="queued", created_at=now(ctx))
        s.jobs[job.id] = job
    return settings_json(ctx, s)


def _job(ctx: Ctx, s: AiSystem) -> RuntimeJob:
    jid = ctx.path["jobID"]
    if jid not in s.jobs:
        raise Refusal(404, "job_not_found", f"System {s.id} has no runtime job {jid}.")
    return s.jobs[jid]


@op("publish_runtime_fix")
async def publish_runtime_fix(ctx: Ctx):
    s = system(ctx)
    job = _job(ctx, s)
    if job.status != "completed":
        raise Refusal(409, "job_not_completed", f"Job {job.id} is {job.status}.")
    if not job.fix:
        raise Refusal(409, "no_fix", f"Job {job.id} produced no fix.")
    if job.pull_request_url:
        raise Refusal(409, "already_published", f"Job {job.id} was published as {job.pull_request_url}.")
    repo = (s.runtime_settings or {}).get("repository") or "unknown/unknown"
    number = store(ctx).seq("pull_request", start=100)
    job.pull_request_url = f"{cfg(ctx).links['pull_request_base_url']}/{repo}/pull/{number}"
    return {"job": job_json(job)}


@op("retry_runtime_job")
async def retry_runtime_job(ctx: Ctx):
    s = system(ctx)
    job = _job(ctx, s)
    if job.status != "failed":
        raise Refusal(409, "job_not_failed", f"Job {job.id} is {job.status}; only failed jobs are retried.")
    job.status, job.outcome, job.created_at = "queued", "completed", now(ctx)
    return {"job": job_json(job)}
