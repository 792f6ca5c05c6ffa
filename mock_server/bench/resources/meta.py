"""The catalog, capabilities, the processing notice, setup status, web text (Meta tag)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..spec_catalog import catalog_from_spec
from ._common import body, caller, cfg, now, op, origin, store, tenant


@op("list_operations")
async def list_operations(ctx: Ctx):
    """C-08: the current catalog, built from the spec the mock serves (not a copy of the SDK's file)."""
    return catalog_from_spec(ctx.api.spec)


@op("capabilities")
async def capabilities(ctx: Ctx):
    return accounts.capabilities(store(ctx), cfg(ctx), caller(ctx), now(ctx), origin(ctx))


@op("get_processing_notice")
async def get_processing_notice(ctx: Ctx):
    n = cfg(ctx).notice
    return {"notice": {"version": n["version"], "title": n["title"], "text": n["text"], "sources": list(n["sources"])}}


@op("acknowledge_processing")
async def acknowledge_processing(ctx: Ctx):
    """Records an explicit acceptance of the current notice for one source."""
    b = body(ctx)
    n = cfg(ctx).notice
    if b.get("accepted") is not True:
        raise Refusal(400, "acceptance_required", "Only an explicit accepted: true from the user is recorded.")
    if b.get("source") not in n["sources"]:
        raise Refusal(400, "unknown_processing_source", f"source is one of {', '.join(n['sources'])}.")
    if b.get("version") != n["version"]:
        raise Refusal(409, "notice_version_mismatch", f"The current notice is version {n['version']}; show it first.")
    ack = {"version": n["version"], "source": b["source"], "accepted": True, "acknowledged_at": now(ctx)}
    caller(ctx).account.processing_acks.append(ack)
    return Reply({"acknowledgement": ack}, 201)


@op("get_setup_status")
async def get_setup_status(ctx: Ctx):
    """Steps computed from state: notice, GitHub, a system, components, traces, an evaluation."""
    st, who, t = store(ctx), caller(ctx), tenant(ctx)
    repo = ctx.raw_query.get("repo_full_name")
    env = ctx.raw_query.get("environment")
    systems = [s for s in st.systems.values() if s.tenant == t]
    traces = [
        tr
        for tr in st.traces.values()
        if tr.tenant == t and (repo is None or tr.repo_full_name == repo) and (env is None or tr.environment == env)
    ]
    steps = [
        {"id": "processing_notice", "done": bool(who.account.processing_acks)},
        {"id": "onboarding", "done": who.user.onboarded},
        {"id": "github", "done": bool(who.account.installations)},
        {"id": "system", "done": bool(systems)},
        {"id": "components", "done": any(s.components for s in systems)},
        {"id": "traces", "done": bool(traces)},
        {"id": "evaluation", "done": any(r.tenant == t for r in st.evaluations.values())},
    ]
    return {"steps": steps, "complete": all(s["done"] for s in steps)}


def _url(raw: str | None) -> str:
    parts = urlsplit(raw or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refusal(400, "invalid_url", "Give an absolute http or https URL.")
    return raw  # type: ignore[return-value]


@op("fetch_website_text")
async def fetch_website_text(ctx: Ctx):
    """The mock's web is fixture pages; any other URL cannot be fetched."""
    url = _url(body(ctx).get("url"))
    page = store(ctx).web_pages.get(url)
    if page is None:
        raise Refusal(400, "fetch_failed", f"{url} could not be fetched.")
    return {"url": url, "title": page["title"], "text": page["text"]}


@op("get_link_metadata")
async def get_link_metadata(ctx: Ctx):
    url = _url(body(ctx).get("url"))
    page = store(ctx).web_pages.get(url)
    host = urlsplit(url).hostname or ""
    if page is None:
        slug = [p for p in re.split(r"[/?#]", urlsplit(url).path) if p]
        title = slug[-1].replace("-", " ").capitalize() if slug else host
        return {"url": url, "title": title, "description": None, "site_name": host}
    return {"url": url, "title": page["title"], "description": page.get("description"), "site_name": host}
