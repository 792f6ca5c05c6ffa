"""AI systems, components, edges, findings, recorded runs and production feedback."""

from __future__ import annotations

import re
from typing import Any

from mock_server.engine import Ctx, Reply

from ..model import accounts, evaluations
from ..model.errors import Refusal
from ..store import AiSystem, Component, Edge, Scan, SystemRun
from ._common import body, caller, cfg, component, int_id, now, op, store, system, tenant, trimmed, unpaged

SHA = re.compile(r"^[0-9a-f]{40}$")
FINDING_STATUSES = ("open", "resolved", "accepted")
RUN_OUTCOMES = ("completed", "failed")


def component_json(c: Component) -> dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "kind": c.kind,
        "role": c.role,
        "repo_full_name": c.repo_full_name,
        "branch": c.branch,
        "call_site_id": c.call_site_id,
        "model": c.model,
        "continuous_evaluation": c.continuous_evaluation,
    }


def edge_json(e: Edge) -> dict[str, Any]:
    return {
        "id": e.id,
        "from_component_id": e.from_component_id,
        "to_component_id": e.to_component_id,
        "edge_type": e.edge_type,
    }


def system_json(s: AiSystem) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "description": s.description,
        "components": [component_json(c) for c in s.components.values()],
        "edges": [edge_json(e) for e in s.edges.values()],
        "findings": list(s.findings.values()),
        "context_version": s.context.version,
        "created_at": s.created_at,
    }


def new_system(ctx: Ctx, name: str, description: str | None) -> AiSystem:
    st = store(ctx)
    s = AiSystem(
        id=st.seq("system", start=100), tenant=tenant(ctx), name=name, description=description, created_at=now(ctx)
    )
    s.context.snapshots[0] = []
    st.systems[s.id] = s
    return s


@op("create_system")
async def create_system(ctx: Ctx):
    b = body(ctx)
    name = trimmed(b.get("name"))
    if not name:
        raise Refusal(400, "name_required", "A system needs a name.")
    return Reply({"system": system_json(new_system(ctx, name, b.get("description")))}, 201)


@op("list_systems")
async def list_systems(ctx: Ctx):
    t = tenant(ctx)
    return unpaged(ctx, [system_json(s) for s in store(ctx).systems.values() if s.tenant == t])


@op("get_system")
async def get_system(ctx: Ctx):
    return {"system": system_json(system(ctx))}


