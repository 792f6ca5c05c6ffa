"""Versioned system understanding (C-33–C-46).

Every successful write (put, delete, document upload, seed, connector sync, dataset
import) adds 1 to the version and records a snapshot, so `?version=n` reads the
sources as they were. Source rows are never mutated in place: an edit stores a new
row, so a snapshot is a list of references and historical reports keep the text they
were evaluated with (C-45, C-46).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..store import AiSystem, ContextSource
from .errors import Refusal

STRUCTURED_TYPES = ("case", "criterion")
CASE_FIELDS = ("input", "expected")
CRITERION_FIELDS = ("statement", "pass_condition", "fail_condition")


def source_json(src: ContextSource) -> dict[str, Any]:
    entry = structured(src)
    return {
        "id": src.id,
        "kind": src.kind,
        "category": src.category,
        "scope": src.scope,
        "text": src.text,
        "title": src.title,
        "case_id": src.case_id,
        "enabled": True if entry is None else bool(entry.get("enabled", True)),
        "origin": src.origin,
        "updated_version": src.updated_version,
    }


def structured(src: ContextSource) -> dict[str, Any] | None:
    """The JSON entry of a golden case or criterion (C-40, C-41), or None for free text."""
    try:
        value = json.loads(src.text)
    except ValueError:
        return None
    if isinstance(value, dict) and value.get("type") in STRUCTURED_TYPES:
        return value
    return None


def commit(system: AiSystem) -> int:
    """Bump the version and snapshot the sources at it."""
    ctx = system.context
    ctx.version += 1
    ctx.snapshots[ctx.version] = list(ctx.sources.values())
    return ctx.version


def sources_at(system: AiSystem, version: int | None) -> list[ContextSource]:
    ctx = system.context
    if version is None or version == ctx.version:
        return list(ctx.sources.values())
    if version not in ctx.snapshots:
        raise Refusal(404, "context_version_not_found", f"Context version {version} does not exist.")
    return list(ctx.snapshots[version])


def bounded_sources(sources: list[ContextSource], max_bytes: int) -> tuple[list[dict[str, Any]], bool]:
    """Sources in order until their text passes `max_bytes` (the rest is read with list_context_sources)."""
    out, size = [], 0
    for src in sources:
        size += len(src.text.encode())
        if out and size > max_bytes:
            return out, True
        out.append(source_json(src))
    return out, False


def context_json(system: AiSystem, version: int | None = None, max_bytes: int = 4194304) -> dict[str, Any]:
    ctx = system.context
    sources, cut = bounded_sources(sources_at(system, version), max_bytes)
    return {
        "ai_system_id": system.id,
        "version": ctx.version if version is None else version,
        "current_version": ctx.version,
        "sources": sources,
        "sources_truncated": cut,
        "summary": ctx.summary,
    }


def check_version(system: AiSystem, expected: int) -> None:
    """C-35: a stale expected_version writes nothing and answers context_changed with the current version."""
    current = system.context.version
    if expected != current:
        raise Refusal(
            409,
            "context_changed",
            f"The context changed (now version {current}); re-read it and reconcile before writing.",
            current_version=current,
            expected_version=expected,
        )


def validate_entry(system: AiSystem, src: ContextSource, required: bool) -> None:
    """Golden cases and criteria are JSON texts with a type and a component of this system (C-40, C-41, C-43)."""
    try:
        value = json.loads(src.text)
    except ValueError:
        value = None
    is_entry = isinstance(value, dict) and value.get("type") in STRUCTURED_TYPES
    if not is_entry:
        if required:
            raise Refusal(
                400,
                "invalid_source_text",
                "A golden case or criterion needs JSON text with type 'case' or 'criterion'.",
            )
        return
    assert isinstance(value, dict)
    kind = value["type"]
    fields = CASE_FIELDS if kind == "case" else CRITERION_FIELDS
    missing = [f for f in fields if f not in value]
    if missing:
        raise Refusal(400, "invalid_source_text", f"A {kind} needs {', '.join(missing)}.")
    if kind == "criterion" and not all(isinstance(value[f], str) for f in CRITERION_FIELDS):
        raise Refusal(400, "invalid_source_text", "statement, pass_condition and fail_condition are texts.")
    if "enabled" in value and not isinstance(value["enabled"], bool):
        raise Refusal(400, "invalid_source_text", "enabled is true or false.")
    component = value.get("component_id")
    if not isinstance(component, int) or isinstance(component, bool):
        raise Refusal(400, "invalid_source_text", f"A {kind} needs an integer component_id from get_system.")
    if component not in system.components:
        raise Refusal(404, "component_not_found", f"Component {component} is not part of system {system.id}.")


def put_source(system: AiSystem, body: dict[str, Any], *, prefix: str, max_text_bytes: int) -> dict[str, Any]:
    """Create or edit (same id) a manual source; checks in order: id, size, entry shape, version."""
    given = body["source"]
    source_id = given["id"]
    if not source_id.startswith(prefix) or len(source_id) == len(prefix):
        raise Refusal(
            400,
            "invalid_source_id",
            f"Source ids start with {prefix} (for example {prefix}purpose); other ids belong to connector imports.",
        )
    if len(given["text"].encode()) > max_text_bytes:
        raise Refusal(413, "source_too_large", f"A context source holds at most {max_text_bytes} bytes of text.")
    src = ContextSource(
        id=source_id,
        kind=given["kind"],
        category=given["category"],
        scope=given["scope"],
        text=given["text"],
        title=given.get("title"),
        case_id=given.get("case_id"),
        origin="manual",
    )
    validate_entry(system, src, required=src.scope == "case" or source_id.startswith(prefix + "library-"))
    check_version(system, body["expected_version"])
    src = replace(src, updated_version=system.context.version + 1)
    system.context.sources[source_id] = src
    version = commit(system)
    return {"context": {"version": version}, "source": source_json(src)}


def delete_source(system: AiSystem, source_id: str) -> dict[str, Any]:
    """C-39: removes the entry; the version advances (deletes carry no expected_version)."""
    if source_id not in system.context.sources:
        raise Refusal(404, "source_not_found", f"Context source {source_id} was not found.")
    del system.context.sources[source_id]
    return {"context": {"version": commit(system)}, "deleted": source_id}


def add_sources(system: AiSystem, sources: list[ContextSource]) -> int:
    """Store several sources as one write (one version)."""
    next_version = system.context.version + 1
    for src in sources:
        system.context.sources[src.id] = replace(src, updated_version=next_version)
    return commit(system)


def seed(system: AiSystem) -> dict[str, Any]:
    """Seed understanding from the components: one `seed-component-<id>` source each; unchanged ones are skipped."""
    new: list[ContextSource] = []
    for comp in system.components.values():
        text = f"{comp.name} is a {comp.kind} component" + (
            f" from {comp.repo_full_name}@{comp.branch} ({comp.call_site_id})." if comp.repo_full_name else "."
        )
        src_id = f"seed-component-{comp.id}"
        old = system.context.sources.get(src_id)
        if old is None or old.text != text:
            new.append(
                ContextSource(
                    id=src_id,
                    kind="system",
                    category="purpose",
                    scope="component",
                    text=text,
                    title=comp.name,
                    origin="seed",
                )
            )
    if not new:
        return {"context": {"version": system.context.version}, "seeded": 0}
    return {"context": {"version": add_sources(system, new)}, "seeded": len(new)}


def request_summary(system: AiSystem, now: datetime) -> None:
    if not system.context.sources:
        raise Refusal(409, "context_empty", "There is no saved understanding to summarize yet.")
    system.context.summary = {"status": "queued", "version": system.context.version, "text": None, "requested_at": now}


def advance_summary(system: AiSystem, now: datetime, seconds: float) -> None:
    summary = system.context.summary
    if not summary or summary["status"] != "queued" or (now - summary["requested_at"]).total_seconds() < seconds:
        return
    srcs = sources_at(system, summary["version"])
    titles = [s.title or s.id for s in srcs]
    summary["status"] = "completed"
    summary["text"] = f"{len(srcs)} sources at version {summary['version']}: " + "; ".join(titles)


def search(system: AiSystem, q: str | None) -> list[dict[str, Any]]:
    out = [source_json(s) for s in system.context.sources.values()]
    if q:
        needle = q.lower()
        out = [
            s
            for s in out
            if needle in s["id"].lower() or needle in (s["title"] or "").lower() or needle in s["text"].lower()
        ]
    return out


def library(system: AiSystem, kind: str | None) -> list[dict[str, Any]]:
    """The test library: golden cases and criteria among the sources (C-68)."""
    out = []
    for src in system.context.sources.values():
        entry = structured(src)
        if entry is None or (kind and entry["type"] != kind):
            continue
        out.append(
            {
                "source_id": src.id,
                "type": entry["type"],
                "component_id": entry.get("component_id"),
                "enabled": bool(entry.get("enabled", True)),
                "title": src.title,
                "entry": entry,
            }
        )
    return out
