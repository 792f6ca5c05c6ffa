"""The crawl of the target's existing data (`contracts.runner.crawl`), for the API this run checks:
every answer a client meets walking list -> detail -> children -> content is checked against the
spec (`spec.*`) and the API's conventions; no answer carries a credential value (non-disclosure)."""

from __future__ import annotations

import os

import pytest

from contracts.runner.claims import Drift
from contracts.runner.crawl import NON_DISCLOSURE, covered, for_session
from contracts.runner.session import current

API = os.environ.get("HARNESS_CONTRACT_API", "")


@pytest.mark.claim(
    "spec.status", "spec.schema", "spec.headers", "spec.content_type", "spec.server_error", NON_DISCLOSURE
)
def test_crawl_existing_data(record_property):
    session = current(API or None)
    crawl = for_session(session.api, session)
    drifts = crawl.run()
    record_property("crawl_requests", len(crawl.visits))
    if crawl.stopped:
        record_property("crawl_stopped", crawl.stopped)
    asserted, exercised = covered(crawl)
    record_property("covers", " ".join(asserted))
    record_property("exercises", " ".join(exercised))
    if not crawl.visits:
        raise Drift("spec.status", "crawl", "no list operation answered: nothing could be read")
    if drifts:
        raise ExceptionGroup(f"the crawl found {len(drifts)} drift(s) in {len(crawl.visits)} reads", drifts)
