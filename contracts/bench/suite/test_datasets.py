"""The dataset lifecycle (C-26–C-31): preview stores nothing, consent is required, bytes are kept, the
4 MB limit holds on the server, a mapping is versioned."""

from __future__ import annotations

import hashlib

from .test_conventions import SPEC_OPS, check

CSV = b"question,expected,actual\nq1,yes,yes\nq2,no,yes\n"
MAPPING = {"input": "question", "expected": "expected", "actual": "actual"}
LIMIT = SPEC_OPS["upload_dataset"]["x-max-file-bytes"]
PROMPT_LIMIT = SPEC_OPS["upload_prompts"]["x-max-file-bytes"]


def count(bench, sid) -> int:
    r = bench.call("list_datasets", path={"id": sid})
    check("list_datasets", r)
    return len(r.json()["items"])


def test_dataset_lifecycle(bench, system_id):
    """C-26.1, C-26.2, C-26.3, C-27, C-29: a preview suggests a mapping and stores nothing; an upload needs
    consent and keeps the bytes; re-mapping takes the dataset's current version."""
    before = count(bench, system_id)
    r = bench.call(
        "preview_dataset", path={"id": system_id}, form={"mode": "recorded_outputs"}, files=[("cases.csv", CSV)]
    )
    check("preview_dataset", r)
    preview = r.json()["preview"]
    if preview.get("mapping_error") is not None or "suggested_mapping" not in preview:
        raise bench.drift("C-26.1", "POST datasets/preview", f"no usable suggestion: {preview}")
    if count(bench, system_id) != before:
        raise bench.drift("C-26.2", "POST datasets/preview", "the preview stored a dataset")
    r = bench.call(
        "upload_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs", "mapping": MAPPING},
        files=[("cases.csv", CSV)],
    )
    check("upload_dataset", r)
    if r.status_code < 400 or count(bench, system_id) != before:
        raise bench.drift("C-27", "POST datasets", f"stored without content_consent ({r.status_code})")
    r = bench.call(
        "upload_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs", "mapping": MAPPING, "content_consent": True},
        files=[("cases.csv", CSV)],
    )
    check("upload_dataset", r)
    dataset = r.json()["dataset"]
    if dataset.get("sha256") not in (None, hashlib.sha256(CSV).hexdigest()) or count(bench, system_id) != before + 1:
        raise bench.drift("C-29", "POST datasets", "the stored dataset is not the uploaded bytes")
    r = bench.call(
        "remap_dataset",
        path={"id": system_id, "datasetID": dataset["id"]},
        body={"expected_version": dataset["version"] + 5, "mode": "recorded_outputs", "mapping": MAPPING},
    )
    check("remap_dataset", r)
    if r.status_code != 409:
        raise bench.drift("C-26.3", "PUT datasets/mapping", f"a stale expected_version answered {r.status_code}")
    r = bench.call("delete_dataset", path={"id": system_id, "datasetID": dataset["id"]})
    check("delete_dataset", r)


def test_dataset_size_limit_on_the_server(bench, system_id):
    """C-31.1, C-31.2: the server takes exactly 4 MB and refuses one byte over 4 194 304 (the SDK checks
    first, so raw HTTP shows the server)."""
    header = b"question,expected,actual\n"
    exact = header + b"q" * (LIMIT - len(header) - 5) + b",a,a\n"
    r = bench.call(
        "preview_dataset", path={"id": system_id}, form={"mode": "recorded_outputs"}, files=[("cases.csv", exact)]
    )
    check("preview_dataset", r)
    if r.status_code != 200:
        raise bench.drift("C-31.1", "POST datasets/preview", f"exactly 4 MB answered {r.status_code}")
    r = bench.call(
        "preview_dataset",
        path={"id": system_id},
        form={"mode": "recorded_outputs"},
        files=[("cases.csv", exact + b"x")],
    )
    check("preview_dataset", r)
    if r.status_code != 413:
        raise bench.drift("C-31.2", "POST datasets/preview", f"4 MB + 1 byte answered {r.status_code}")


