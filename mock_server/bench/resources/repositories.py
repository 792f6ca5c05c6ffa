"""Scans, prompt uploads and the legacy NDJSON stage operations (C-32, C-61, C-62)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from mock_server.engine import Ctx, Reply
from mock_server.policies.streaming import ndjson_response

from ..model import accounts
from ..model.errors import Refusal
from ..store import RepoState, Scan
from ._common import body, caller, cfg, now, op, spec_op, store, tenant, trimmed
from .github import repository


def ndjson(events: list[dict[str, Any]]):
    """C-61: one JSON object per line, HTTP 200 even when the last event is an error (C-62)."""
    return ndjson_response(events)


def _branch(ctx: Ctx) -> str:
    branch = ctx.raw_query.get("branch")
    if not branch:
        raise Refusal(400, "branch_required", "Give the repository branch (?branch=...).")
    return branch


def _repo(ctx: Ctx, need_branch: bool = True) -> tuple[str, str]:
    branch = _branch(ctx) if need_branch else ctx.raw_query.get("branch", "")
    full, _, branches = repository(ctx, ctx.path["owner"], ctx.path["repo"])
    if branch and branch not in branches:
        raise Refusal(404, "branch_not_found", f"{full} has no branch {branch}.")
    return full, branch


def _state(ctx: Ctx, full: str, branch: str) -> RepoState:
    return store(ctx).repo_states.setdefault((tenant(ctx), full, branch), RepoState())


def scan_json(s: Scan) -> dict[str, Any]:
    return {
        "id": s.id,
        "repo_full_name": s.repo_full_name,
        "branch": s.branch,
        "status": s.status,
        "call_sites": s.call_sites,
        "created_at": s.created_at,
        "completed_at": s.completed_at,
    }


def latest_scan(ctx: Ctx, full: str, branch: str) -> Scan | None:
    t = tenant(ctx)
    found = [s for s in store(ctx).scans.values() if s.tenant == t and s.repo_full_name == full and s.branch == branch]
    return found[-1] if found else None


def advance_scans(st, current, seconds: float) -> None:
    for s in st.scans.values():
        if s.status == "queued" and current >= s.created_at + timedelta(seconds=seconds):
            s.status, s.completed_at = "completed", s.created_at + timedelta(seconds=seconds)
            s.call_sites = [dict(c) for c in st.repo_call_sites.get(s.repo_full_name, [])]


@op("upload_prompts")
async def upload_prompts(ctx: Ctx):
    """C-32: files summed at most `x-max-file-bytes` (2 MiB), or pasted text; each becomes a call site of a scan."""
    o, form = spec_op(ctx), body(ctx)
    files = ctx.files.get(o["x-file-field"]) or []
    total = sum(len(f.data) for f in files)
    if total > o["x-max-file-bytes"]:
        raise Refusal(
            413,
            "file_too_large",
            f"Prompt uploads hold at most {o['x-max-file-bytes']} bytes in total.",
            limit=o["x-max-file-bytes"],
        )
    if not files and not form.get("pasted_text"):
        raise Refusal(400, "no_prompts", "Upload prompt files or paste prompt text.")
    if form.get("model"):
        accounts.require_model_selection(
            cfg(ctx), accounts.billing_account(store(ctx), caller(ctx)), "Naming the model"
        )
    st = store(ctx)
    n = st.seq("scan")
    sites = []
    for f in files:
        try:
            text = f.data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refusal(400, "no_prompts", f"{f.filename} is not UTF-8 text.") from None
        sites.append(
            {
                "id": f.filename,
                "name": f.filename,
                "path": f.filename,
                "line": 1,
                "kind": "prompt",
                "content": text,
                "model": form.get("model"),
            }
        )
    if form.get("pasted_text"):
        sites.append(
            {
                "id": "pasted-1",
                "name": "Pasted prompt",
                "path": None,
                "line": 1,
                "kind": "prompt",
                "content": form["pasted_text"],
                "model": form.get("model"),
            }
        )
    scan = Scan(
        id=f"scan_{n}",
        tenant=tenant(ctx),
        repo_full_name=f"uploads/scan_{n}",
        branch="upload",
        status="completed",
        call_sites=sites,
        created_at=now(ctx),
        completed_at=now(ctx),
    )
    st.scans[scan.id] = scan
    return Reply({"scan": scan_json(scan)}, 201)


@op("scan_repo")
async def scan_repo(ctx: Ctx):
    """Queued; completes after `scan_seconds` of simulated time with the repository's call sites."""
    full, branch = _repo(ctx)
    st = store(ctx)
    scan = Scan(
        id=f"scan_{st.seq('scan')}",
        tenant=tenant(ctx),
        repo_full_name=full,
        branch=branch,
        status="queued",
        call_sites=[],
        created_at=now(ctx),
    )
    st.scans[scan.id] = scan
    return Reply({"scan": scan_json(scan)}, 202)


