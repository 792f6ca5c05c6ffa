"""Catalog drift (C-07, C-08, C-09): the target's list_operations against the pinned SDK catalog against
our spec, as one three-way report."""

from __future__ import annotations

import os
from pathlib import Path

from .._runner import Drift
from ..claims import BY_ID
from ..drift import pinned_catalog, render, spec_catalog, three_way
from .test_conventions import check


def test_three_way_catalog(bench):
    """C-07, C-08: the target lists exactly the pinned catalog's operations (C-07), each as the catalog has it."""
    r = bench.call("list_operations", token=None)
    check("list_operations", r)
    report = three_way(pinned_catalog(), r.json(), spec_catalog())
    text = render(report)
    out = os.environ.get("HARNESS_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "bench-catalog-drift.md").write_text(text + "\n")
    if any(not row["target"] or not row["sdk"] for row in report["drift"]):
        raise Drift(BY_ID["C-07"], "GET /api/headless/operations", "operations missing or added:\n" + text)
    if not report["clean"]:
        raise Drift(BY_ID["C-08"], "GET /api/headless/operations", "\n" + text)
