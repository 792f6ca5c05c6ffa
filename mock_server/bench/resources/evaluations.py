"""Evaluation allowance, runs, artifacts and their lifecycle (C-47–C-50, C-52)."""

from __future__ import annotations

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model import evaluations as model
from ..model.errors import Refusal
from ._common import body, caller, cfg, flag, now, op, store, tenant, unpaged


@op("evaluation_allowance")
async def evaluation_allowance(ctx: Ctx):
    """C-47: read before spending; reading spends nothing."""
    return {"allowance": accounts.allowance(cfg(ctx), accounts.billing_account(store(ctx), caller(ctx)), now(ctx))}


def _start(ctx: Ctx, **kw) -> Reply:
    who = caller(ctx)
    accounts.spend(store(ctx), cfg(ctx), who, now(ctx))
    run = model.new_run(
        store(ctx), tenant=tenant(ctx), account_id=who.account.id, credential_id=who.credential.id, now=now(ctx), **kw
    )
    return Reply({"runs": [model.run_json(run)]}, 201)


@op("start_system_evaluation")
async def start_system_evaluation(ctx: Ctx):
    """C-48, C-49: `{runs: [{id}]}` and one evaluation spent; `{runs: []}`, nothing spent, when nothing can run."""
    sid = body(ctx).get("ai_system_id")
    if sid is None:
        raise Refusal(400, "ai_system_id_required", "Give ai_system_id from list_systems.")
    s = store(ctx).systems.get(sid)
    if s is None or s.tenant != tenant(ctx):
        raise Refusal(404, "system_not_found", f"AI system {sid} was not found.")
    if not model.evaluable(s):
        return Reply({"runs": []}, 200)
    return _start(ctx, kind="system", system=s, repo_full_name=None, request={"ai_system_id": sid})


@op("start_evaluation")
async def start_evaluation(ctx: Ctx):
    """Repository prompts from the latest scan of the branch, one case per prompt; optional system context."""
    b, st, t = body(ctx), store(ctx), tenant(ctx)
    repo, branch = b.get("repo_full_name"), b.get("branch") or "main"
    prompts = b.get("prompts") or []
    if not repo or not prompts:
        raise Refusal(400, "no_prompts", "Give repo_full_name and at least one prompt call_site_id.")
    accounts.require_repo(caller(ctx), repo)
    s = None
    if b.get("ai_system_id") is not None:
        s = st.systems.get(b["ai_system_id"])
        if s is None or s.tenant != t:
            raise Refusal(404, "system_not_found", f"AI system {b['ai_system_id']} was not found.")
    scans = [x for x in st.scans.values() if x.tenant == t and x.repo_full_name == repo and x.branch == branch]
    if not scans:
        raise Refusal(404, "repository_not_found", f"No scan of {repo}@{branch}; scan the repository first.")
    sites = {c["id"]: c for c in scans[-1].call_sites}
    cases = []
    for p in prompts:
        site = sites.get(p.get("call_site_id"))
        if site is None:
            raise Refusal(404, "call_site_not_found", f"The scan has no call site {p.get('call_site_id')!r}.")
        cases.append(
            {
                "case_id": site["id"],
                "source_id": site["id"],
                "component_id": None,
                "input": p.get("workflow_name") or site["name"],
                "expected": site.get("content"),
            }
        )
    return _start(ctx, kind="repository", system=s, repo_full_name=repo, cases=cases, request=b)


@op("list_evaluations")
async def list_evaluations(ctx: Ctx):
    """History, newest first; queued and running runs with include_active=true; archived ones hidden."""
    return unpaged(ctx, model.history(store(ctx), tenant(ctx), flag(ctx, "include_active")))


def _run(ctx: Ctx):
    return model.get(store(ctx), tenant(ctx), ctx.path["id"])


@op("get_evaluation")
async def get_evaluation(ctx: Ctx):
    return {"run": model.run_json(_run(ctx))}


@op("get_evaluation_artifacts")
async def get_evaluation_artifacts(ctx: Ctx):
    return {"artifacts": model.artifacts(_run(ctx), cfg(ctx).page["max_context_bytes"])}


@op("get_fix_brief")
async def get_fix_brief(ctx: Ctx):
    return {"fix_brief": model.fix_brief(_run(ctx))}


@op("cancel_evaluation")
async def cancel_evaluation(ctx: Ctx):
    run = _run(ctx)
    model.cancel(store(ctx), run, now(ctx))
    return {"run": model.run_json(run)}


@op("cancel_bench")
async def cancel_bench(ctx: Ctx):
    run = _run(ctx)
    model.cancel(store(ctx), run, now(ctx), bench_only=True)
    return {"run": model.run_json(run)}


@op("submit_run_review")
async def submit_run_review(ctx: Ctx):
    run = _run(ctx)
    model.require_finished(run)
    cases = body(ctx).get("test_cases")
    if not isinstance(cases, list):
        raise Refusal(400, "invalid_test_cases", "test_cases is a list of reviewed cases.")
    run.review = cases
    return {"run": model.run_json(run)}


@op("archive_evaluation")
async def archive_evaluation(ctx: Ctx):
    run = _run(ctx)
    model.archive(run, True)
    return {"run": model.run_json(run)}


@op("unarchive_evaluation")
async def unarchive_evaluation(ctx: Ctx):
    run = _run(ctx)
    model.archive(run, False)
    return {"run": model.run_json(run)}


@op("rerun_evaluation")
async def rerun_evaluation(ctx: Ctx):
    """A new run like a finished one, with the system's current context; spends one evaluation."""
    old = _run(ctx)
    model.require_finished(old)
    s = store(ctx).systems.get(old.ai_system_id) if old.ai_system_id is not None else None
    cases = None if old.kind == "system" else [dict(c) for c in old.cases]
    reply = _start(
        ctx,
        kind=old.kind,
        system=s,
        repo_full_name=old.repo_full_name,
        cases=cases,
        request={**old.request, **body(ctx)},
    )
    new_id = reply.body["runs"][0]["id"]
    store(ctx).evaluations[new_id].rerun_of = old.id
    reply.body["runs"][0]["rerun_of"] = old.id
    return reply
