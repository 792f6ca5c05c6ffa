"""The dataset lifecycle (C-26–C-31): preview stores nothing, consent is required, bytes are kept, the
4 MB limit holds on the server, a mapping is versioned."""

from __future__ import annotations

import hashlib

from .._runner import Drift
from ..claims import BY_ID
from .test_conventions import check

CSV = b"question,expected,actual\nq1,yes,yes\nq2,no,yes\n"
MAPPING = {"input": "question", "expected": "expected", "actual": "actual"}
LIMIT = 4194304


def count(bench, sid) -> int:
    r = bench.call("list_datasets", path={"id": sid})
    check("list_datasets", r)
    return len(r.json()["items"])


def test_dataset_lifecycle(bench, system_id):
    before = count(bench, system_id)
    r = bench.call(
        "preview_dataset", path={"id": system_id}, form={"mode": "recorded_outputs"}, files=[("cases.csv", CSV)]
    )
    check("preview_dataset", r)
    preview = r.json()["preview"]
    if preview.get("mapping_error") is not None or "suggested_mapping" not in preview:
        raise Drift(BY_ID["C-26"], "POST datasets/preview", f"no usable suggestion: {preview}")
    if count(bench, system_id) != before:
        raise Drift(BY_ID["C-26"], "POST datasets/preview", "the preview stored a dataset")
    r = bench.call(
        "upload_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs", "mapping": MAPPING},
        files=[("cases.csv", CSV)],
    )
    check("upload_dataset", r)
    if r.status_code < 400 or count(bench, system_id) != before:
        raise Drift(BY_ID["C-27"], "POST datasets", f"stored without content_consent ({r.status_code})")
    r = bench.call(
        "upload_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs", "mapping": MAPPING, "content_consent": True},
        files=[("cases.csv", CSV)],
    )
    check("upload_dataset", r)
    dataset = r.json()["dataset"]
    if dataset.get("sha256") not in (None, hashlib.sha256(CSV).hexdigest()) or count(bench, system_id) != before + 1:
        raise Drift(BY_ID["C-29"], "POST datasets", "the stored dataset is not the uploaded bytes")
    r = bench.call(
        "remap_dataset",
        path={"id": system_id, "datasetID": dataset["id"]},
        body={"expected_version": dataset["version"] + 5, "mode": "recorded_outputs", "mapping": MAPPING},
    )
    check("remap_dataset", r)
    if r.status_code != 409:
        raise Drift(BY_ID["C-26"], "PUT datasets/mapping", f"a stale expected_version answered {r.status_code}")
    r = bench.call("delete_dataset", path={"id": system_id, "datasetID": dataset["id"]})
    check("delete_dataset", r)


def test_dataset_size_limit_on_the_server(bench, system_id):
    """C-31: the server refuses one byte over 4 194 304 (the SDK checks first, so raw HTTP shows the server)."""
    header = b"question,expected,actual\n"
    exact = header + b"q" * (LIMIT - len(header) - 5) + b",a,a\n"
    r = bench.call(
        "preview_dataset", path={"id": system_id}, form={"mode": "recorded_outputs"}, files=[("cases.csv", exact)]
    )
    check("preview_dataset", r)
    if r.status_code != 200:
        raise Drift(BY_ID["C-31"], "POST datasets/preview", f"exactly 4 MB answered {r.status_code}")
    r = bench.call(
        "preview_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs"},
        files=[("cases.csv", exact + b"x")],
    )
    check("preview_dataset", r)
    if r.status_code != 413:
        raise Drift(BY_ID["C-31"], "POST datasets/preview", f"4 MB + 1 byte answered {r.status_code}")
