"""Scopes per operation and the revocation window (B-17, B-28, B-32, B-43…B-48).

These mint and revoke tokens and move the clock, which only the embedded mock's control
surface can do: the API itself has no token operations (B-42, B-47). Against a live
target they are skipped.
"""

from __future__ import annotations

import pytest

from .conftest import REVOCATION_SECONDS

READ, RUN = "benchmark:read", "benchmark:run"


def _world(control, exchange, scopes):
    """A user with credits, joined to a fresh auto-approving competition, with a finished run; a token of
    `scopes` (and its id)."""
    user = control.user(100)
    _, full = control.token(user, [READ, RUN])
    scoped_id, scoped = control.token(user, scopes)
    exchange.secrets.update({full, scoped})
    cid = control.competition("Contract scopes", True)
    exchange.expect(exchange.call("registerForCompetition", token=full, path={"id": cid}), "B-11", 201)
    models = exchange.call("listUserLlmModels", token=full).body["results"]
    queued = exchange.call("queueBenchmarkRun", token=full, body={"competition_id": cid, "model_id": models[0]["id"]})
    exchange.expect(queued, "B-26", 201)
    control.advance(3600)
    return cid, queued.body["submission_id"], models[0]["id"], scoped, scoped_id


@pytest.mark.parametrize("scopes", [[READ], [RUN], []])
def test_each_operation_asks_for_its_scope(control, exchange, scopes):
    """B-17, B-28, B-32, B-44, B-45: run for join and queue, read for status, results and models (the scopes
    benchmark:run and benchmark:read, named in each 403's required_scopes); 403 otherwise."""
    cid, sid, model_id, token, _ = _world(control, exchange, scopes)
    second = control.competition("Contract scopes 2", True)
    calls = [
        (RUN, "registerForCompetition", {"path": {"id": second}}),
        (RUN, "queueBenchmarkRun", {"body": {"competition_id": cid, "model_id": model_id}}),
        (READ, "getRunStatus", {"path": {"submission_id": sid}}),
        (READ, "getItemResults", {"path": {"submission_id": sid}}),
        (READ, "listUserLlmModels", {}),
    ]
    for scope, operation_id, args in calls:
        answer = exchange.call(operation_id, token=token, **args)
        if scope in scopes:
            exchange.expect(answer, "B-43", {200, 201})
        else:
            exchange.expect(answer, "B-44", 403, "permission_denied")
            if answer.body["required_scopes"] != [scope]:
                raise exchange.fail("B-44", answer, f"403 names {answer.body['required_scopes']}, not [{scope!r}]")


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
    cid, sid, model_id, token, token_id = _world(control, exchange, [READ, RUN])
    control.revoke(token_id)
    control.advance(REVOCATION_SECONDS)
    second = control.competition("Contract revocation", True)
    calls = [
        ("listPublicCompetitions", {}),
        ("registerForCompetition", {"path": {"id": second}}),
        ("queueBenchmarkRun", {"body": {"competition_id": cid, "model_id": model_id}}),
        ("getRunStatus", {"path": {"submission_id": sid}}),
        ("getItemResults", {"path": {"submission_id": sid}}),
        ("listUserLlmModels", {}),
    ]
    for operation_id, args in calls:
        answer = exchange.call(operation_id, token=token, **args)
        exchange.expect(answer, "B-48.3", 401, "authentication_failed")
