"""Stateless and links conformance of the API this run checks (`HARNESS_CONTRACT_API`),
built from its spec alone (see `contracts.runner.conformance`)."""

from __future__ import annotations

import os

from contracts.apis import contract
from contracts.runner.conformance import Conformance
from mock_server.apis import bundle

SPEC = contract(os.environ.get("HARNESS_CONTRACT_API", ""))
CONFORMANCE = Conformance(
    bundle(SPEC.mock or SPEC.name),
    SPEC.credentials,
    checks=SPEC.checks,
    exclude=SPEC.conformance_exclude,
)

test_spec_conformance = CONFORMANCE.stateless()
test_links_state_machine = CONFORMANCE.links()
