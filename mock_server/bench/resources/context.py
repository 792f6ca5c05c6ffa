"""Versioned system understanding and evidence connections (C-30, C-33–C-46)."""

from __future__ import annotations

from mock_server.engine import Ctx, Reply

from ..model import context as model
from ..model.errors import Refusal
from ..store import ContextConnection, ContextSource
from ._common import body, cfg, now, op, paged, spec_op, store, system


def _version(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise Refusal(400, "invalid_version", "version is a non-negative integer.") from None
    if value < 0:
        raise Refusal(400, "invalid_version", "version is a non-negative integer.")
    return value


@op("get_system_context")
async def get_system_context(ctx: Ctx):
    """C-33: `{context: {version, …}}`; `?version=n` reads the snapshot at n."""
    version = _version(ctx.raw_query.get("version"))
    return {"context": model.context_json(system(ctx), version, cfg(ctx).page["max_context_bytes"])}


@op("list_context_sources")
async def list_context_sources(ctx: Ctx):
    return paged(ctx, model.search(system(ctx), ctx.raw_query.get("q")))


@op("put_context_source")
async def put_context_source(ctx: Ctx):
    """C-34–C-37: create or edit by id; a stale expected_version writes nothing (context_changed)."""
    o = spec_op(ctx)
    return model.put_source(
        system(ctx), ctx.body, prefix=o["x-source-id-prefix"], max_text_bytes=o["x-limits"]["max_text_bytes"]
    )


@op("delete_context_source")
async def delete_context_source(ctx: Ctx):
    return model.delete_source(system(ctx), ctx.path["sourceID"])


@op("upload_context_document")
async def upload_context_document(ctx: Ctx):
    """C-30: a text, Markdown, JSON or JSONL document of at most `x-max-file-bytes` (60 000) becomes a source."""
    s, o, form = system(ctx), spec_op(ctx), body(ctx)
    files = ctx.files.get(o["x-file-field"]) or []
    if len(files) != 1:
        raise Refusal(400, "file_required", f"Send exactly one file in the {o['x-file-field']!r} field.")
    upload = files[0]
    if len(upload.data) > o["x-max-file-bytes"]:
        raise Refusal(
            413,
            "file_too_large",
            f"Context documents hold at most {o['x-max-file-bytes']} bytes.",
            limit=o["x-max-file-bytes"],
        )
    if not any(upload.filename.lower().endswith(ext) for ext in o["x-document-types"]):
        raise Refusal(
            400, "unsupported_document_type", "Upload text, Markdown, JSON or JSONL; export other formats to text."
        )
    if not form.get("category"):
        raise Refusal(400, "category_required", "Give the document's category.")
    if "expected_version" not in form:
        raise Refusal(400, "expected_version_required", "Give expected_version from get_system_context.")
    try:
        text = upload.data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(400, "unreadable_document", "The document is not UTF-8 text.") from None
    model.check_version(s, form["expected_version"])
    stem = (
        "".join(ch if ch.isalnum() else "-" for ch in upload.filename.lower().rsplit(".", 1)[0]).strip("-")
        or "document"
    )
    src = ContextSource(
        id=f"manual-document-{stem}",
        kind="document",
        category=form["category"],
        scope="system",
        text=text,
        title=upload.filename,
        origin="document",
    )
    version = model.add_sources(s, [src])
    return Reply({"context": {"version": version}, "source": model.source_json(s.context.sources[src.id])}, 201)


@op("seed_system_context")
async def seed_system_context(ctx: Ctx):
    return model.seed(system(ctx))


@op("summarize_system_context")
async def summarize_system_context(ctx: Ctx):
    """Queues a summary; get_system_context shows it completed after `summary_seconds` of simulated time."""
    s = system(ctx)
    model.request_summary(s, now(ctx))
    return Reply({"context": model.context_json(s, None, cfg(ctx).page["max_context_bytes"])}, 202)


def connection_json(c: ContextConnection) -> dict:
    return {
        "id": c.id,
        "provider": c.provider,
        "base_url": c.base_url,
        "project": c.project,
        "environment": c.environment,
        "since": c.since,
        "retention_days": c.retention_days,
        "has_credentials": True,
        "status": c.status,
        "last_synced_at": c.last_synced_at,
        "dataset_ids": c.dataset_ids,
        "prompt_names": c.prompt_names,
    }


@op("list_context_connections")
async def list_context_connections(ctx: Ctx):
    return {"items": [connection_json(c) for c in system(ctx).connections.values()]}


@op("create_context_connection")
async def create_context_connection(ctx: Ctx):
    """Explicit content consent; provider credentials are kept as secrets and never returned."""
    s, b = system(ctx), ctx.body
    if b["content_consent"] is not True:
        raise Refusal(400, "content_consent_required", "Connecting a provider needs content_consent: true.")
    creds = b["credentials"]
    if not (creds.get("api_key") or (creds.get("public_key") and creds.get("secret_key"))):
        raise Refusal(400, "credentials_required", "Give an api_key, or a public_key and a secret_key.")
    config = b["config"]
    if not config["base_url"].startswith("https://"):
        raise Refusal(400, "invalid_base_url", "base_url is an https URL.")
    conn = ContextConnection(
        id=f"conn_{store(ctx).seq('connection')}",
        provider=config["provider"],
        base_url=config["base_url"],
        project=config["project"],
        since=config["since"],
        environment=config.get("environment"),
        dataset_ids=list(config.get("dataset_ids") or []),
        prompt_names=list(config.get("prompt_names") or []),
        retention_days=b.get("retention_days"),
    )
    s.connections[conn.id] = conn
    return Reply({"connection": connection_json(conn)}, 201)


def _connection(ctx: Ctx):
    s = system(ctx)
    conn = s.connections.get(ctx.path["connectionID"])
    if conn is None:
        raise Refusal(404, "connection_not_found", f"System {s.id} has no connection {ctx.path['connectionID']}.")
    return s, conn


@op("sync_context_connection")
async def sync_context_connection(ctx: Ctx):
    """Imports one redacted evidence source per selected dataset and prompt; connector ids, never business policy."""
    s, conn = _connection(ctx)
    conn.syncs += 1
    conn.last_synced_at = now(ctx)
    selected = [("dataset", d) for d in conn.dataset_ids] + [("prompt", p) for p in conn.prompt_names] or [
        ("project", conn.project)
    ]
    new = [
        ContextSource(
            id=f"{conn.provider}-{conn.id}-{kind}-{name}",
            kind="connector",
            category="examples_feedback",
            scope="system",
            title=f"{conn.provider} {kind} {name}",
            origin="connector",
            text=f"Redacted {kind} evidence from {conn.provider} project {conn.project} "
            f"since {conn.since} (sync {conn.syncs}).",
        )
        for kind, name in selected
    ]
    version = model.add_sources(s, new)
    return {"connection": connection_json(conn), "imported": len(new), "context": {"version": version}}


@op("delete_context_connection")
async def delete_context_connection(ctx: Ctx):
    """Disconnects; sources it imported stay (they are part of saved versions)."""
    s, conn = _connection(ctx)
    del s.connections[conn.id]
    return Reply(status=204)