@op("get_scan")
async def get_scan(ctx: Ctx):
    full, branch = _repo(ctx)
    scan = latest_scan(ctx, full, branch)
    if scan is None:
        raise Refusal(404, "scan_not_found", f"{full}@{branch} has not been scanned.")
    return {"scan": scan_json(scan)}


@op("get_repository_refresh")
async def get_repository_refresh(ctx: Ctx):
    full, branch = _repo(ctx)
    return {"repo_full_name": full, "branch": branch, "enabled": _state(ctx, full, branch).refresh}


@op("set_repository_refresh")
async def set_repository_refresh(ctx: Ctx):
    full, branch = _repo(ctx)
    state = _state(ctx, full, branch)
    if "enabled" in body(ctx):
        state.refresh = bool(body(ctx)["enabled"])
    return {"repo_full_name": full, "branch": branch, "enabled": state.refresh}


@op("set_prompt_models")
async def set_prompt_models(ctx: Ctx):
    """Source metadata only; requires the model-selection entitlement (`x-plan-required`)."""
    full, branch = _repo(ctx)
    account = accounts.billing_account(store(ctx), caller(ctx))
    accounts.require_plan(cfg(ctx), account, spec_op(ctx)["x-plan-required"], "Recording prompt models")
    scan = latest_scan(ctx, full, branch)
    if scan is None or scan.status != "completed":
        raise Refusal(404, "scan_not_found", f"{full}@{branch} has no completed scan.")
    ids = body(ctx).get("call_site_ids") or []
    sites = {c["id"]: c for c in scan.call_sites}
    missing = [i for i in ids if i not in sites]
    if missing:
        raise Refusal(404, "call_site_not_found", f"Unknown call sites: {', '.join(missing)}.")
    for i in ids:
        sites[i]["model"] = body(ctx).get("model")
    return {"scan": scan_json(scan)}


@op("open_prompt_pr")
async def open_prompt_pr(ctx: Ctx):
    full, _, branches = repository(ctx, ctx.path["owner"], ctx.path["repo"])
    b = body(ctx)
    changes = b.get("changes") or []
    if not changes or not all(c.get("path") for c in changes):
        raise Refusal(400, "no_changes", "A pull request needs at least one change with a path.")
    base = b.get("base_branch") or ctx.raw_query.get("branch") or branches[0]
    if base not in branches:
        raise Refusal(404, "branch_not_found", f"{full} has no branch {base}.")
    prs = store(ctx).pull_requests.setdefault(full, [])
    number = len(prs) + 1
    pr = {
        "number": number,
        "url": f"{cfg(ctx).links['pull_request_base_url']}/{full}/pull/{number}",
        "title": b.get("title") or "Update prompts",
        "branch": b.get("branch") or f"bench/prompts-{number}",
        "base_branch": base,
        "files": [c["path"] for c in changes],
    }
    prs.append(pr)
    return Reply({"pull_request": pr}, 201)


@op("generate_business_context")
async def generate_business_context(ctx: Ctx):
    full, branch = _repo(ctx)
    text = (body(ctx).get("business_doc_text") or "").strip()
    scan = latest_scan(ctx, full, branch)
    sites = len(scan.call_sites) if scan else 0
    first = text.split(".")[0].strip() if text else f"{full} has no business document yet"
    state = _state(ctx, full, branch)
    state.business_context = {
        "id": f"bc_{store(ctx).seq('business_context')}",
        "repo_full_name": full,
        "branch": branch,
        "summary": f"{first}. {sites} prompt call sites found on {branch}.",
        "created_at": now(ctx),
    }
    return Reply({"business_context": state.business_context}, 201)


