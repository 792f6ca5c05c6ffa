"""Versioned writes: every kind of context write (put, edit, delete, document upload, dataset import) moves
the version by exactly one, and a refused one by none; the snapshot at each version (`?version=n`) agrees
with the writes that made it; replaying a write, a foreign source id, an unusable entry or a body the
operation does not take writes nothing. Limits and the id prefix are read from the spec.

Each check is a function of the suite's raw client and a system of its own, so the drift catalogue calls
it directly against a drifted server."""

from __future__ import annotations

import json

from .._runner import Drift
from .test_conventions import SPEC_OPS, check

PUT = SPEC_OPS["put_context_source"]
UPLOAD = SPEC_OPS["upload_context_document"]
PREFIX = PUT["x-source-id-prefix"]
DOC_LIMIT = UPLOAD["x-max-file-bytes"]
CASE_CSV = b"question,expected,actual\nq1,yes,yes\nq2,no,yes\nq3,maybe,no\n"


def curl(bench, op_id: str, path: dict | None = None, query: str = "") -> str:
    return bench.curl(op_id, path, query)


def read(bench, sid: int, version: int | None = None) -> dict:
    r = bench.call("get_system_context", path={"id": sid}, query=None if version is None else {"version": version})
    check("get_system_context", r)
    if r.status_code != 200:
        raise bench.drift(
            "C-33", "GET context", f"answered {r.status_code}", curl(bench, "get_system_context", {"id": sid})
        )
    got = r.json()["context"]
    if not isinstance(got.get("version"), int) or isinstance(got["version"], bool):
        raise bench.drift("C-33", "GET context", f"version is {got.get('version')!r}, not a number")
    return got


def texts(context: dict) -> dict[str, str]:
    return {s["id"]: s["text"] for s in context["sources"]}


def rule(source_id: str, text: str) -> dict:
    """A plain rule (C-42): kind user, category rules_constraints, scope system, free text."""
    return {"id": source_id, "kind": "user", "category": "rules_constraints", "scope": "system", "text": text}


def put(bench, sid: int, expected: int, source: dict):
    r = bench.call("put_context_source", path={"id": sid}, body={"expected_version": expected, "source": source})
    check("put_context_source", r)
    return r


def component_of(bench, sid: int) -> int:
    r = bench.call(
        "register_prompts",
        path={"id": sid},
        body={
            "repo_full_name": "uploads",
            "branch": "main",
            "prompts": [{"name": "contract prompt", "path": "contract.txt", "line": 1, "content": "Say hi."}],
        },
    )
    check("register_prompts", r)
    if r.status_code not in (200, 201):
        # the precondition is made through the API: a refusal of it is drift, not a reason to skip
        raise Drift("C-43", "register_prompts", f"adding a component answered {r.status_code} {r.text[:200]}")
    return r.json()["components"][0]["id"]


class History:
    """What the suite wrote, version by version: the model a target's snapshots must agree with."""

    def __init__(self, bench, sid: int) -> None:
        self.bench, self.sid = bench, sid
        start = read(bench, sid)
        self.version = start["version"]
        self.snapshots = {self.version: texts(start)}

    def wrote(self, what: str, answer_version: int | None, change) -> None:
        """A write succeeded: the version moves by exactly one, in its answer and on a re-read."""
        sources = dict(self.snapshots[self.version])
        change(sources)
        if answer_version != self.version + 1:
            raise self.bench.drift("C-36.1", what, f"answered version {answer_version}, expected {self.version + 1}")
        got = read(self.bench, self.sid)
        if got["version"] != self.version + 1:
            raise self.bench.drift("C-36.1", what, f"re-read version {got['version']}, expected {self.version + 1}")
        self.version += 1
        self.snapshots[self.version] = sources
        if texts(got) != sources:
            raise self.bench.drift("C-37", what, f"the sources after the write differ: {sorted(texts(got))}")

    def refused(self, what: str, claim: str) -> None:
        """A write was refused: nothing moved."""
        got = read(self.bench, self.sid)
        if got["version"] != self.version or texts(got) != self.snapshots[self.version]:
            raise self.bench.drift(claim, what, f"a refused write changed the context (version {got['version']})")

    def agree(self) -> None:
        """C-46.2: `?version=n` reads exactly the sources written up to n."""
        for version, sources in self.snapshots.items():
            got = read(self.bench, self.sid, version)
            if got["version"] != version or texts(got) != sources:
                raise self.bench.drift(
                    "C-46.2",
                    f"GET context?version={version}",
                    f"the snapshot differs from the writes: {sorted(texts(got))} vs {sorted(sources)}",
                    curl(self.bench, "get_system_context", {"id": self.sid}, f"?version={version}"),
                )


