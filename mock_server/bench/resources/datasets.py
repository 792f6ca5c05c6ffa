"""Dataset preview, upload, versions, comparison and import (C-26–C-31)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from mock_server.engine import Ctx, Reply

from ..model import context as ctxmodel
from ..model import datasets as model
from ..model.errors import Refusal
from ..store import ContextSource, Dataset, DatasetReport, DatasetVersion
from ._common import body, component, now, op, paged, spec_op, store, system, unpaged

SAMPLE_ROWS = 5
SAMPLE_CHARS = 500  # a sample cell is cut to this many characters, so a preview stays small


def _sample(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cut = []
    for row in rows[:SAMPLE_ROWS]:
        cut.append(
            {k: v[:SAMPLE_CHARS] + "…" if isinstance(v, str) and len(v) > SAMPLE_CHARS else v for k, v in row.items()}
        )
    return cut


def _file(ctx: Ctx):
    """The one uploaded file, within the operation's byte limit (spec `x-max-file-bytes`, enforced here too)."""
    o = spec_op(ctx)
    files = ctx.files.get(o["x-file-field"]) or []
    if len(files) != 1:
        raise Refusal(400, "file_required", f"Send exactly one file in the {o['x-file-field']!r} field.")
    if len(files[0].data) > o["x-max-file-bytes"]:
        raise Refusal(
            413, "file_too_large", f"Datasets hold at most {o['x-max-file-bytes']} bytes.", limit=o["x-max-file-bytes"]
        )
    return files[0]


def _parse(ctx: Ctx):
    s, form = system(ctx), body(ctx)
    upload = _file(ctx)
    columns, rows, sheet = model.parse(upload.filename, upload.data, form.get("sheet"))
    return s, form, upload, columns, rows, sheet


@op("preview_dataset")
async def preview_dataset(ctx: Ctx):
    """C-26: columns, sample rows, a suggested mapping and mapping_error; nothing is stored."""
    _, form, upload, columns, rows, sheet = _parse(ctx)
    mode = form.get("mode") or "recorded_outputs"
    suggested = model.suggest(columns)
    mapping = form.get("mapping") or suggested
    return {
        "preview": {
            "columns": columns,
            "sample_rows": _sample(rows),
            "row_count": len(rows),
            "sheets": model.sheet_names(upload.data) if sheet else [],
            "sheet": sheet,
            "mode": mode,
            "suggested_mapping": suggested,
            "mapping": mapping,
            "mapping_error": model.mapping_error(columns, mapping, mode),
            "stored": False,
        }
    }


def dataset_json(d: Dataset, version: DatasetVersion | None = None) -> dict[str, Any]:
    v = version or d.versions[-1]
    return {
        "id": d.id,
        "ai_system_id": d.ai_system_id,
        "name": d.name,
        "mode": v.mode,
        "filename": d.filename,
        "bytes": len(d.data),
        "sha256": hashlib.sha256(d.data).hexdigest(),
        "sheet": d.sheet,
        "version": v.version,
        "latest_version": d.versions[-1].version,
        "mapping": v.mapping,
        "columns": d.columns,
        "row_count": len(d.rows),
        "content_consent": True,
        "created_at": v.created_at,
    }


@op("upload_dataset")
async def upload_dataset(ctx: Ctx):
    """C-27: content_consent: true and a mapping are required; the bytes are kept exactly (C-29)."""
    s, form, upload, columns, rows, sheet = _parse(ctx)
    if form.get("content_consent") is not True:
        raise Refusal(400, "content_consent_required", "Storing a dataset needs the user's content_consent: true.")
    mapping = form.get("mapping")
    if not mapping:
        raise Refusal(400, "mapping_required", "Approve a column mapping (see preview_dataset's suggested_mapping).")
    mode = form.get("mode") or "recorded_outputs"
    error = model.mapping_error(columns, mapping, mode)
    if error:
        raise Refusal(400, "invalid_mapping", error, mapping_error=error)
    st = store(ctx)
    d = Dataset(
        id=f"ds_{st.seq('dataset')}",
        ai_system_id=s.id,
        name=form.get("name") or upload.filename,
        filename=upload.filename,
        data=upload.data,
        sheet=sheet,
        columns=columns,
        rows=rows,
        versions=[DatasetVersion(version=1, mapping=dict(mapping), mode=mode, created_at=now(ctx))],
        created_at=now(ctx),
    )
    st.datasets[d.id] = d
    return Reply({"dataset": dataset_json(d)}, 201)


def _dataset(ctx: Ctx, raw_id: Any = None):
    s = system(ctx)
    d = store(ctx).datasets.get(str(raw_id if raw_id is not None else ctx.path["datasetID"]))
    if d is None or d.ai_system_id != s.id:
        raise Refusal(404, "dataset_not_found", "That dataset was not found on this system.")
    return s, d


def _dataset_version(d: Dataset, version: int | None) -> DatasetVersion:
    if version is None:
        return d.versions[-1]
    found = next((v for v in d.versions if v.version == version), None)
    if found is None:
        raise Refusal(404, "dataset_version_not_found", f"Dataset {d.id} has no version {version}.")
    return found


@op("list_datasets")
async def list_datasets(ctx: Ctx):
    s = system(ctx)
    return unpaged(ctx, [dataset_json(d) for d in store(ctx).datasets.values() if d.ai_system_id == s.id])


@op("get_dataset")
async def get_dataset(ctx: Ctx):
    _, d = _dataset(ctx)
    raw = ctx.raw_query.get("version")
    version = None
    if raw:
        try:
            version = int(raw)
        except ValueError:
            raise Refusal(400, "invalid_version", "version is an integer.") from None
    return {"dataset": dataset_json(d, _dataset_version(d, version))}


