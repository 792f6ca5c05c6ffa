"""The Bench spec, read: the merged document and the operation catalog it describes (C-08, C-09, C-27).

The one place the Bench spec is read outside the engine: the mock (`list_operations`) and the
contract suite (the catalog drift check, the conventions) both import it, so neither reads the
other's internals.

`list_operations` serves this; the catalog test compares what it serves with the pinned
SDK's `operations.json`, entry for entry and field for field, nulls included. Nothing here is
a copy of the SDK file: every field comes from the spec's operations (`x-auth-class`,
`x-read-only`, parameters, request bodies, `x-catalog-body` where the catalog states a body
for an operation that takes none, …).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mock_server.datafiles import SPEC_ROOT
from mock_server.engine.spec import merge_fragments

METHODS = ("get", "put", "post", "patch", "delete")
SPEC_DIR = SPEC_ROOT / "bench"


def load_spec(spec_dir: Path = SPEC_DIR) -> dict[str, Any]:
    """The root document with every `paths/*.yaml` fragment merged in (a name defined twice is an error),
    without the engine's convention expansion."""
    return merge_fragments(spec_dir)


def spec_operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) for every operation of a bundled spec, in document order."""
    for path, item in (spec.get("paths") or {}).items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def catalog_schema(node: Any) -> Any:
    """A spec schema as the SDK catalog states it: a schema node's `x-beyond-catalog` names
    the keywords that are the platform's own rules on top of the catalog's schema (a pattern,
    a bound, a required member the server enforces), so they are left out here, and so is
    `x-handler-checks` (which of those keywords the handler checks itself)."""
    if isinstance(node, list):
        return [catalog_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    beyond = set(node.get("x-beyond-catalog") or ()) | {"x-beyond-catalog", "x-handler-checks"}
    return {k: catalog_schema(v) for k, v in node.items() if k not in beyond}


def catalog_entry(method: str, path: str, op: dict[str, Any]) -> dict[str, Any]:
    """One catalog entry, in the SDK catalog's shape, built from a spec operation."""
    params = op.get("parameters") or []
    entry: dict[str, Any] = {
        "id": op["operationId"],
        "method": method,
        "path": path,
        "auth": op["x-auth-class"],
        "description": op.get("description", ""),
        "path_parameters": {p["name"]: catalog_schema(p["schema"]) for p in params if p["in"] == "path"},
        "query": {
            "additionalProperties": False,
            "properties": {p["name"]: catalog_schema(p["schema"]) for p in params if p["in"] == "query"},
            "type": "object",
        },
        "read_only": bool(op.get("x-read-only")),
        "mcp": bool(op.get("x-mcp")),
        "mcp_legacy": bool(op.get("x-mcp-legacy")),
    }
    content = (op.get("requestBody") or {}).get("content") or {}
    if "application/json" in content:
        entry["body"] = catalog_schema(content["application/json"]["schema"])
    elif "x-catalog-body" in op:  # a body the catalog states for an operation that takes none (`null`)
        entry["body"] = op["x-catalog-body"]
    if "multipart/form-data" in content:
        form = catalog_schema(content["multipart/form-data"]["schema"])
        form["properties"].pop(op["x-file-field"], None)
        entry["form"] = form
        entry["multipart"] = True
        entry["file_field"] = op["x-file-field"]
        entry["max_file_bytes"] = op["x-max-file-bytes"]
    if op.get("x-streaming"):
        entry["streaming"] = True
    return entry


def catalog_from_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The whole catalog `{operations, version}` described by the spec."""
    ops = [catalog_entry(m, p, op) for m, p, op in spec_operations(spec) if "x-auth-class" in op]
    return {"operations": ops, "version": spec.get("x-catalog-version", 1)}


def normalise(entry: dict[str, Any]) -> dict[str, Any]:
    """A catalog entry with `body: null` read as no body (the SDK treats both alike). For a lenient
    reading of another target's catalog; `compare` holds the spec to the pinned file exactly."""
    out = dict(entry)
    if out.get("body", ...) is None:
        del out["body"]
    return out


MISSING = object()  # a field one entry lacks: unequal to every value, `null` included


def compare(pinned: dict[str, Any], other: dict[str, Any]) -> dict[str, list[str]]:
    """Differences between two catalogs: missing, extra and changed operation ids (with the fields).
    Exact: a field stated as `null` on one side and absent on the other is a change."""
    a = {o["id"]: o for o in pinned["operations"]}
    b = {o["id"]: o for o in other["operations"]}
    changed = []
    for op_id in sorted(a.keys() & b.keys()):
        fields = sorted(
            k for k in a[op_id].keys() | b[op_id].keys() if a[op_id].get(k, MISSING) != b[op_id].get(k, MISSING)
        )
        if fields:
            changed.append(f"{op_id}: {', '.join(fields)}")
    out = {"missing": sorted(a.keys() - b.keys()), "extra": sorted(b.keys() - a.keys()), "changed": changed}
    if pinned.get("version") != other.get("version"):
        out["version"] = [f"{pinned.get('version')} != {other.get('version')}"]
    return out
