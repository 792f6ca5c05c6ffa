"""Artifacts (§6): the files a run produced, derived from its artifact events.

"Everything the pipeline emits that is larger than a routine event becomes an
artifact" (§6). A row is one event of a §6.1 source type, so its id is the
event's `(run, seq)` key and nothing is stored beside the event log.

Versions: the Atomize phase writes one `AtomizeArtifact` per invocation and one
`PendingAtomizeCode` per save, so a versioned row's `version` is its ordinal
among the events of the same type and name, in seq order; `latest_version` is
the count. Without `include_versions=true` only the latest version of each
versioned name is listed; the unversioned types are always listed whole.
"""

from __future__ import annotations

from typing import Any

import orjson

from mock_server.benchwright.filters import parse_filter
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.events import decode_natural_id, natural_id, public_data
from mock_server.engine import Ctx, Reply
from mock_server.policies.pagination import page
from mock_server.policies.problems import invalid, not_found
from mock_server.state.clock import rfc3339

SOURCES = {  # §6.1: source event -> (type, versioned, default name, default mime)
    "AtomizeArtifact": ("atomize", True, "task_impl.py", "text/x-python"),
    "PendingAtomizeCode": ("atomize_draft", True, "task_impl.py", "text/x-python"),
    "AnalyzeArtifact": ("analyze", False, "analysis.json", "application/json"),
    "FetchArtifact": ("fetch", False, "fetch.json", "application/json"),
    "ModelProxyArtifact": ("model_proxy", False, "litellm.yaml", "text/yaml"),
    "ReportFile": ("report", False, "report.html", "text/html"),
}
TYPES = [source[0] for source in SOURCES.values()]
ACTIVE_MIMES = ("text/html", "application/xhtml+xml", "image/svg+xml", "javascript", "ecmascript", "xml")


def _content(event: dict[str, Any]) -> str:
    """The artifact body: its `content`, or the proxy's config (§6.1 "config only")."""
    data = public_data(event["data"])
    if isinstance(data.get("content"), str):
        return data["content"]
    if isinstance(data.get("config_yaml"), str):
        return data["config_yaml"]
    return orjson.dumps(data).decode()


def artifacts(run: Run) -> list[dict[str, Any]]:
    """Every artifact of the run in seq order, each with its source event and,
    for the versioned types, `version` and `latest_version`."""
    rows: list[dict[str, Any]] = []
    invocation = 1
    for event in run.events:
        data = event["data"]
        if event["type"] == "PhaseStarted":
            invocation = data.get("invocation", 1)
        if event["type"] not in SOURCES:
            continue
        type_, versioned, name, mime = SOURCES[event["type"]]
        content = _content(event)
        art_id = natural_id(run.id, event["seq"])
        row: dict[str, Any] = {
            "id": art_id,
            "type": type_,
            "name": data.get("name") or name,
            "mime": data.get("mime") or mime,
            "size_bytes": len(content),
            "seq": event["seq"],
            "invocation": data.get("invocation", invocation),
            "created_at": rfc3339(event["created_at"]),
            "download_url": f"/v1/runs/{run.id}/artifacts/{art_id}/content",
        }
        rows.append({"row": row, "versioned": versioned, "content": content})
    counts: dict[tuple[str, str], int] = {}
    for item in rows:
        if item["versioned"]:
            key = (item["row"]["type"], item["row"]["name"])
            counts[key] = counts.get(key, 0) + 1
            item["row"]["version"] = counts[key]
    for item in rows:
        if item["versioned"]:
            item["row"]["latest_version"] = counts[(item["row"]["type"], item["row"]["name"])]
    return rows


def _wanted_types(ctx: Ctx) -> set[str] | None:
    """`type=report`, `type=in:atomize,report`, and the wildcard `atomize*`
    (§6.1: `atomize` + `atomize_draft`); the operators come from the spec."""
    raw = ctx.query.get("type")
    if raw is None:
        return None
    op, operand = parse_filter(raw)
    if op not in ctx.op.raw.get("x-filters", {}).get("type", []):
        raise invalid(f"query parameter 'type': operator '{op}' is not accepted here", field="type")
    names = operand if op == "in" else [operand]
    return {t for name in names for t in TYPES if t == name or (name.endswith("*") and t.startswith(name[:-1]))}


def _one(ctx: Ctx) -> tuple[Run, dict[str, Any]]:
    """The artifact named by `art_id` in the run named by `id`; 404 otherwise."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    parts = decode_natural_id(ctx.path["art_id"], 2)
    if parts is None or parts[0] != run.id:
        raise not_found("Artifact")
    item = next((i for i in artifacts(run) if i["row"]["seq"] == int(parts[1])), None)
    if item is None:
        raise not_found("Artifact")
    return run, item


@handler("listRunArtifacts")
async def list_run_artifacts(ctx: Ctx) -> Reply:
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    wanted = _wanted_types(ctx)
    every_version = ctx.query.get("include_versions") is True
    rows = [
        i["row"]
        for i in artifacts(run)
        if (wanted is None or i["row"]["type"] in wanted)
        and (every_version or not i["versioned"] or i["row"]["version"] == i["row"]["latest_version"])
    ]
    chunk, pagination = page(rows, ctx.query["limit"], ctx.query.get("page_token"), "artifacts", key=lambda r: r["seq"])
    return Reply({"data": chunk, "pagination": pagination})


@handler("getRunArtifact")
async def get_run_artifact(ctx: Ctx) -> Reply:
    """§6.2: one row of the list, without `version` and `latest_version`."""
    _, item = _one(ctx)
    return Reply({k: v for k, v in item["row"].items() if k not in ("version", "latest_version")})


def served_mime(mime: str) -> tuple[str, dict[str, str]]:
    """§6.3: active content (HTML, SVG, XML, JavaScript) goes out as
    `text/plain` with `nosniff`, "so an artifact can never script against the
    API origin"."""
    base = mime.split(";", 1)[0].strip().lower()
    if any(marker in base for marker in ACTIVE_MIMES):
        return "text/plain", {"X-Content-Type-Options": "nosniff"}
    return mime, {}


@handler("getRunArtifactContent")
async def get_run_artifact_content(ctx: Ctx) -> Reply:
    """§6.3: the raw bytes, whole (`Range` is not supported)."""
    _, item = _one(ctx)
    media_type, headers = served_mime(item["row"]["mime"])
    return Reply(raw=item["content"].encode(), media_type=media_type, headers=headers)


@handler("getRunFingerprint")
async def get_run_fingerprint(ctx: Ctx) -> Reply:
    """§6.4: the hash and its chain; a run with no artifact events to chain has none."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    components = pipeline.fingerprint_components(run)
    if not components:
        raise not_found("Fingerprint")
    return Reply({"hash": pipeline.fingerprint_of(run), "components": components})


@handler("getRunReport")
async def get_run_report(ctx: Ctx) -> Reply:
    """§6.5: 302 to the first `ReportFile`'s content, gated by run visibility only."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    report = next((i["row"] for i in artifacts(run) if i["row"]["type"] == "report"), None)
    if report is None:
        raise not_found("Report")
    return Reply(status=302, headers={"Location": report["download_url"]})
