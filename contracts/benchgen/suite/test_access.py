"""Scopes per operation and the revocation window (B-17, B-28, B-32, B-43…B-48).

The API has no token operations (B-42, B-47): tokens come from the web app. On the mock
the scope checks mint their tokens through the control surface; on a deployment they use
the narrower tokens its operator gives (`BENCHGEN_TOKEN_READ`, `BENCHGEN_TOKEN_RUN`,
`BENCHGEN_TOKEN_NOSCOPE`; the mock prints its own) and, since a holder of benchmark:run
queues a run, --allow-spend. Revocation needs the control surface's revoke and clock.
"""

from __future__ import annotations

import pytest

from ..exchange import Control, Exchange
from ..world import World
from .conftest import REVOCATION_SECONDS

READ, RUN = "benchmark:read", "benchmark:run"
ROLES = {"read": [READ], "run": [RUN], "noscope": []}


# each operation, the scope it needs, and the claim its refusal without that scope states
SCOPED_CALLS = (
    (RUN, "registerForCompetition", "B-17"),  # join needs benchmark:run
    (RUN, "queueBenchmarkRun", "B-28"),  # a token without benchmark:run gets 403
    (READ, "getRunStatus", "B-32.2"),  # run_status needs benchmark:read
    (READ, "getItemResults", "B-44"),  # a request outside the token's scopes is refused
    (READ, "listUserLlmModels", "B-44"),
)


def check_operation_scopes(exchange: Exchange, place: World, token: str, scopes: list[str], second: int, joined):
    """A token carrying `scopes` on every scoped operation: accepted where it holds the operation's scope (B-43),
    else 403 permission_denied (B-17 join, B-28 queue, B-32.2 run_status, B-44 the other reads) naming the one
    missing scope, benchmark:read or benchmark:run (B-45). `second`: a benchmark to join (`joined`: the statuses
    a holder of benchmark:run may get there)."""
    sid = place.queue(exchange)
    place.finish(exchange, sid)
    args = {
        "registerForCompetition": {"path": {"id": second}},
        "queueBenchmarkRun": {"body": {"competition_id": place.competition, "model_id": place.model_id}},
        "getRunStatus": {"path": {"submission_id": sid}},
        "getItemResults": {"path": {"submission_id": sid}},
        "listUserLlmModels": {},
    }
    accepted = {"registerForCompetition": joined, "queueBenchmarkRun": {201}}
    for scope, operation_id, refusal in SCOPED_CALLS:
        answer = exchange.call(operation_id, token=token, **args[operation_id])
        if scope in scopes:
            exchange.expect(answer, "B-43", accepted.get(operation_id, {200}))
        else:
            exchange.expect(answer, refusal, 403, "permission_denied")
            if answer.body["required_scopes"] != [scope]:
                raise exchange.fail("B-45", answer, f"403 names {answer.body['required_scopes']}, not [{scope!r}]")


@pytest.mark.parametrize("role", list(ROLES))
def test_each_operation_asks_for_its_scope(target, http, exchange, world, role):
    """B-17, B-28, B-32.2, B-43, B-44, B-45: run for join and queue, read for status, results and models (the scopes
    benchmark:run and benchmark:read, named in each 403's required_scopes); 403 otherwise."""
    scopes = ROLES[role]
    place = world(name="Contract scopes")
    if target.embedded:
        control = Control(http)
        _, token = control.token(place.user, scopes)
        second = control.competition("Contract scopes 2", True)
        joined = {200, 201}
    else:
        token = target.tokens.get(role)
        if not token:
            pytest.skip(target.missing_role(role))
        second, joined = place.competition, {201, 400}  # joined already: a holder of the scope is not refused
    exchange.secrets.add(token)
    check_operation_scopes(exchange, place, token, scopes, second, joined)


def test_revoked_token_works_until_the_window_ends(control, exchange):
    """B-48: revoked at T, still accepted just before T + 60 s, refused from T + 60 s on, and after."""
    user = control.user(0)
    token_id, token = control.token(user, [READ])
    exchange.secrets.add(token)
    exchange.expect(exchange.call("listUserLlmModels", token=token), "B-43", 200)
    control.revoke(token_id)
    control.advance(REVOCATION_SECONDS - 1)
    exchange.expect(exchange.call("listUserLlmModels", token=token), "B-48.1", 200)
    control.advance(1)
    exchange.expect(exchange.call("listUserLlmModels", token=token), "B-48.2", 401, "authentication_failed")
    control.advance(REVOCATION_SECONDS * 10)
    exchange.expect(exchange.call("listUserLlmModels", token=token), "B-48.2", 401, "authentication_failed")


def test_a_revocation_holds_on_every_operation(control, exchange):
    """B-48.3: platform-wide: once the window has passed, every operation refuses the revoked token
    (401 authentication_failed), whatever scope it asks for, and the public listing does not serve it
    as anonymous either."""
    place = World.on_mock(control, exchange, name="Contract revocation")
    token_id, token = control.token(place.user, [READ, RUN])
    exchange.secrets.add(token)
    sid = place.queue(exchange)
    place.finish(exchange, sid)
    control.revoke(token_id)
    control.advance(REVOCATION_SECONDS)
    second = control.competition("Contract revocation 2", True)
    calls = [
        ("listPublicCompetitions", {}),
        ("registerForCompetition", {"path": {"id": second}}),
        ("queueBenchmarkRun", {"body": {"competition_id": place.competition, "model_id": place.model_id}}),
        ("getRunStatus", {"path": {"submission_id": sid}}),
        ("getItemResults", {"path": {"submission_id": sid}}),
        ("listUserLlmModels", {}),
    ]
    for operation_id, args in calls:
        answer = exchange.call(operation_id, token=token, **args)
        exchange.expect(answer, "B-48.3", 401, "authentication_failed")