def _latest(ctx: Ctx, attr: str, code: str, what: str) -> dict[str, Any]:
    full, branch = _repo(ctx)
    value = getattr(_state(ctx, full, branch), attr)
    if value is None:
        raise Refusal(404, code, f"{full}@{branch} has no {what} yet.")
    return value


@op("get_business_context")
async def get_business_context(ctx: Ctx):
    return {"business_context": _latest(ctx, "business_context", "business_context_not_found", "business context")}


def _error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


@op("generate_eval_benchmark")
async def generate_eval_benchmark(ctx: Ctx):
    """A stage stream: progress per call site, then the benchmark; no completed scan ends with an error event."""
    full, branch = _repo(ctx)
    events: list[dict[str, Any]] = [
        {"type": "progress", "stage": "load_scan", "message": f"Reading the scan of {full}@{branch}"}
    ]
    scan = latest_scan(ctx, full, branch)
    if scan is None or scan.status != "completed":
        return ndjson([*events, _error("scan_required", f"Scan {full}@{branch} before generating a benchmark.")])
    only = ctx.raw_query.get("call_site_id")
    sites = [c for c in scan.call_sites if only is None or c["id"] == only]
    if only is not None and not sites:
        return ndjson([*events, _error("call_site_not_found", f"The scan has no call site {only!r}.")])
    cases = []
    for site in sites:
        events.append({"type": "progress", "stage": "generate", "message": f"Cases for {site['name']}"})
        for k in (1, 2):
            cases.append(
                {
                    "id": f"gc_{site['id']}_{k}".replace("/", "_"),
                    "call_site_id": site["id"],
                    "input": f"Example {k} for {site['name']}",
                    "expected": None,
                    "label": None,
                    "note": None,
                }
            )
    bench = {
        "id": f"bm_{store(ctx).seq('benchmark')}",
        "suite_name": body(ctx).get("suite_name") or f"{full} benchmark",
        "repo_full_name": full,
        "branch": branch,
        "call_site_id": only,
        "reviewed": False,
        "test_cases": cases,
    }
    _state(ctx, full, branch).benchmark = bench
    return ndjson([*events, {"type": "result", "stage": "done", "result": {"benchmark": bench}}])


@op("get_eval_benchmark")
async def get_eval_benchmark(ctx: Ctx):
    return {"benchmark": _latest(ctx, "benchmark", "benchmark_not_found", "benchmark")}


@op("review_eval_benchmark")
async def review_eval_benchmark(ctx: Ctx):
    bench = _latest(ctx, "benchmark", "benchmark_not_found", "benchmark")
    cases = body(ctx).get("test_cases")
    if (
        not isinstance(cases, list)
        or not cases
        or not all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in cases)
    ):
        raise Refusal(400, "invalid_test_cases", "test_cases is a non-empty list of cases, each with an id.")
    bench["test_cases"] = [{"label": None, "note": None, **c} for c in cases]
    bench["reviewed"] = True
    return {"benchmark": bench}


def _score(key: str) -> float:
    return round(50 + hashlib.sha256(key.encode()).digest()[0] / 255 * 50, 2)


@op("run_baseline")
async def run_baseline(ctx: Ctx):
    """Needs a reviewed benchmark (else a terminal error event, nothing spent); spends one.

    A model override needs Growth or Enterprise (`x-plan-required-for`)."""
    full, branch = _repo(ctx)
    state = _state(ctx, full, branch)
    b, who = body(ctx), caller(ctx)
    start = {"type": "progress", "stage": "load_benchmark", "message": f"Reading the benchmark of {full}@{branch}"}
    if not state.benchmark or not state.benchmark["reviewed"]:
        return ndjson([start, _error("benchmark_not_reviewed", "Review the generated benchmark before a baseline.")])
    if b.get("model"):
        plans = spec_op(ctx)["x-plan-required-for"]["model"]
        accounts.require_plan(cfg(ctx), accounts.billing_account(store(ctx), who), plans, "A model override")
    accounts.spend(store(ctx), cfg(ctx), who, now(ctx), spec_op(ctx)["x-spends"])
    cases = []
    events = [start]
    for c in state.benchmark["test_cases"]:
        score = _score(f"{c['id']}:{b.get('model')}")
        cases.append({"id": c["id"], "score": score, "passed": score >= 70})
        events.append({"type": "progress", "stage": "score", "message": f"Scored {c['id']}"})
    model = b.get("model") or "bench-default"
    state.baseline = {
        "id": f"bl_{store(ctx).seq('baseline')}",
        "suite_name": b.get("suite_name") or state.benchmark["suite_name"],
        "model": model,
        "score": round(sum(c["score"] for c in cases) / len(cases), 2),
        "cases": cases,
    }
    return ndjson([*events, {"type": "result", "stage": "done", "result": {"baseline": state.baseline}}])


