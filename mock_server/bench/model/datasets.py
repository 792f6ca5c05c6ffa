"""Dataset files: parsing CSV, XLSX, JSON and JSONL, suggesting and checking a column mapping (C-26–C-31).

Uploaded bytes are kept exactly (C-29); parsing only reads them.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from typing import Any
from xml.etree import ElementTree

from .errors import Refusal

MAPPING_FIELDS = ("input", "expected", "actual", "history", "notes", "resolved_prompt", "template", "variables")
# what each mode needs mapped
REQUIRED = {
    "recorded_outputs": ("input", "expected", "actual"),
    "classifier": ("input", "expected"),
    "replay": ("input",),
}
SYNONYMS = {
    "input": ("input", "question", "prompt", "query", "user_input", "message"),
    "expected": ("expected", "expected_output", "answer", "label", "target", "reference"),
    "actual": ("actual", "actual_output", "output", "response", "prediction"),
    "history": ("history", "conversation", "messages"),
    "notes": ("notes", "note", "comment", "comments"),
    "resolved_prompt": ("resolved_prompt", "system_prompt"),
    "template": ("template", "prompt_template"),
    "variables": ("variables", "vars"),
}
KINDS = {".csv": "csv", ".tsv": "csv", ".xlsx": "xlsx", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
csv.field_size_limit(16 * 1024 * 1024)  # one cell may hold a whole long transcript
NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


def kind_of(filename: str) -> str:
    for ext, kind in KINDS.items():
        if filename.lower().endswith(ext):
            return kind
    raise Refusal(400, "unsupported_dataset_type", "Upload CSV, XLSX, JSON or JSONL.")


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Refusal(400, "unreadable_dataset", "The file is not UTF-8 text.") from None


def _xlsx(data: bytes, sheet: str | None) -> tuple[list[str], list[list[str]], str]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        workbook = ElementTree.fromstring(zf.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
        targets = {r.get("Id"): r.get("Target") for r in rels}
        sheets = [(s.get("name"), targets[s.get(REL)]) for s in workbook.find("m:sheets", NS)]
        shared: list[str] = []
        if "xl/sharedStrings.xml" in zf.namelist():
            for si in ElementTree.fromstring(zf.read("xl/sharedStrings.xml")).findall("m:si", NS):
                shared.append("".join(t.text or "" for t in si.iter(f"{{{NS['m']}}}t")))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, TypeError):
        raise Refusal(400, "unreadable_dataset", "The XLSX workbook could not be read.") from None
    names = [n for n, _ in sheets]
    if sheet is not None and sheet not in names:
        raise Refusal(400, "unknown_sheet", f"The workbook has no sheet {sheet!r}; it has {', '.join(names)}.")
    name, target = next((n, t) for n, t in sheets if sheet is None or n == sheet)
    path = target.lstrip("/") if target.startswith("/") else "xl/" + target
    try:
        root = ElementTree.fromstring(zf.read(path))
    except (KeyError, ElementTree.ParseError):
        raise Refusal(400, "unreadable_dataset", "The XLSX sheet could not be read.") from None
    rows: list[list[str]] = []
    for row in root.iter(f"{{{NS['m']}}}row"):
        values: dict[int, str] = {}
        for cell in row.findall("m:c", NS):
            ref = re.match(r"([A-Z]+)", cell.get("r", "A"))
            col = 0
            for ch in ref.group(1) if ref else "A":
                col = col * 26 + ord(ch) - 64
            kind = cell.get("t")
            v = cell.find("m:v", NS)
            if kind == "s" and v is not None:
                values[col] = shared[int(v.text or 0)]
            elif kind == "inlineStr":
                values[col] = "".join(t.text or "" for t in cell.iter(f"{{{NS['m']}}}t"))
            else:
                values[col] = v.text if v is not None and v.text is not None else ""
        if values:
            rows.append([values.get(i, "") for i in range(1, max(values) + 1)])
    if not rows:
        raise Refusal(400, "unreadable_dataset", "The sheet is empty.")
    return rows[0], rows[1:], name


def sheet_names(data: bytes) -> list[str]:
    try:
        workbook = ElementTree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("xl/workbook.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError):
        return []
    return [s.get("name") for s in workbook.find("m:sheets", NS)]


def parse(filename: str, data: bytes, sheet: str | None = None) -> tuple[list[str], list[dict[str, Any]], str | None]:
    """(columns, rows, sheet) of a dataset file."""
    kind = kind_of(filename)
    if not data:
        raise Refusal(400, "unreadable_dataset", "The file is empty.")
    if kind == "xlsx":
        header, body, name = _xlsx(data, sheet)
        columns = [str(h) for h in header]
        return columns, [dict(zip(columns, r + [""] * (len(columns) - len(r)), strict=False)) for r in body], name
    if sheet is not None:
        raise Refusal(400, "unknown_sheet", "Only XLSX workbooks have sheets.")
    text = _text(data)
    if kind == "csv":
        dialect = "excel-tab" if filename.lower().endswith(".tsv") else "excel"
        reader = csv.DictReader(io.StringIO(text), dialect=dialect)
        try:
            rows = [dict(r) for r in reader]
        except csv.Error:
            raise Refusal(400, "unreadable_dataset", "The CSV could not be read.") from None
        if not reader.fieldnames:
            raise Refusal(400, "unreadable_dataset", "The CSV has no header row.")
        return list(reader.fieldnames), rows, None
    try:
        if kind == "json":
            value = json.loads(text)
            rows = value.get("rows", value.get("cases")) if isinstance(value, dict) else value
        else:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        raise Refusal(400, "unreadable_dataset", f"The {kind.upper()} could not be parsed.") from None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise Refusal(400, "unreadable_dataset", "Expected a list of objects, one per case.")
    columns: list[str] = []
    for r in rows:
        columns.extend(k for k in r if k not in columns)
    return columns, rows, None


def suggest(columns: list[str]) -> dict[str, str]:
    lower = {c.lower().strip(): c for c in columns}
    out: dict[str, str] = {}
    for fld in MAPPING_FIELDS:
        for name in SYNONYMS[fld]:
            if name in lower and lower[name] not in out.values():
                out[fld] = lower[name]
                break
    return out


def mapping_error(columns: list[str], mapping: dict[str, str], mode: str) -> str | None:
    """Why the mapping cannot be imported, or None (C-26)."""
    unknown = [f"{k} -> {v!r}" for k, v in mapping.items() if v not in columns]
    if unknown:
        return "Mapped columns not in the file: " + ", ".join(unknown)
    missing = [f for f in REQUIRED.get(mode, ("input",)) if f not in mapping]
    if missing:
        return f"Mode {mode} needs a column for: " + ", ".join(missing)
    return None