@op("remap_dataset")
async def remap_dataset(ctx: Ctx):
    """A new version with a corrected mapping; expected_version guards it; old versions (and reports) keep theirs."""
    _, d = _dataset(ctx)
    b = ctx.body
    current = d.versions[-1].version
    if b["expected_version"] != current:
        raise Refusal(
            409, "dataset_changed", f"The dataset is at version {current}; re-read it.", current_version=current
        )
    error = model.mapping_error(d.columns, b["mapping"], b["mode"])
    if error:
        raise Refusal(400, "invalid_mapping", error, mapping_error=error)
    v = DatasetVersion(version=current + 1, mapping=dict(b["mapping"]), mode=b["mode"], created_at=now(ctx))
    d.versions.append(v)
    return {"dataset": dataset_json(d)}


def _same(actual: Any, expected: Any) -> bool:
    def norm(x: Any) -> Any:
        if isinstance(x, str):
            try:
                return json.loads(x)
            except ValueError:
                return x.strip()
        return x

    return norm(actual) == norm(expected)


@op("compare_dataset")
async def compare_dataset(ctx: Ctx):
    """Recorded outputs against expected values, for an explicit (or the latest) version; no model runs."""
    _, d = _dataset(ctx)
    v = _dataset_version(d, body(ctx).get("version"))
    if v.mode != "recorded_outputs":
        raise Refusal(409, "not_recorded_outputs", f"Version {v.version} is {v.mode}; compare needs recorded_outputs.")
    error = model.mapping_error(d.columns, v.mapping, v.mode)
    if error:
        raise Refusal(400, "invalid_mapping", error, mapping_error=error)
    rows = []
    for i, row in enumerate(d.rows):
        actual, expected = row.get(v.mapping["actual"]), row.get(v.mapping["expected"])
        rows.append(
            {
                "row": i + 1,
                "input": row.get(v.mapping["input"]),
                "expected": expected,
                "actual": actual,
                "passed": _same(actual, expected),
            }
        )
    passed = sum(r["passed"] for r in rows)
    st = store(ctx)
    rep = DatasetReport(
        id=f"dsr_{st.seq('dataset_report')}",
        dataset_id=d.id,
        dataset_version=v.version,
        mapping=dict(v.mapping),
        passed=passed,
        failed=len(rows) - passed,
        total=len(rows),
        rows=rows,
        created_at=now(ctx),
    )
    st.dataset_reports[rep.id] = rep
    return Reply({"report": _report_json(rep)}, 201)


def _report_json(r: DatasetReport, with_rows: bool = True) -> dict[str, Any]:
    out = {
        "id": r.id,
        "dataset_id": r.dataset_id,
        "dataset_version": r.dataset_version,
        "mapping": r.mapping,
        "passed": r.passed,
        "failed": r.failed,
        "total": r.total,
        "created_at": r.created_at,
    }
    if with_rows:
        out["rows"] = r.rows
    return out


@op("list_dataset_reports")
async def list_dataset_reports(ctx: Ctx):
    _, d = _dataset(ctx)
    return unpaged(ctx, [_report_json(r, False) for r in store(ctx).dataset_reports.values() if r.dataset_id == d.id])


@op("delete_dataset")
async def delete_dataset(ctx: Ctx):
    _, d = _dataset(ctx)
    st = store(ctx)
    del st.datasets[d.id]
    for rid in [r.id for r in st.dataset_reports.values() if r.dataset_id == d.id]:
        del st.dataset_reports[rid]
    return Reply(status=204)


@op("import_dataset_cases")
async def import_dataset_cases(ctx: Ctx):
    """A stored dataset version becomes golden cases of a component: one write, one context version."""
    s, b = system(ctx), body(ctx)
    if not b.get("dataset_id"):
        raise Refusal(400, "dataset_id_required", "Give dataset_id from list_datasets.")
    if b.get("component_id") is None:
        raise Refusal(400, "component_id_required", "Give the component_id the cases test.")
    _, d = _dataset(ctx, b["dataset_id"])
    comp = component(s, b["component_id"])
    v = _dataset_version(d, b.get("dataset_version"))
    error = model.mapping_error(d.columns, v.mapping, v.mode)
    if error:
        raise Refusal(400, "invalid_mapping", error, mapping_error=error)
    if "expected_version" in b:
        ctxmodel.check_version(s, b["expected_version"])
    sources = []
    for i, row in enumerate(d.rows):
        entry: dict[str, Any] = {
            "type": "case",
            "component_id": comp.id,
            "enabled": True,
            "input": row.get(v.mapping["input"]),
        }
        entry["expected"] = row.get(v.mapping["expected"]) if "expected" in v.mapping else None
        for extra in ("history", "notes", "resolved_prompt"):
            if extra in v.mapping:
                entry[extra] = row.get(v.mapping[extra])
        sid = f"manual-dataset-{d.id}-v{v.version}-{i + 1}"
        sources.append(
            ContextSource(
                id=sid,
                kind="dataset",
                category="examples_feedback",
                scope="case",
                case_id=sid,
                title=f"{d.name} row {i + 1}",
                text=json.dumps(entry),
                origin="manual",
            )
        )
    version = ctxmodel.add_sources(s, sources)
    return Reply(
        {"context": {"version": version}, "imported": len(sources), "source_ids": [x.id for x in sources]}, 201
    )


@op("list_test_library")
async def list_test_library(ctx: Ctx):
    kind = ctx.raw_query.get("kind")
    if kind and kind not in ctxmodel.STRUCTURED_TYPES:
        raise Refusal(400, "invalid_kind", "kind is case or criterion.")
    return paged(ctx, ctxmodel.library(system(ctx), kind))
