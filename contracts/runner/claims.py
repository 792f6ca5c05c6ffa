"""Claims and drift: what a failing check reports.

Every check names the reference claim it verifies (`Claim(id, section, text)`);
a failure raises `Drift(claim, operation, detail, curl)` and the drift report
files it under that claim. A claim is made of clauses (`Clause`: each statement a
server could break alone); a check that asserts one cites its id (`A-96.2`, `§2.4#1`),
and a `Drift` raised under a clause id is filed under the clause's claim. Each API
registers its claims (`register`); the `spec.*` claims below are every API's: what
schemathesis' built-in checks verify against the spec itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    id: str
    section: str
    text: str

    @property
    def title(self) -> str:
        return f"{self.section} {self.text}"


# `A-96.2`, `B-48.1`, `§2.4#1`: a claim id, then the clause's number (after `#` for a section)
CLAUSE_ID = re.compile(r"(?P<claim>[A-Z]-\d{2,3}(?=\.)|§\d+[a-z]?(?:\.\d+)*(?=#))[.#](?P<n>\d+)")


@dataclass(frozen=True)
class Clause:
    """One statement of a claim that a server could break alone (a value, a unit, an order, a
    filter, a bound, a state, an exception, who may call it).

    `via`: the suite's own claim ids whose checks assert exactly this clause (Benchwright's
    `auth.revoked` is `§2.4#2`). `checkable=False` with a `reason` for what no HTTP exchange
    can show."""

    id: str
    text: str
    via: tuple[str, ...] = ()
    checkable: bool = True
    reason: str = ""

    @property
    def claim(self) -> str:
        found = CLAUSE_ID.fullmatch(self.id)
        if found is None:
            raise ValueError(f"{self.id!r} is not a clause id (claim id, then .N or #N)")
        return found.group("claim")


def clause_claim(cited: str) -> str | None:
    """The claim a clause id belongs to (`A-96.2` -> `A-96`), else None."""
    found = CLAUSE_ID.fullmatch(cited)
    return found.group("claim") if found else None


SPEC_CLAIMS = [
    Claim("spec.status", "spec", "every response status is documented for the operation"),
    Claim("spec.schema", "spec", "response bodies match the spec's schema"),
    Claim("spec.headers", "spec", "documented required response headers are present"),
    Claim("spec.content_type", "spec", "responses use a documented content type"),
    Claim("spec.server_error", "spec", "no request makes the server fail with a 5xx"),
    Claim("spec.negative", "spec", "schema-invalid requests are rejected with a 4xx"),
    Claim("spec.positive", "spec", "schema-valid requests are not rejected as malformed"),
    Claim("spec.errors", "spec", "every 4xx carries a code the spec documents for the operation, in the API's format"),
    Claim("spec.other", "spec", "other schemathesis conformance checks"),
    Claim("stateful.links", "spec", "operations chained through the spec's links behave consistently"),
]

# schemathesis check names -> claims
SCHEMATHESIS = {
    "status_code_conformance": "spec.status",
    "response_schema_conformance": "spec.schema",
    "response_headers_conformance": "spec.headers",
    "content_type_conformance": "spec.content_type",
    "not_a_server_error": "spec.server_error",
    "negative_data_rejection": "spec.negative",
    "positive_data_acceptance": "spec.positive",
}

CLAIMS: dict[str, Claim] = {claim.id: claim for claim in SPEC_CLAIMS}


def register(claims: Iterable[Claim]) -> None:
    for claim in claims:
        CLAIMS[claim.id] = claim


def claim_of(claim: str | Claim) -> Claim:
    if isinstance(claim, Claim):
        return CLAIMS.setdefault(claim.id, claim)
    parent = clause_claim(claim)
    if claim not in CLAIMS and parent is not None:
        return CLAIMS.get(parent) or Claim(parent, "?", parent)
    return CLAIMS.get(claim) or Claim(claim, "?", claim)


class Drift(AssertionError):
    """A violated claim, with what reproduces it; `clause` when a clause id was named."""

    def __init__(self, claim: str | Claim, operation: str, detail: str, curl: str = "") -> None:
        self.clause = claim if isinstance(claim, str) and clause_claim(claim) else None
        self.claim = claim_of(claim)
        self.operation = operation
        self.detail = f"clause {self.clause}: {detail}" if self.clause else detail
        self.curl = curl
        super().__init__(
            f"[{self.claim.id}] {self.claim.title}\n{operation}: {self.detail}" + (f"\n{curl}" if curl else "")
        )