def check_every_write_moves_the_version_by_one(bench, sid: int) -> None:
    h = History(bench, sid)
    a, b = f"{PREFIX}contract-a", f"{PREFIX}contract-b"

    first = rule(a, "Refund only within 30 days of purchase.")
    r = put(bench, sid, h.version, first)
    if r.status_code != 200:
        raise bench.drift("C-34.1", "PUT context/sources", f"a current write answered {r.status_code} {r.text[:200]}")
    if r.json()["source"]["text"] != first["text"] or r.json()["source"]["kind"] != "user":
        raise bench.drift("C-42", "PUT context/sources", f"the rule came back as {r.json()['source']}")
    h.wrote("PUT context/sources (new)", r.json()["context"]["version"], lambda s: s.__setitem__(a, first["text"]))

    # replaying the same write fails: the version it expected has passed (C-36)
    r = put(bench, sid, h.version - 1, first)
    if r.status_code != 409 or r.json().get("error", {}).get("code") != "context_changed":
        raise bench.drift("C-36.2", "PUT context/sources", f"a replayed write answered {r.status_code}")
    if r.json()["error"].get("current_version") not in (None, h.version):
        raise bench.drift("C-35", "PUT context/sources", f"current_version {r.json()['error']['current_version']}")
    h.refused("PUT context/sources (replayed)", "C-36.2")

    edit = rule(a, "Refund only within 14 days of purchase.")
    r = put(bench, sid, h.version, edit)
    if r.status_code != 200:
        raise bench.drift("C-37", "PUT context/sources", f"an edit by id answered {r.status_code}")
    h.wrote("PUT context/sources (edit)", r.json()["context"]["version"], lambda s: s.__setitem__(a, edit["text"]))

    r = put(bench, sid, h.version, rule(b, "Escalate chargebacks."))
    h.wrote(
        "PUT context/sources (second)",
        r.json().get("context", {}).get("version"),
        lambda s: s.__setitem__(b, "Escalate chargebacks."),
    )

    foreign = rule("contract-no-prefix", "not a manual id")
    r = put(bench, sid, h.version, foreign)
    if r.status_code != 400:
        raise bench.drift("C-34.2", "PUT context/sources", f"an id without {PREFIX!r} answered {r.status_code}")
    h.refused("PUT context/sources (foreign id)", "C-34.2")

    r = bench.call("delete_context_source", path={"id": sid, "sourceID": b})
    check("delete_context_source", r)
    if r.status_code != 200:
        raise bench.drift("C-39.1", "DELETE context/sources", f"answered {r.status_code}")
    h.wrote("DELETE context/sources", r.json()["context"]["version"], lambda s: s.pop(b))
    r = bench.call("delete_context_source", path={"id": sid, "sourceID": b})
    check("delete_context_source", r)
    if r.status_code != 404:
        raise bench.drift("C-39.2", "DELETE context/sources", f"deleting a removed source answered {r.status_code}")
    h.refused("DELETE context/sources (again)", "C-39.2")

    # a context document: at the spec's limit it is a source (one version); one byte past it is refused
    doc = b"# Policy\n" + b"a" * (DOC_LIMIT - 10) + b"\n"
    r = bench.call(
        "upload_context_document",
        path={"id": sid},
        form={"category": "rules_constraints", "expected_version": h.version},
        files=[("policy.md", doc)],
    )
    check("upload_context_document", r)
    if r.status_code not in (200, 201):
        raise bench.drift("C-30.1", "POST context/upload", f"a {len(doc)}-byte document answered {r.status_code}")
    src = r.json()["source"]
    h.wrote("POST context/upload", r.json()["context"]["version"], lambda s: s.__setitem__(src["id"], doc.decode()))
    r = bench.call(
        "upload_context_document",
        path={"id": sid},
        form={"category": "rules_constraints", "expected_version": h.version},
        files=[("policy.md", doc + b"x")],
    )
    check("upload_context_document", r)
    if r.status_code != 413:
        raise bench.drift("C-30.2", "POST context/upload", f"{DOC_LIMIT} + 1 bytes answered {r.status_code}")
    h.refused("POST context/upload (too large)", "C-30.2")

    # a body the operation does not take (multipart to a JSON operation) is refused and writes nothing (C-15)
    r = bench.http.request(
        "PUT",
        bench.url("put_context_source", {"id": sid}),
        headers={"Authorization": f"Bearer {bench.key}"},
        files=[("file", ("rule.txt", b"a rule", "application/octet-stream"))],
    )
    check("put_context_source", r)
    if r.status_code not in (400, 415):
        raise bench.drift("C-15", "PUT context/sources", f"a multipart body answered {r.status_code}")
    h.refused("PUT context/sources (multipart)", "C-15")
    h.agree()


