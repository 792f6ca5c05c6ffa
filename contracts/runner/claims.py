"""Claims and drift: what a failing check reports.

Every check names the reference claim it verifies (`Claim(id, section, text)`);
a failure raises `Drift(claim, operation, detail, curl)` and the drift report
files it under that claim. Each API registers its claims (`register`); the
`spec.*` claims below are every API's: what schemathesis' built-in checks
verify against the spec itself.
"""

from __future__ import annotations

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
    return CLAIMS.get(claim) or Claim(claim, "?", claim)


class Drift(AssertionError):
    """A violated claim, with what reproduces it."""

    def __init__(self, claim: str | Claim, operation: str, detail: str, curl: str = "") -> None:
        self.claim = claim_of(claim)
        self.operation = operation
        self.detail = detail
        self.curl = curl
        super().__init__(f"[{self.claim.id}] {self.claim.title}\n{operation}: {detail}" + (f"\n{curl}" if curl else ""))
