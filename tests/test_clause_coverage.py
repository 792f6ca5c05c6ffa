"""Clause coverage (issue: every clause of every claim asserted): the clauses are data beside the
claims, a check asserts a clause by citing it, and the report counts clauses asserted, exercised
and untouched per API, listing each clause not asserted with its reason."""

from __future__ import annotations

import pytest

from contracts.apis import CONTRACT_APIS
from contracts.runner.claims import Clause, Drift, clause_claim
from contracts.runner.coverage import Coverage, reference


@pytest.mark.parametrize("api", list(CONTRACT_APIS))
def test_every_clause_names_a_claim_of_its_reference_once(api):
    """Each API's clauses load, belong to a claim of its reference and are unique."""
    ref = reference(api)
    ids = [c.id for clauses in ref.clauses.values() for c in clauses]
    assert ids, f"{api} splits no claim into clauses"
    assert len(ids) == len(set(ids)), f"{api}: a clause id is listed twice"
    for claim, clauses in ref.clauses.items():
        assert claim in ref.claims or claim in ref.uncheckable
        assert all(c.claim == claim for c in clauses)


def test_a_clause_id_names_its_claim():
    assert clause_claim("A-96.2") == "A-96" and clause_claim("§2.4#3") == "§2.4"
    assert clause_claim("A-96") is None and clause_claim("§2.4") is None
    with pytest.raises(ValueError):
        _ = Clause("A-96", "no clause number").claim


def test_a_drift_under_a_clause_is_filed_under_its_claim():
    drift = Drift("B-48.3", "getRunStatus", "a revoked token was served")
    assert drift.claim.id == "B-48" and drift.clause == "B-48.3"
    assert "clause B-48.3" in drift.detail and "[B-48]" in str(drift)
    assert Drift("B-48", "getRunStatus", "x").clause is None


def _coverage(cited: dict[str, list[str]]) -> Coverage:
    """BenchGen's coverage as if the named checks had cited those ids."""
    coverage = Coverage("benchgen")
    assert coverage.reference is not None
    for test, ids in cited.items():
        coverage.by_test[test] = coverage.reference.resolve(ids)
        coverage.clauses_by_test[test] = coverage.reference.clause_ids(ids)
    return coverage


def test_citing_a_split_claim_asserts_none_of_its_clauses():
    """B-48 is split: a check citing `B-48` only exercises its clauses; one citing `B-48.3` asserts that one."""
    rows = {c.id: state for c, state, _, _ in _coverage({"t": ["B-48"]}).clause_coverage().rows}
    assert {rows["B-48.1"], rows["B-48.2"], rows["B-48.3"]} == {"exercised"}
    rows = {c.id: state for c, state, _, _ in _coverage({"t": ["B-48.3"]}).clause_coverage().rows}
    assert rows["B-48.3"] == "asserted" and rows["B-48.1"] == "exercised"


def test_a_claim_not_split_is_one_clause_and_uncheckable_ones_carry_a_reason():
    coverage = _coverage({"t": ["B-33"]}).clause_coverage()
    rows = {c.id: (state, reason, checkable) for c, state, reason, checkable in coverage.rows}
    assert rows["B-33.1"][0] == "asserted"
    assert rows["B-34.1"] == ("untouched", "no check asserts it", True)
    state, reason, checkable = rows["B-51.1"]
    assert state == "untouched" and reason and checkable is False
    assert coverage.checkable == sum(1 for *_, c in coverage.rows if c)


def test_the_report_states_the_counts_and_lists_every_clause_not_asserted():
    coverage = _coverage({"t": ["B-33", "B-48.3"]})
    text = "\n".join(coverage.render())
    assert "## Clause coverage" in text and "| benchgen |" in text
    table = coverage.clause_coverage()
    for clause, state, reason, _ in table.rows:
        if state != "asserted":
            assert f"| `{clause.id}` | {state} | {reason} |" in text
    asserted = table.count("asserted")
    assert f"| {asserted} |" in text and f"{table.percentage():.0f}%" in text
