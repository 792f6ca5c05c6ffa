"""§3.8 concurrency tokens: weak ETags on mutable GETs; `If-Match` enforced where
the spec marks it (`x-if-match: enforced`), read and ignored where it says so.

The race machine holds several ETags of one run and writes with them in any order:
only the latest may win, a stale one is `412 precondition_failed` carrying the
current ETag, and `*` always matches. Writes set `visibility` to the value the run
already has, so nothing changes on a live account.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from contracts.benchwright.conventions import WEAK_ETAG
from contracts.benchwright.suite._support import code_of, expect, finished_run
from contracts.benchwright.suite.conftest import require

OP = "PATCH /v1/runs/{id}"


def test_etag_races_and_lost_updates(client, target, policy):
    require(policy, "patchRun")
    run_id = finished_run(client, target)
    if run_id is None:
        pytest.skip("no finished run of this account to write to")
    url = f"/v1/runs/{run_id}"

    class Races(RuleBasedStateMachine):
        tags = Bundle("tags")

        @initialize(target=tags)
        def read(self):
            response = client.get(url)
            self.visibility = response.json()["visibility"]
            self.current = response.headers.get("ETag")
            expect(self.current is not None, "etag.weak", "GET /v1/runs/{id}", "no ETag on a mutable GET", response)
            return self.current

        @rule(target=tags)
        def reread(self):
            response = client.get(url)
            expect(
                response.headers.get("ETag") == self.current,
                "etag.if_match",
                "GET /v1/runs/{id}",
                "the ETag moved without a write",
                response,
            )
            return self.current

        @rule(target=tags, tag=tags)
        def write(self, tag):
            response = client.patch(url, json={"visibility": self.visibility}, headers={"If-Match": tag})
            if tag == self.current:
                expect(
                    response.status_code == 200,
                    "etag.if_match",
                    OP,
                    f"the current ETag was refused ({response.status_code})",
                    response,
                )
                new = response.headers.get("ETag") or client.get(url).headers.get("ETag")
                expect(new != tag, "etag.if_match", OP, "a successful write did not move the ETag", response)
                self.current = new
            else:
                expect(
                    response.status_code == 412 and code_of(response) == "precondition_failed",
                    "etag.if_match",
                    OP,
                    f"a stale ETag answered {response.status_code} {code_of(response)}",
                    response,
                )
                expect(
                    response.headers.get("ETag") == self.current,
                    "etag.if_match",
                    OP,
                    "the 412 does not carry the current ETag",
                    response,
                )
            return self.current

        @rule(target=tags, weak=st.booleans())
        def star(self, weak):
            response = client.patch(url, json={"visibility": self.visibility}, headers={"If-Match": "*"})
            expect(
                response.status_code == 200,
                "etag.if_match",
                OP,
                f"If-Match: * answered {response.status_code}",
                response,
            )
            self.current = response.headers.get("ETag") or client.get(url).headers.get("ETag")
            return self.current

        @invariant()
        def shape(self):
            expect(
                bool(WEAK_ETAG.match(self.current or "")),
                "etag.weak",
                "GET /v1/runs/{id}",
                f'ETag {self.current!r} is not weak W/"<id>:<ms>"',
            )

    run_state_machine_as_test(Races)


def test_ignored_if_match_routes_accept_stale_tags(client, policy):
    """§3.8: secrets accept If-Match permissively; a stale tag still writes."""
    require(policy, "patchSecret")
    secrets = (client.get("/v1/secrets").json() or {}).get("data") or []
    if not secrets:
        pytest.skip("no secret to relabel")
    secret = secrets[0]
    response = client.patch(
        f"/v1/secrets/{secret['id']}",
        json={"description": secret.get("description") or ""},
        headers={"If-Match": 'W/"stale:1"'},
    )
    expect(
        response.status_code == 200,
        "etag.ignored",
        "PATCH /v1/secrets/{id}",
        f"a stale If-Match on an ignoring route answered {response.status_code}",
        response,
    )
