"""Context versioning (C-33–C-39, C-45, C-46): a hypothesis state machine of puts (current and stale),
edits, pauses and deletes against a model; concurrent writers with one expected_version."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from .._runner import Drift
from ..claims import BY_ID
from .test_conventions import check

IDS = st.sampled_from([f"manual-contract-{n}" for n in range(4)])
TEXT = st.text(alphabet="abcdefghij ", min_size=1, max_size=40)


def source(source_id: str, text: str) -> dict:
    return {"id": source_id, "kind": "user", "category": "rules_constraints", "scope": "system", "text": text}


def context(bench, sid, version=None) -> dict:
    r = bench.call("get_system_context", path={"id": sid}, query={"version": version} if version is not None else None)
    check("get_system_context", r)
    return r.json()["context"]


@pytest.fixture
def machine_for(bench, system_id):
    class ContextMachine(RuleBasedStateMachine):
        """The model: the version and the text of every source; snapshots by version."""

        @initialize()
        def start(self):
            got = context(bench, system_id)
            self.version = got["version"]
            self.sources = {s["id"]: s["text"] for s in got["sources"]}
            self.snapshots = {self.version: dict(self.sources)}

        def put(self, expected: int, source_id: str, text: str):
            r = bench.call(
                "put_context_source",
                path={"id": system_id},
                body={"expected_version": expected, "source": source(source_id, text)},
            )
            check("put_context_source", r)
            return r

        @rule(source_id=IDS, text=TEXT)
        def put_current(self, source_id, text):
            r = self.put(self.version, source_id, text)
            if r.status_code != 200 or r.json()["context"]["version"] != self.version + 1:
                raise Drift("C-36.1", "PUT context/sources", f"a current write answered {r.status_code} {r.text[:200]}")
            self.version += 1
            self.sources[source_id] = text
            self.snapshots[self.version] = dict(self.sources)

        @precondition(lambda self: self.version > 0)
        @rule(source_id=IDS, text=TEXT, back=st.integers(min_value=1, max_value=3))
        def put_stale(self, source_id, text, back):
            r = self.put(max(0, self.version - back), source_id, text)
            if r.status_code != 409 or r.json()["error"]["code"] != "context_changed":
                raise Drift(BY_ID["C-35"], "PUT context/sources", f"a stale write answered {r.status_code}")

        @precondition(lambda self: bool(self.sources))
        @rule(data=st.data())
        def delete(self, data):
            source_id = data.draw(st.sampled_from(sorted(self.sources)))
            r = bench.call("delete_context_source", path={"id": system_id, "sourceID": source_id})
            check("delete_context_source", r)
            if r.status_code != 200:
                raise Drift("C-39.1", "DELETE context/sources", f"answered {r.status_code}")
            self.version += 1
            del self.sources[source_id]
            self.snapshots[self.version] = dict(self.sources)

        @precondition(lambda self: len(self.snapshots) > 1)
        @rule(data=st.data())
        def read_old_version(self, data):
            v = data.draw(st.sampled_from(sorted(self.snapshots)))
            got = context(bench, system_id, v)
            if {s["id"]: s["text"] for s in got["sources"]} != self.snapshots[v]:
                raise Drift("C-46.2", f"GET context?version={v}", "the snapshot differs from what was written")

        @invariant()
        def matches(self):
            got = context(bench, system_id)
            if got["version"] != self.version:
                raise Drift("C-36.1", "GET context", f"version {got['version']}, expected {self.version}")
            if {s["id"]: s["text"] for s in got["sources"]} != self.sources:
                raise Drift(BY_ID["C-37"], "GET context", "the sources differ from the writes that succeeded")

    return ContextMachine


def test_context_versioning_state_machine(machine_for):
    """C-33–C-39, C-36.1, C-39.1, C-42, C-46.2: random puts (current and stale), deletes and snapshot reads
    agree with the model."""
    machine_for.TestCase.settings = settings(max_examples=8, stateful_step_count=12, deadline=None)
    machine_for.TestCase().runTest()


def test_concurrent_writers_exactly_one_wins(bench, system_id):
    """C-35: writers racing with the same expected_version: one succeeds, the others get context_changed and
    write nothing."""
    version = context(bench, system_id)["version"]
    results: dict[int, object] = {}
    barrier = threading.Barrier(6)

    def writer(n: int) -> None:
        barrier.wait()
        results[n] = bench.call(
            "put_context_source",
            path={"id": system_id},
            body={"expected_version": version, "source": source(f"manual-race-{n}", f"writer {n}")},
        )

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [n for n, r in results.items() if r.status_code == 200]
    lost = [r for r in results.values() if r.status_code != 200]
    if len(won) != 1 or any(r.status_code != 409 or r.json()["error"]["code"] != "context_changed" for r in lost):
        raise Drift(
            BY_ID["C-35"], "PUT context/sources", f"{len(won)} writers won; others: {[r.status_code for r in lost]}"
        )
    after = context(bench, system_id)
    race = {s["id"] for s in after["sources"] if s["id"].startswith("manual-race-")}
    if after["version"] != version + 1 or race != {f"manual-race-{won[0]}"}:
        raise Drift(BY_ID["C-35"], "GET context", f"after the race: version {after['version']}, sources {sorted(race)}")


def test_golden_case_and_pause(bench, system_id, oauth):
    """C-40, C-38, C-43, C-44, C-68.2: a case needs a component of the system and is listed in the test library;
    enabled:false pauses it."""
    comp = bench.call(
        "register_prompts",
        path={"id": system_id},
        body={
            "repo_full_name": "uploads",
            "branch": "main",
            "prompts": [{"name": "contract prompt", "path": "contract.txt", "line": 1, "content": "Say hi."}],
        },
    )
    if comp.status_code not in (200, 201):
        # the precondition is made through the API: a refusal of it is drift, not a reason to skip
        raise Drift("C-43", "register_prompts", f"adding a component answered {comp.status_code} {comp.text[:200]}")
    component_id = comp.json()["components"][0]["id"]
    version = context(bench, system_id)["version"]
    entry = {
        "type": "case",
        "component_id": component_id,
        "enabled": True,
        "input": "hi",
        "expected": {"greeting": True},
    }
    case = {
        "id": "manual-library-contract",
        "kind": "user",
        "category": "examples_feedback",
        "scope": "case",
        "case_id": "manual-library-contract",
        "text": json.dumps(entry),
    }
    r = bench.call("put_context_source", path={"id": system_id}, body={"expected_version": version, "source": case})
    check("put_context_source", r)
    listed = bench.call("list_test_library", path={"id": system_id}).json()["items"]
    if r.status_code != 200 or "manual-library-contract" not in {e["source_id"] for e in listed}:
        raise Drift("C-68.2", "GET test-library", f"a golden case put as a source is not listed ({r.status_code})")
    bad = {**case, "text": json.dumps({**entry, "component_id": 987654321})}
    r2 = bench.call("put_context_source", path={"id": system_id}, body={"expected_version": version + 1, "source": bad})
    check("put_context_source", r2)
    if r2.status_code < 400:
        raise Drift(BY_ID["C-43"], "PUT context/sources", "a case with a foreign component_id was accepted")
    paused = {**case, "text": json.dumps({**entry, "enabled": False})}
    bench.call("put_context_source", path={"id": system_id}, body={"expected_version": version + 1, "source": paused})
    lib = {e["source_id"]: e for e in bench.call("list_test_library", path={"id": system_id}).json()["items"]}
    if lib.get("manual-library-contract", {}).get("enabled") is not False:
        raise Drift(BY_ID["C-38"], "GET test-library", "enabled: false did not pause the case")
    listed = lib["manual-library-contract"]
    # C-40: listed as a case with the component and input it was written with (C-38 pauses, C-44 keeps expected)
    got = (listed.get("type"), *(listed["entry"].get(k) for k in ("type", "component_id", "input")))
    if got != ("case", "case", component_id, "hi"):
        raise Drift(BY_ID["C-40"], "GET test-library", f"the case entry reads back as {listed}")
    if lib["manual-library-contract"]["entry"]["expected"] != {"greeting": True}:
        raise Drift(BY_ID["C-44"], "GET test-library", "the structured expected value changed")
