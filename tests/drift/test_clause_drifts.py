"""A drift per asserted clause (issue: every clause of every claim asserted, proven by a drift per
clause). What the suite asserts is read from its checks (`harness-contract --clauses`: the clause
ids and one-clause claims they cite, nothing sent); what the catalogue proves is read from the drift
tests' ids (`kind:clause:name`, a test that asserts its drift is caught under that id). Every asserted
clause must be named by at least one drift: a clause a check asserts but no drift breaks is declared,
not proven. A drift naming a split claim (`B-48` rather than `B-48.2`) proves none of its clauses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from contracts.apis import CONTRACT_APIS
from contracts.runner.coverage import reference

ROOT = Path(__file__).resolve().parents[2]
# the drift tests that assert a drift is caught under the id it carries
CAUGHT = re.compile(r"::test_[a-z_]*caught[a-z_]*\[(?P<id>[^\]]+)\]")
TOKEN = re.compile(r"§\d+[a-z]?(?:\.\d+)*(?:#\d+)?|\b[A-Z]-\d{2,3}(?:\.\d+)?\b|\b[a-z_]+\.[a-z_]+\b")


@cache
def catalogue() -> list[str]:
    """The ids of every drift test that asserts its drift is caught."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/drift"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ids = [m.group("id") for m in CAUGHT.finditer(out)]
    return [i.replace("\\xa7", "§") for i in ids]


def proven(api: str) -> dict[str, list[str]]:
    """Clause id -> the drifts that break it, through the ids the drift tests carry."""
    ref = reference(api)
    out: dict[str, list[str]] = {}
    for drift in catalogue():
        tokens = TOKEN.findall(drift)
        clauses = set(ref.clause_ids(tokens))
        for claim in ref.resolve(tokens):
            if claim not in ref.clauses:  # a claim stated as one clause
                clauses.add(claim + ("#1" if claim.startswith("§") else ".1"))
        for clause in clauses:
            out.setdefault(clause, []).append(drift)
    return out


@cache
def asserted(api: str, tmp: str) -> list[str]:
    """The clauses the API's checks assert, from `harness-contract --clauses`."""
    subprocess.run(
        [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--clauses", "--report-dir", tmp],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads((Path(tmp) / "clauses.json").read_text(encoding="utf-8"))["clauses"]
    return [row["id"] for row in rows if row["state"] == "asserted"]


@pytest.mark.parametrize("api", list(CONTRACT_APIS))
def test_every_asserted_clause_has_a_drift_that_breaks_it(api, tmp_path):
    clauses = asserted(api, str(tmp_path))
    assert clauses, f"{api}: the suite asserts no clause"
    found = proven(api)
    missing = [c for c in clauses if c not in found]
    assert not missing, f"{api}: {len(missing)} of {len(clauses)} asserted clauses have no drift: {' '.join(missing)}"


def test_a_drift_naming_a_split_claim_proves_none_of_its_clauses():
    """B-48 is split into clauses: only a drift id naming `B-48.n` proves that clause."""
    ref = reference("benchgen")
    assert "B-48" in ref.clauses
    tokens = TOKEN.findall("access:B-48:revoked-token-served")
    assert not ref.clause_ids(tokens)
    assert TOKEN.findall("access:B-48.2:revoked-token-served") == ["B-48.2"]