def check_stored_form_and_derived_counts(bench, sid: int) -> None:
    """The form's mode and JSON-encoded mapping are stored as sent (C-28, C-14); a comparison's counts are the fold
    of its rows, and its rows are the dataset's."""
    mapping = {**MAPPING, "notes": "expected"}
    r = bench.call(
        "upload_dataset",
        path={"id": sid},
        form={"mode": "recorded_outputs", "mapping": mapping, "content_consent": True, "name": "contract cases"},
        files=[("cases.csv", CSV)],
    )
    check("upload_dataset", r)
    if r.status_code not in (200, 201):
        raise bench.drift("C-28.1", "POST datasets", f"a consented upload answered {r.status_code} {r.text[:200]}")
    path = {"id": sid, "datasetID": r.json()["dataset"]["id"]}
    got = bench.call("get_dataset", path=path)
    check("get_dataset", got)
    dataset = got.json()["dataset"]
    if dataset["mapping"] != mapping:
        raise bench.drift("C-14", "GET datasets/{datasetID}", f"the JSON form field came back as {dataset['mapping']}")
    if dataset["mode"] != "recorded_outputs" or dataset.get("name") != "contract cases":
        raise bench.drift(
            "C-28.1", "GET datasets/{datasetID}", f"mode {dataset['mode']!r}, name {dataset.get('name')!r}"
        )
    if dataset.get("row_count") not in (None, CSV.count(b"\n") - 1):
        raise bench.drift("C-29", "GET datasets/{datasetID}", f"row_count {dataset['row_count']} for 2 rows")
    r = bench.call("compare_dataset", path=path, body={})
    check("compare_dataset", r)
    if r.status_code not in (200, 201):
        raise bench.drift("C-28.2", "POST datasets/{datasetID}/compare", f"answered {r.status_code}")
    report = r.json()["report"]
    passed = sum(1 for row in report["rows"] if row["passed"])
    counts = (report["passed"], report["failed"], report["total"])
    if counts != (passed, len(report["rows"]) - passed, len(report["rows"])) or report["total"] != 2:
        raise bench.drift("C-28.2", "POST datasets/{datasetID}/compare", f"counts {counts} for rows {report['rows']}")
    expected = [(row["input"], row["passed"]) for row in report["rows"]]
    if expected != [("q1", True), ("q2", False)]:
        raise bench.drift("C-28.2", "POST datasets/{datasetID}/compare", f"rows compare as {expected}")


def check_prompt_upload_limit(bench) -> None:
    """C-32.1, C-32.2: prompt files summed: exactly the limit over several files is accepted, one byte more
    is refused."""
    half = PROMPT_LIMIT // 2
    files = [("a.txt", b"a" * half), ("b.txt", b"b" * (PROMPT_LIMIT - half))]
    r = bench.call("upload_prompts", form={}, files=files)  # its answer echoes the 2 MB of prompts
    if r.status_code not in (200, 201):
        raise bench.drift(
            "C-32.1", "POST /api/prompt-scans", f"{PROMPT_LIMIT} bytes in two files answered {r.status_code}"
        )
    r = bench.call("upload_prompts", form={}, files=[*files, ("c.txt", b"c")])
    check("upload_prompts", r)
    if r.status_code != 413:
        raise bench.drift("C-32.2", "POST /api/prompt-scans", f"{PROMPT_LIMIT} + 1 bytes answered {r.status_code}")


def test_stored_form_and_derived_counts(bench, system_id):
    """C-28.1, C-28.2, C-14, C-29: mode and mapping kept as sent; compare's counts fold its rows."""
    check_stored_form_and_derived_counts(bench, system_id)


def test_prompt_upload_limit(bench, writes):
    """C-32.1, C-32.2: the 2 MB total of prompt uploads holds on the server (the client checks before sending)."""
    check_prompt_upload_limit(bench)
