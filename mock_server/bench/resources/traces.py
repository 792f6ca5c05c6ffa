"""Production traces, privacy, checks, span links and span judgments."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import ProductionCheck, Trace
from ._common import body, caller, component, now, op, spec_op, store, tenant, trimmed, unpaged

REDACTED = "[redacted]"


def _privacy_key(repo: str | None, branch: str | None) -> str:
    return f"{repo or '*'}@{branch or '*'}"


def _privacy(ctx: Ctx, repo: str | None, branch: str | None) -> dict[str, Any]:
    account = accounts.billing_account(store(ctx), caller(ctx))
    got = account.trace_privacy.get(_privacy_key(repo, branch)) or account.trace_privacy.get(_privacy_key(None, None))
    return {
        "repo_full_name": repo,
        "branch": branch,
        "enabled": bool(got and got["enabled"]),
        "fields": list(got["fields"]) if got else [],
    }


@op("production_capabilities")
async def production_capabilities(ctx: Ctx):
    limits = ctx.api.spec["paths"]["/api/traces"]["post"]["x-limits"]
    envs = sorted({t.environment for t in store(ctx).traces.values() if t.tenant == tenant(ctx) and t.environment})
    return {
        "ingest": True,
        "max_traces_per_request": limits["max_traces"],
        "max_spans_per_trace": limits["max_spans_per_trace"],
        "capture_content": True,
        "environments": envs,
    }


def _matching(ctx: Ctx) -> list[Trace]:
    q, t = ctx.raw_query, tenant(ctx)
    return [
        tr
        for tr in store(ctx).traces.values()
        if tr.tenant == t
        and all(q.get(k) in (None, getattr(tr, k)) for k in ("repo_full_name", "branch", "environment"))
    ]


@op("sdk_status")
async def sdk_status(ctx: Ctx):
    found = _matching(ctx)
    return {
        "reporting": bool(found),
        "trace_count": len(found),
        "last_trace_at": max((t.received_at for t in found), default=None),
    }


@op("get_trace_privacy")
async def get_trace_privacy(ctx: Ctx):
    return {"privacy": _privacy(ctx, ctx.raw_query.get("repo_full_name"), ctx.raw_query.get("branch"))}


@op("set_trace_privacy")
async def set_trace_privacy(ctx: Ctx):
    """Redaction applies to traces ingested from now on: listed span fields are stored as `[redacted]`."""
    b = ctx.body  # field names are span attribute names: the spec's pattern, checked by the engine
    repo, branch = ctx.raw_query.get("repo_full_name"), ctx.raw_query.get("branch")
    accounts.billing_account(store(ctx), caller(ctx)).trace_privacy[_privacy_key(repo, branch)] = {
        "enabled": b["enabled"],
        "fields": list(b["fields"]),
    }
    return {"privacy": _privacy(ctx, repo, branch)}


def check_json(c: ProductionCheck) -> dict[str, Any]:
    return {
        "id": c.id,
        "status": c.status,
        "trace_id": c.trace_id,
        "ai_system_id": c.ai_system_id,
        "attempts": c.attempts,
        "result": c.result,
    }


def advance_checks(st, current, seconds: float) -> None:
    for c in st.checks.values():
        if c.status == "queued" and current >= c.created_at + timedelta(seconds=seconds):
            c.status = c.outcome
            trace = st.traces.get(c.trace_id or "")
            errors = sum(1 for sp in trace.spans if sp.get("status") == "error") if trace else 0
            c.result = (
                {"spans_checked": len(trace.spans) if trace else 0, "errors": errors}
                if c.status == "completed"
                else None
            )


def _check(ctx: Ctx) -> ProductionCheck:
    c = store(ctx).checks.get(ctx.path["jobID"])
    if c is None or c.tenant != tenant(ctx):
        raise Refusal(404, "check_not_found", f"Production check {ctx.path['jobID']} was not found.")
    return c


@op("get_production_check")
async def get_production_check(ctx: Ctx):
    return {"check": check_json(_check(ctx))}


@op("retry_production_check")
async def retry_production_check(ctx: Ctx):
    c = _check(ctx)
    if c.status != "failed":
        raise Refusal(409, "check_not_failed", f"Check {c.id} is {c.status}; only failed checks are retried.")
    c.status, c.outcome, c.attempts, c.created_at = "queued", "completed", c.attempts + 1, now(ctx)
    return {"check": check_json(c)}


CONTENT = ("input", "output", "input_value", "output_value")
ENVIRONMENT_ATTRIBUTES = ("bench.environment", "deployment.environment")


def _environment(spans: list[dict[str, Any]]) -> str | None:
    """The trace's environment: the tracing client stamps `attributes["bench.environment"]` on every span it
    sends (`bench_sdk.Bench`, its OTel bridge); `deployment.environment` (OpenTelemetry's resource attribute)
    is read too. The first span that names one decides."""
    for sp in spans:
        attrs = sp.get("attributes") or {}
        for key in ENVIRONMENT_ATTRIBUTES:
            if isinstance(attrs.get(key), str) and attrs[key]:
                return attrs[key]
    return None


def _stored_span(sp: dict[str, Any], capture: bool, redact: set[str]) -> dict[str, Any]:
    """Content (`input`/`output`, and `input_value`/`output_value` as the tracing client names them) is kept only
    with capture_content; privacy fields are redacted whether they name a span field or a span attribute."""
    sp = dict(sp)
    for k in CONTENT:
        if k in sp and (not capture or k in redact):
            sp[k] = REDACTED
    for k in redact & set(sp):
        sp[k] = REDACTED
    attrs = sp.get("attributes")
    if attrs and redact & set(attrs):
        sp["attributes"] = {k: REDACTED if k in redact else v for k, v in attrs.items()}
    return sp


@op("ingest_traces")
async def ingest_traces(ctx: Ctx):
    """Stores traces; content is kept only with capture_content, minus the privacy fields. Entries with the trace
    id of a trace already stored add their spans to it (the tracing client sends one entry per span, all under
    the span's trace id); a span sent again replaces the one with its span_id. Systems with production feedback
    enabled for the environment get a production check per new trace."""
    b, st, t = body(ctx), store(ctx), tenant(ctx)
    limits = spec_op(ctx)["x-limits"]
    cap = limits["max_spans_per_trace"]
    traces = b.get("traces") or []
    if not traces or len(traces) > limits["max_traces"]:
        raise Refusal(400, "no_traces", f"Send 1 to {limits['max_traces']} traces.")
    repo = b.get("repo_full_name")
    if repo:
        accounts.require_repo(caller(ctx), repo)
    privacy = _privacy(ctx, repo, b.get("branch"))
    redact = set(privacy["fields"]) if privacy["enabled"] else set()
    capture = bool(b.get("capture_content"))
    for i, tr in enumerate(traces):
        spans = tr.get("spans") or []
        if len(spans) > cap or not all(isinstance(sp, dict) and sp.get("span_id") for sp in spans):
            raise Refusal(400, "invalid_span", f"traces[{i}]: at most {cap} spans, each with a span_id.")
    # every entry checked against what is stored before anything is written
    merged: dict[str, dict[str, dict[str, Any]]] = {}
    new_ids: list[str] = []
    ids: list[str] = []
    for i, tr in enumerate(traces):
        trace_id = tr.get("trace_id") or f"tr_{st.seq('trace')}"
        held = st.traces.get(trace_id)
        if held is not None and held.tenant != t:
            raise Refusal(409, "trace_conflict", f"traces[{i}]: trace id {trace_id} is taken; send a new trace id.")
        if trace_id not in merged:
            merged[trace_id] = {sp["span_id"]: sp for sp in (held.spans if held else [])}
            if held is None:
                new_ids.append(trace_id)
        for sp in tr.get("spans") or []:
            merged[trace_id][sp["span_id"]] = _stored_span(sp, capture, redact)
        if len(merged[trace_id]) > cap:
            raise Refusal(400, "invalid_span", f"traces[{i}]: trace {trace_id} would hold more than {cap} spans.")
        ids.append(trace_id)
    sources = {tr.get("trace_id"): tr.get("source") for tr in traces}
    for trace_id, spans in merged.items():
        held = st.traces.get(trace_id)
        kept = list(spans.values())
        if held is None:
            st.traces[trace_id] = Trace(
                id=trace_id,
                tenant=t,
                source=sources.get(trace_id),
                repo_full_name=repo,
                branch=b.get("branch"),
                environment=_environment(kept),
                system_name=b.get("system_name"),
                spans=kept,
                links={},
                received_at=now(ctx),
            )
        else:
            held.spans, held.received_at = kept, now(ctx)
            held.environment = held.environment or _environment(kept)
            held.source = held.source or sources.get(trace_id)
            held.repo_full_name = held.repo_full_name or repo
            held.branch = held.branch or b.get("branch")
            held.system_name = held.system_name or b.get("system_name")
    for trace_id in new_ids:
        env = st.traces[trace_id].environment
        for s in st.systems.values():
            fb = s.production_feedback.get(env or "")
            if s.tenant == t and s.name == b.get("system_name") and fb and fb["enabled"]:
                cid = f"chk_{st.seq('check')}"
                st.checks[cid] = ProductionCheck(
                    id=cid, tenant=t, status="queued", trace_id=trace_id, ai_system_id=s.id, created_at=now(ctx)
                )
    return Reply({"accepted": len(ids), "trace_ids": ids}, 201)


def trace_json(tr: Trace) -> dict[str, Any]:
    return {
        "id": tr.id,
        "source": tr.source,
        "repo_full_name": tr.repo_full_name,
        "branch": tr.branch,
        "environment": tr.environment,
        "system_name": tr.system_name,
        "spans": tr.spans,
        "links": list(tr.links.values()),
        "received_at": tr.received_at,
    }


@op("list_traces")
async def list_traces(ctx: Ctx):
    raw = ctx.raw_query.get("limit") or "50"
    if not raw.isdigit() or int(raw) < 1:
        raise Refusal(400, "invalid_page", "limit is a positive integer.")
    limit = min(int(raw), ctx.store.config.page["max_limit"])
    found = sorted(_matching(ctx), key=lambda tr: tr.received_at, reverse=True)
    return unpaged(ctx, [trace_json(tr) for tr in found[:limit]])


def _trace(ctx: Ctx) -> Trace:
    tr = store(ctx).traces.get(ctx.path["id"])
    if tr is None or tr.tenant != tenant(ctx):
        raise Refusal(404, "trace_not_found", f"Trace {ctx.path['id']} was not found.")
    return tr


def _span(tr: Trace, span_id: str) -> dict[str, Any]:
    span = next((sp for sp in tr.spans if sp.get("span_id") == span_id), None)
    if span is None:
        raise Refusal(404, "span_not_found", f"Trace {tr.id} has no span {span_id}.")
    return span


@op("get_trace")
async def get_trace(ctx: Ctx):
    return {"trace": trace_json(_trace(ctx))}


@op("delete_trace")
async def delete_trace(ctx: Ctx):
    del store(ctx).traces[_trace(ctx).id]
    return Reply(status=204)


@op("link_span")
async def link_span(ctx: Ctx):
    tr, b = _trace(ctx), body(ctx)
    _span(tr, ctx.path["spanID"])
    s = store(ctx).systems.get(b.get("ai_system_id"))
    if s is None or s.tenant != tenant(ctx):
        raise Refusal(404, "system_not_found", f"AI system {b.get('ai_system_id')} was not found.")
    comp = component(s, b.get("ai_system_component_id"))
    link = {
        "id": f"lnk_{store(ctx).seq('span_link')}",
        "span_id": ctx.path["spanID"],
        "ai_system_id": s.id,
        "ai_system_component_id": comp.id,
    }
    tr.links[link["id"]] = link
    return Reply({"link": link}, 201)


@op("unlink_span")
async def unlink_span(ctx: Ctx):
    tr = _trace(ctx)
    if ctx.path["linkID"] not in tr.links:
        raise Refusal(404, "link_not_found", f"Trace {tr.id} has no link {ctx.path['linkID']}.")
    del tr.links[ctx.path["linkID"]]
    return Reply(status=204)


@op("evaluate_span")
async def evaluate_span(ctx: Ctx):
    """A yes/no judgment of the span's recorded output (`output`, or `output_value` as the tracing client sends
    it): `yes` when it contains the yes text, `no` for the no text, `unknown` when redacted or neither."""
    tr, b = _trace(ctx), body(ctx)
    span = _span(tr, ctx.path["spanID"])
    if not trimmed(b.get("question")):
        raise Refusal(400, "question_required", "Ask a yes/no question about the span.")
    if b.get("component_id") is not None:
        linked = [lk for lk in tr.links.values() if lk["span_id"] == span["span_id"]]
        s = store(ctx).systems.get(linked[0]["ai_system_id"]) if linked else None
        if s is None or b["component_id"] not in s.components:
            raise Refusal(404, "component_not_found", f"Component {b['component_id']} is not linked to this span.")
    # the tracing client records content as `output_value` (JSON text); raw uploads may use `output`
    output = str(span.get("output", span.get("output_value", "")))
    yes, no = b.get("yes") or "yes", b.get("no") or "no"
    verdict = (
        "unknown"
        if output == REDACTED
        else "yes"
        if yes.lower() in output.lower()
        else "no"
        if no.lower() in output.lower()
        else "unknown"
    )
    return Reply(
        {
            "evaluation": {
                "id": f"se_{store(ctx).seq('span_evaluation')}",
                "trace_id": tr.id,
                "span_id": span["span_id"],
                "question": b["question"],
                "verdict": verdict,
            }
        },
        201,
    )