@op("get_baseline")
async def get_baseline(ctx: Ctx):
    return {"baseline": _latest(ctx, "baseline", "baseline_not_found", "baseline")}


@op("run_search_optimize")
async def run_search_optimize(ctx: Ctx):
    """Needs a baseline (else a terminal error event); spends one; variants scored reproducibly."""
    full, branch = _repo(ctx)
    state = _state(ctx, full, branch)
    b, who = body(ctx), caller(ctx)
    start = {"type": "progress", "stage": "load_baseline", "message": f"Reading the baseline of {full}@{branch}"}
    if state.baseline is None:
        return ndjson([start, _error("baseline_required", "Run a baseline before optimizing.")])
    accounts.spend(store(ctx), cfg(ctx), who, now(ctx), spec_op(ctx)["x-spends"])
    count = max(1, min(b.get("variant_count") or 3, 10))
    providers = accounts.billing_account(store(ctx), who).model_providers or list(cfg(ctx).providers)
    models = [m for p in providers for m in cfg(ctx).providers.get(p, [])]
    variants, events = [], [start]
    for i in range(count):
        vid = f"v{i + 1}"
        model = models[i % len(models)]
        variants.append(
            {
                "id": vid,
                "model": model,
                "score": _score(f"{state.baseline['id']}:{vid}:{model}"),
                "prompt": f"Variant {i + 1} of the baseline prompt",
            }
        )
        events.append({"type": "progress", "stage": "variant", "message": f"Scored variant {vid}"})
    best = max(variants, key=lambda v: v["score"])
    state.search_optimize = {
        "id": f"so_{store(ctx).seq('search_optimize')}",
        "variants": variants,
        "best_variant_id": best["id"],
        "baseline_score": state.baseline["score"],
    }
    return ndjson([*events, {"type": "result", "stage": "done", "result": {"search_optimize": state.search_optimize}}])


@op("get_search_optimize")
async def get_search_optimize(ctx: Ctx):
    return {"search_optimize": _latest(ctx, "search_optimize", "search_optimize_not_found", "optimization result")}


@op("get_recommendation")
async def get_recommendation(ctx: Ctx):
    """The best variant, when it beats the baseline."""
    full, branch = _repo(ctx)
    so = _state(ctx, full, branch).search_optimize
    best = next((v for v in so["variants"] if v["id"] == so["best_variant_id"]), None) if so else None
    if so is None or best is None or best["score"] <= so["baseline_score"]:
        raise Refusal(404, "recommendation_not_found", f"No variant of {full}@{branch} beats its baseline.")
    return {
        "recommendation": {
            "variant_id": best["id"],
            "model": best["model"],
            "score": best["score"],
            "improvement": round(best["score"] - so["baseline_score"], 2),
            "prompt": best["prompt"],
        }
    }


@op("list_golden_cases")
async def list_golden_cases(ctx: Ctx):
    full, branch = _repo(ctx)
    bench = _state(ctx, full, branch).benchmark
    only = ctx.raw_query.get("call_site_id")
    cases = bench["test_cases"] if bench and bench["reviewed"] else []
    return {"items": [c for c in cases if only is None or c.get("call_site_id") == only]}


@op("label_golden_case")
async def label_golden_case(ctx: Ctx):
    label = trimmed(body(ctx).get("label"))
    if not label:
        raise Refusal(400, "invalid_label", "Give a label.")
    t = tenant(ctx)
    for (owner, _, _), state in store(ctx).repo_states.items():
        if owner != t or not state.benchmark:
            continue
        for case in state.benchmark["test_cases"]:
            if case["id"] == ctx.path["id"]:
                case["label"], case["note"] = label, body(ctx).get("note", case.get("note"))
                return {"golden_case": case}
    raise Refusal(404, "golden_case_not_found", f"Golden case {ctx.path['id']} was not found.")