def check_dataset_import_is_one_write(bench, sid: int) -> None:
    """A stored dataset becomes cases in one write: one version, one case per row, listed in the test library."""
    component = component_of(bench, sid)
    r = bench.call(
        "upload_dataset",
        path={"id": sid},
        form={
            "mode": "recorded_outputs",
            "content_consent": True,
            "mapping": {"input": "question", "expected": "expected", "actual": "actual"},
        },
        files=[("cases.csv", CASE_CSV)],
    )
    check("upload_dataset", r)
    if r.status_code not in (200, 201):
        raise Drift("C-27", "upload_dataset", f"a consented upload answered {r.status_code} {r.text[:200]}")
    dataset = r.json()["dataset"]
    h = History(bench, sid)
    before = library(bench, sid)
    r = bench.call(
        "import_dataset_cases",
        path={"id": sid},
        body={"dataset_id": dataset["id"], "component_id": component, "expected_version": h.version},
    )
    check("import_dataset_cases", r)
    if r.status_code not in (200, 201):
        raise bench.drift("C-68.1", "POST test-library/import", f"answered {r.status_code} {r.text[:200]}")
    got = r.json()
    rows = CASE_CSV.count(b"\n") - 1
    if got["imported"] != rows or len(got["source_ids"]) != rows:
        raise bench.drift("C-68.1", "POST test-library/import", f"{rows} rows imported as {got['imported']} cases")
    after = read(bench, sid)
    new = {i: t for i, t in texts(after).items() if i in got["source_ids"]}
    h.wrote("POST test-library/import", got["context"]["version"], lambda s: s.update(new))
    lib = library(bench, sid)
    added = {e["source_id"] for e in lib} - {e["source_id"] for e in before}
    if added != set(got["source_ids"]) or any(e["type"] != "case" for e in lib if e["source_id"] in added):
        raise bench.drift("C-68.1", "GET test-library", f"the library gained {sorted(added)}")
    inputs = sorted(json.loads(t)["input"] for t in new.values())
    if inputs != ["q1", "q2", "q3"]:
        raise bench.drift("C-28.2", "POST test-library/import", f"the cases' inputs are {inputs}")
    r = bench.call(
        "import_dataset_cases",
        path={"id": sid},
        body={"dataset_id": dataset["id"], "component_id": component, "expected_version": h.version - 1},
    )
    check("import_dataset_cases", r)
    if r.status_code != 409:
        raise bench.drift("C-35", "POST test-library/import", f"a stale expected_version answered {r.status_code}")
    h.refused("POST test-library/import (stale)", "C-35")
    h.agree()


def library(bench, sid: int) -> list[dict]:
    """Every test-library entry, page by page; a next_offset that does not advance is drift (C-12.1), not a hang."""
    out: list[dict] = []
    offset: int | None = 0
    while offset is not None:
        r = bench.call("list_test_library", path={"id": sid}, query={"offset": offset})
        check("list_test_library", r)
        out += r.json()["items"]
        following = r.json().get("next_offset")
        if following is not None and following <= offset:
            raise bench.drift("C-12.1", "GET test-library", f"next_offset {following} after offset {offset}")
        offset = following
    return out


def check_criterion_entry(bench, sid: int) -> None:
    """A criterion is JSON text {type: criterion, component_id, enabled, statement, pass/fail conditions}; one
    that is not JSON writes nothing."""
    component = component_of(bench, sid)
    h = History(bench, sid)
    entry = {
        "type": "criterion",
        "component_id": component,
        "enabled": True,
        "statement": "Answers cite the refund policy.",
        "pass_condition": "The policy is cited.",
        "fail_condition": "No citation.",
    }
    sid_ = f"{PREFIX}library-contract-criterion"
    source = {"id": sid_, "kind": "user", "category": "rules_constraints", "scope": "system", "text": json.dumps(entry)}
    r = put(bench, sid, h.version, {**source, "text": "not json at all"})
    if r.status_code != 400:
        raise bench.drift("C-41.2", "PUT context/sources", f"a criterion that is not JSON answered {r.status_code}")
    h.refused("PUT context/sources (criterion not JSON)", "C-41.2")
    r = put(bench, sid, h.version, source)
    if r.status_code != 200:
        raise bench.drift("C-41.1", "PUT context/sources", f"a criterion answered {r.status_code} {r.text[:200]}")
    h.wrote(
        "PUT context/sources (criterion)", r.json()["context"]["version"], lambda s: s.__setitem__(sid_, source["text"])
    )
    r = bench.call("list_test_library", path={"id": sid}, query={"kind": "criterion"})
    check("list_test_library", r)
    found = {e["source_id"]: e for e in r.json()["items"]}
    if sid_ not in found or found[sid_]["type"] != "criterion" or found[sid_]["entry"] != entry:
        raise bench.drift("C-41.1", "GET test-library?kind=criterion", f"the criterion reads back as {found.get(sid_)}")


def test_every_write_moves_the_version_by_one(bench, system_id):
    """C-36.1, C-36.2, C-34.1, C-34.2, C-37, C-39.1, C-39.2, C-42, C-30.1, C-30.2, C-15, C-46.2, C-33: put,
    replay, edit, foreign id, delete, document upload at and past its limit, a multipart body: each success
    moves the version by one, each refusal by none, and every snapshot agrees."""
    check_every_write_moves_the_version_by_one(bench, system_id)


def test_dataset_import_is_one_versioned_write(bench, system_id):
    """C-68.1, C-36.1, C-28.2, C-35: a dataset's rows become golden cases in one write."""
    check_dataset_import_is_one_write(bench, system_id)


def test_criterion_entry(bench, system_id):
    """C-41.1, C-41.2: a criterion entry, and one whose text is not JSON."""
    check_criterion_entry(bench, system_id)
