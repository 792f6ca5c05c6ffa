"""Catalog drift as one three-way report: the pinned SDK catalog, the target's `list_operations`, our spec."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from mock_server.bench.spec_catalog import catalog_from_spec, load_spec, normalise

SOURCES = ("sdk", "target", "spec")


def pinned_catalog() -> dict[str, Any]:
    return json.loads(files("bench_sdk").joinpath("operations.json").read_text())


def spec_catalog() -> dict[str, Any]:
    return catalog_from_spec(load_spec())


def three_way(sdk: dict[str, Any], target: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """Per operation id: where it is missing, and which fields differ from the pinned SDK entry."""
    cats = {"sdk": sdk, "target": target, "spec": spec}
    by = {name: {o["id"]: normalise(o) for o in cat["operations"]} for name, cat in cats.items()}
    rows = []
    for op_id in sorted(set().union(*(b.keys() for b in by.values()))):
        present = {name: op_id in by[name] for name in SOURCES}
        fields: dict[str, list[str]] = {}
        base = by["sdk"].get(op_id)
        for name in ("target", "spec"):
            other = by[name].get(op_id)
            if base is not None and other is not None:
                diff = sorted(k for k in base.keys() | other.keys() if base.get(k) != other.get(k))
                if diff:
                    fields[name] = diff
        if not all(present.values()) or fields:
            rows.append({"id": op_id, **present, "differs": fields})
    versions = {name: cats[name].get("version") for name in SOURCES}
    return {
        "drift": rows,
        "versions": versions,
        "counts": {n: len(by[n]) for n in SOURCES},
        "clean": not rows and len(set(versions.values())) == 1,
    }


def render(report: dict[str, Any]) -> str:
    lines = [f"catalog versions: {report['versions']}; operations: {report['counts']}"]
    if report["clean"]:
        return lines[0] + "\nno drift: the SDK catalog, the target and the spec agree."
    lines.append("| operation | sdk | target | spec | fields differing from the sdk |")
    lines.append("|---|---|---|---|---|")
    for row in report["drift"]:
        mark = {True: "yes", False: "MISSING"}
        differs = "; ".join(f"{k}: {', '.join(v)}" for k, v in row["differs"].items())
        lines.append(f"| {row['id']} | {mark[row['sdk']]} | {mark[row['target']]} | {mark[row['spec']]} | {differs} |")
    return "\n".join(lines)