@op("update_system")
async def update_system(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    if "name" in b:
        if not trimmed(b["name"]):
            raise Refusal(400, "name_required", "A system needs a name.")
        s.name = trimmed(b["name"])
    if "description" in b:
        s.description = b["description"]
    return {"system": system_json(s)}


@op("delete_system")
async def delete_system(ctx: Ctx):
    """Deletes the system and its datasets; evaluation history keeps its runs (historical reports, C-46)."""
    s, st = system(ctx), store(ctx)
    del st.systems[s.id]
    for ds_id in [d.id for d in st.datasets.values() if d.ai_system_id == s.id]:
        del st.datasets[ds_id]
    return Reply(status=204)


@op("resolve_finding")
async def resolve_finding(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    finding = s.findings.get(b.get("key") or "")
    if finding is None:
        raise Refusal(404, "finding_not_found", f"System {s.id} has no finding {b.get('key')!r}.")
    status = b.get("status") or "resolved"
    if status not in FINDING_STATUSES:
        raise Refusal(400, "invalid_finding_status", f"status is one of {', '.join(FINDING_STATUSES)}.")
    finding["status"] = status
    return {"finding": finding}


def latest_scan(ctx: Ctx, repo: str, branch: str) -> Scan | None:
    t = tenant(ctx)
    scans = [x for x in store(ctx).scans.values() if x.tenant == t and x.repo_full_name == repo and x.branch == branch]
    return scans[-1] if scans else None


@op("add_system_component")
async def add_system_component(ctx: Ctx):
    """Attaches a call site returned by a scan (exact repo_full_name, branch, call_site_id)."""
    s, b = system(ctx), body(ctx)
    repo, branch, site_id = b.get("repo_full_name") or "", b.get("branch") or "", b.get("call_site_id") or ""
    accounts.require_repo(caller(ctx), repo)
    scan = latest_scan(ctx, repo, branch)
    if scan is None:
        raise Refusal(404, "scan_not_found", f"No scan of {repo}@{branch}; scan it or upload prompts first.")
    site = next((c for c in scan.call_sites if c["id"] == site_id), None)
    if site is None:
        raise Refusal(404, "call_site_not_found", f"The scan of {repo}@{branch} has no call site {site_id!r}.")
    if any(
        c.repo_full_name == repo and c.branch == branch and c.call_site_id == site_id for c in s.components.values()
    ):
        raise Refusal(409, "component_exists", "That call site is already a component of this system.")
    comp = Component(
        id=store(ctx).seq("component", start=500),
        name=site["name"],
        kind=site.get("kind", "prompt"),
        role=b.get("role"),
        repo_full_name=repo,
        branch=branch,
        call_site_id=site_id,
        model=site.get("model"),
    )
    s.components[comp.id] = comp
    return Reply({"component": component_json(comp)}, 201)


def _register(ctx: Ctx, entries: list[dict[str, Any]], kind: str) -> Reply:
    """Shared by register_prompts and register_calls: components plus a scan merged under the repository."""
    s, b, who = system(ctx), body(ctx), caller(ctx)
    repo, branch = b.get("repo_full_name") or "uploads", b.get("branch") or "main"
    accounts.require_repo(who, repo)
    if b.get("commit_sha") is not None and not SHA.match(b["commit_sha"]):
        raise Refusal(400, "invalid_commit_sha", "commit_sha is a 40-hex commit.")
    if b.get("model") is not None:
        accounts.require_model_selection(cfg(ctx), accounts.billing_account(store(ctx), who), "Naming the model")
    scan = latest_scan(ctx, repo, branch)
    if scan is None:
        st = store(ctx)
        scan = Scan(
            id=f"scan_{st.seq('scan')}",
            tenant=tenant(ctx),
            repo_full_name=repo,
            branch=branch,
            status="completed",
            call_sites=[],
            created_at=now(ctx),
            completed_at=now(ctx),
        )
        st.scans[scan.id] = scan
    out = []
    for entry in entries:
        site = {**entry, "kind": kind, "model": b.get("model")}
        existing = next((c for c in scan.call_sites if c["id"] == entry["id"]), None)
        if existing:
            existing.update(site)
        else:
            scan.call_sites.append(site)
        comp = next(
            (
                c
                for c in s.components.values()
                if c.repo_full_name == repo and c.branch == branch and c.call_site_id == entry["id"]
            ),
            None,
        )
        if comp is None:
            comp = Component(
                id=store(ctx).seq("component", start=500),
                name=entry["name"],
                kind=kind,
                repo_full_name=repo,
                branch=branch,
                call_site_id=entry["id"],
            )
            s.components[comp.id] = comp
        comp.model = b.get("model") or comp.model
        comp.definition = entry.get("definition")
        out.append(component_json(comp))
    return Reply({"components": out}, 201)


@op("register_prompts")
async def register_prompts(ctx: Ctx):
    prompts = body(ctx).get("prompts") or []
    if not prompts:
        raise Refusal(400, "no_prompts", "Register at least one prompt.")
    entries = []
    for i, p in enumerate(prompts):
        name = p.get("name") or f"{p.get('path', 'prompt')}:{p.get('line', i + 1)}"
        site_id = f"{p.get('path', 'prompt')}:{p.get('line', i + 1)}"
        entries.append(
            {
                "id": site_id,
                "name": name,
                "path": p.get("path"),
                "line": p.get("line"),
                "content": p.get("content"),
                "definition": p,
            }
        )
    return _register(ctx, entries, "prompt")


@op("register_calls")
async def register_calls(ctx: Ctx):
    calls = body(ctx).get("calls") or []
    if not calls:
        raise Refusal(400, "no_calls", "Register at least one model call.")
    entries = []
    for i, call in enumerate(calls):
        configs = call.get("configurations") or []
        if configs and sum(1 for c in configs if c.get("source") == "code") != 1:
            raise Refusal(400, "invalid_call", f"Call {i}: exactly one configuration has source 'code'.")
        site_id = call.get("id") or call.get("name") or f"call-{i + 1}"
        entries.append({"id": site_id, "name": call.get("name") or site_id, "definition": call})
    return _register(ctx, entries, "model_call")


@op("remove_system_component")
async def remove_system_component(ctx: Ctx):
    s = system(ctx)
    comp = component(s, ctx.path["componentID"])
    del s.components[comp.id]
    for eid in [e.id for e in s.edges.values() if comp.id in (e.from_component_id, e.to_component_id)]:
        del s.edges[eid]
    return Reply(status=204)


@op("set_continuous_evaluation")
async def set_continuous_evaluation(ctx: Ctx):
    s = system(ctx)
    comp = component(s, ctx.path["componentID"])
    if "enabled" in body(ctx):
        comp.continuous_evaluation = bool(body(ctx)["enabled"])
    return {"component": component_json(comp)}


@op("add_system_connection")
async def add_system_connection(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    a = component(s, b.get("from_component_id"))
    z = component(s, b.get("to_component_id"))
    if a.id == z.id:
        raise Refusal(400, "self_edge", "An edge joins two different components.")
    kind = b.get("edge_type") or "calls"
    if any(e.from_component_id == a.id and e.to_component_id == z.id and e.edge_type == kind for e in s.edges.values()):
        raise Refusal(409, "edge_exists", "That edge already exists.")
    edge = Edge(id=store(ctx).seq("edge", start=10), from_component_id=a.id, to_component_id=z.id, edge_type=kind)
    s.edges[edge.id] = edge
    return Reply({"edge": edge_json(edge)}, 201)


@op("remove_system_connection")
async def remove_system_connection(ctx: Ctx):
    s = system(ctx)
    eid = int_id(ctx.path["edgeID"], "edge_not_found", "Edge")
    if eid not in s.edges:
        raise Refusal(404, "edge_not_found", f"System {s.id} has no edge {ctx.path['edgeID']}.")
    del s.edges[eid]
    return Reply(status=204)


def run_json(r: SystemRun, sid: int) -> dict[str, Any]:
    return {
        "id": r.id,
        "ai_system_id": sid,
        "status": r.status,
        "outcome": r.outcome,
        "outcome_reason": r.outcome_reason,
        "links": r.links,
        "created_at": r.created_at,
        "completed_at": r.completed_at,
    }


def _run(ctx: Ctx, s: AiSystem) -> SystemRun:
    rid = int_id(ctx.path["runID"], "run_not_found", "Run")
    if rid not in s.runs:
        raise Refusal(404, "run_not_found", f"System {s.id} has no run {ctx.path['runID']}.")
    return s.runs[rid]


@op("create_system_run")
async def create_system_run(ctx: Ctx):
    s = system(ctx)
    run = SystemRun(id=store(ctx).seq("system_run"), status="running", links=[], created_at=now(ctx))
    s.runs[run.id] = run
    return Reply({"run": run_json(run, s.id)}, 201)


@op("list_system_runs")
async def list_system_runs(ctx: Ctx):
    s = system(ctx)
    return unpaged(ctx, [run_json(r, s.id) for r in sorted(s.runs.values(), key=lambda r: r.id, reverse=True)])


@op("get_system_run")
async def get_system_run(ctx: Ctx):
    s = system(ctx)
    return {"run": run_json(_run(ctx, s), s.id)}


@op("link_system_run")
async def link_system_run(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    run = _run(ctx, s)
    if run.status != "running":
        raise Refusal(409, "run_completed", f"Run {run.id} is already {run.status}.")
    comp = component(s, b.get("ai_system_component_id"))
    evaluation = evaluations.get(store(ctx), tenant(ctx), b.get("evaluation_run_id"))
    link = {"ai_system_component_id": comp.id, "evaluation_run_id": evaluation.id}
    if link not in run.links:
        run.links.append(link)
    return {"run": run_json(run, s.id)}


@op("complete_system_run")
async def complete_system_run(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    run = _run(ctx, s)
    if run.status != "running":
        raise Refusal(409, "run_completed", f"Run {run.id} is already {run.status}.")
    status = b.get("status") or "completed"
    if status not in RUN_OUTCOMES:
        raise Refusal(400, "invalid_run_status", f"status is one of {', '.join(RUN_OUTCOMES)}.")
    run.status, run.outcome, run.outcome_reason, run.completed_at = (
        status,
        b.get("outcome"),
        b.get("outcome_reason"),
        now(ctx),
    )
    return {"run": run_json(run, s.id)}


@op("get_production_health")
async def get_production_health(ctx: Ctx):
    """Trace volume and error spans per environment, over traces whose spans link to this system."""
    s = system(ctx)
    envs: dict[str, dict[str, Any]] = {}
    for tr in store(ctx).traces.values():
        if tr.tenant != s.tenant or (
            not any(link["ai_system_id"] == s.id for link in tr.links.values()) and tr.system_name != s.name
        ):
            continue
        env = envs.setdefault(
            tr.environment or "unspecified",
            {"environment": tr.environment or "unspecified", "traces": 0, "errors": 0, "last_trace_at": None},
        )
        env["traces"] += 1
        env["errors"] += int(any(sp.get("status") == "error" for sp in tr.spans))
        env["last_trace_at"] = max(filter(None, [env["last_trace_at"], tr.received_at]))
    for env in envs.values():
        env["error_rate"] = round(env["errors"] / env["traces"], 4) if env["traces"] else 0.0
    return {"health": {"ai_system_id": s.id, "environments": list(envs.values())}}


@op("get_production_feedback")
async def get_production_feedback(ctx: Ctx):
    return {"feedback": list(system(ctx).production_feedback.values())}


@op("set_production_feedback")
async def set_production_feedback(ctx: Ctx):
    s, b = system(ctx), body(ctx)
    s.production_feedback[b["environment"]] = {
        "environment": b["environment"],
        "enabled": b["enabled"],
        "auto_bench": bool(b.get("auto_bench", False)),
    }
    return {"feedback": list(s.production_feedback.values())}
