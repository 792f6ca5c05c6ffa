"""The differential engine's parts on hand-made answers: pairing of made-up values, the comparison's
rules (types, values, unpaired rows, timestamps by order and difference), volatility learned from a
shadow oracle or declared with `x-volatile`, and lifecycles compared as sequences (docs/differential.md).
Each case names the reference behaviour it rests on."""

from __future__ import annotations

from contracts.runner.differential.compare import Comparison
from contracts.runner.differential.lifecycle import Lifecycles
from contracts.runner.differential.pairing import Pairing
from contracts.runner.differential.volatile import Volatile, declared_paths

TARGET, ORACLE = "http://target.test", "http://127.0.0.1:9"


def never(_path) -> bool:
    return False


def test_created_ids_pair_and_later_requests_are_rewritten():
    """A create's answer pairs the ids each side made up (body and `Location`), and a later request
    naming the target's id reaches the oracle with the oracle's (C-24: an id read back resolves)."""
    pairing = Pairing(TARGET, ORACLE)
    assert pairing.learn({"system": {"id": 201, "name": "x"}}, {"system": {"id": 7, "name": "x"}}, eligible=True) == []
    pairing.learn_location(f"{TARGET}/api/runs/run_abc", f"{ORACLE}/api/runs/run_xyz")
    assert pairing.path_to_oracle("/api/ai-systems/201/context") == "/api/ai-systems/7/context"
    assert pairing.path_to_oracle("/api/runs/run_abc") == "/api/runs/run_xyz"
    assert pairing.query_to_oracle("system_id=201&limit=5") == "system_id=7&limit=5"
    assert pairing.to_oracle({"system_id": 201, "ids": ["201"], "n": 3}) == {"system_id": 7, "ids": ["7"], "n": 3}
    assert pairing.to_target({"links": {"self": f"{ORACLE}/api/runs/run_xyz"}}) == {
        "links": {"self": f"{TARGET}/api/runs/run_abc"}
    }


def test_existing_rows_of_the_target_are_unpaired_not_drift():
    """Rows the target held before the session (a read of a list, nothing created) stay unpaired:
    counted, never compared; a row of the session missing on one side is drift (C-25: listed ids resolve)."""
    pairing = Pairing(TARGET, ORACLE)
    pairing.learn({"id": "mine"}, {"id": "theirs"}, eligible=True)
    target = {"items": [{"id": "old-1"}, {"id": "mine", "name": "a"}], "total": 2}
    oracle = {"items": [{"id": "seed-9"}, {"id": "theirs", "name": "a"}], "total": 2}
    assert pairing.learn(target, oracle, eligible=False) == ["old-1"]
    result = Comparison(never, pairing.known).run(target, pairing.to_target(oracle))
    assert result.diffs == [] and result.unpaired == 2
    dropped = {"items": [{"id": "old-1"}], "total": 1}
    result = Comparison(never, pairing.known).run(dropped, pairing.to_target(oracle))
    assert [(d.kind, d.path) for d in result.diffs] == [("presence", ("items", "*", "mine")), ("value", ("total",))]


def test_fields_types_and_values_are_compared():
    """The same fields with the same types and values (C-53: the error object's code is part of the contract)."""
    target = {"error": {"code": "teapot", "message": "no", "reference": 5}}
    oracle = {"error": {"code": "not_found", "message": "other words", "reference": "ref_1", "hint": "x"}}
    kinds = {(d.kind, d.where) for d in Comparison(never, lambda v: False, error=True).run(target, oracle).diffs}
    assert kinds == {("value", "error/code"), ("type", "error/reference"), ("missing", "error/hint")}


def test_timestamps_compare_by_order_and_difference():
    """Timestamps are not compared by value: their order and the interval between them are (§3.2: RFC 3339)."""
    target = {"created_at": "2026-04-23T14:00:05Z", "expires_at": "2026-04-23T15:00:05Z"}
    shifted = {"created_at": "2026-04-23T14:00:00Z", "expires_at": "2026-04-23T15:00:00Z"}
    assert Comparison(never, lambda v: False).run(target, shifted).diffs == []
    wrong_ttl = {"created_at": "2026-04-23T14:00:00Z", "expires_at": "2026-04-24T14:00:00Z"}
    [diff] = Comparison(never, lambda v: False).run(target, wrong_ttl).diffs
    assert diff.kind == "timestamp" and diff.where == "created_at..expires_at"


def test_volatility_is_learned_from_two_oracles_and_declared_in_the_spec():
    """A field that differs between two fresh oracles is volatile; presence is still compared; the spec
    marks one with `x-volatile` (a property, or an operation's list of paths)."""
    volatile = Volatile({})
    first, second = {"score": 3, "n": 1}, {"score": 4, "n": 1}
    volatile.learn("GET /x 200", Comparison(never, lambda v: False).run(first, second).diffs)
    check = volatile.checker("GET /x 200", None)
    assert check(("score",)) and not check(("n",)) and not check(("score", "#field"))
    doc = {"components": {"schemas": {"Row": {"properties": {"score": {"type": "number", "x-volatile": True}}}}}}
    op = {
        "x-volatile": ["meta/took_ms"],
        "responses": {"200": {"content": {"application/json": {"schema": {
            "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}}}}}}}},
    }  # fmt: skip
    assert declared_paths(doc, op) == {("meta", "took_ms"), ("data", "*", "score")}


def test_lifecycles_compare_sequences_not_snapshots():
    """A run observed at different moments on each side is not drift; a state the oracle never shows,
    or a move against the documented order, is (C-63: an evaluation moves queued → running → completed)."""
    lifecycles = Lifecycles()
    for t, o in (("queued", "queued"), ("queued", "running"), ("running", "completed"), ("completed", "completed")):
        lifecycles.observe("GET /runs/{id}", ("status",), "r1", t, o)
    assert lifecycles.verdicts() == []
    lifecycles.observe("GET /runs/{id}", ("status",), "r2", "finished", "completed")
    lifecycles.observe("GET /runs/{id}", ("status",), "r3", "completed", "queued")
    lifecycles.observe("GET /runs/{id}", ("status",), "r3", "queued", "completed")
    assert {v.resource: v.detail.split(" ")[0] for v in lifecycles.verdicts()} == {"r2": "state(s)", "r3": "states"}
