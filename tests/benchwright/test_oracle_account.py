"""Differential mode against an account with raised ceilings (§13): `PATCH /__mock/users/{id}` replaces an
account's `quota_overrides`, and `contracts.benchwright.oracle_account.align` gives each oracle's account the
target account's read and write limits before the session (docs/differential.md)."""

from __future__ import annotations

from contracts.benchwright.oracle_account import align
from contracts.runner.differential.oracle import Oracle
from contracts.runner.target import LiveServer
from mock_server.apis import profile
from mock_server.app import create_app


def test_an_accounts_ceilings_are_replaced_through_the_control_surface(api):
    """§13: the admin-raised ceilings show in `GET /v1/users/me/rate-limits` and the `X-RateLimit-Limit` header."""
    me = api.get("/v1/users/me/rate-limits").json()
    raised = api.http.patch(
        f"/__mock/users/{me['user_id']}", json={"quota_overrides": {"read_rpm": 5000, "write_rpm": 700}}
    )
    assert raised.status_code == 200, raised.text
    assert raised.json()["quota_overrides"] == {"read_rpm": 5000, "write_rpm": 700}
    after = api.get("/v1/users/me/rate-limits")
    assert (after.json()["read"]["limit"], after.json()["write"]["limit"]) == (5000, 700)
    assert after.headers["X-RateLimit-Limit"] == "5000"


def test_a_bad_ceiling_change_is_refused_in_the_apis_format(api):
    me = api.get("/v1/users/me/rate-limits").json()
    for body in [
        {},
        {"quota_overrides": {"read_rpm": -1}},
        {"quota_overrides": {"reads": 3}},
        {"quota_overrides": True},
    ]:
        answer = api.http.patch(f"/__mock/users/{me['user_id']}", json=body)
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_argument", (body, answer.text)
    missing = api.http.patch("/__mock/users/nobody", json={"quota_overrides": {}})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_the_oracles_account_takes_the_targets_limits():
    """A staging account whose quotas an admin raised: before the session, the oracle's account is given the
    same read and write limits (else the oracle throttles what the target lets through: `429` beside `200`,
    and every `X-RateLimit-Limit` reads as drift); an account at the tier's defaults leaves the oracle as it is."""
    target = create_app(api="benchwright", **{**profile("benchwright").serve_options, "control": False})
    owner = target.state.mock.store.users[target.state.mock.store.default_user_id]
    owner.quota_overrides = {"read_rpm": 10**6, "write_rpm": 10**5}
    credentials = dict(profile("benchwright").ready_credentials(target.state.api))
    oracle = Oracle("benchwright").start()
    try:
        auth = {"Authorization": f"Bearer {oracle.credentials['BW_PAT']}"}
        before = oracle.client.get("/v1/users/me/rate-limits", headers=auth).json()
        with LiveServer(target) as server:
            align(server.url, credentials, [oracle])
        after = oracle.client.get("/v1/users/me/rate-limits", headers=auth).json()
        assert (after["read"]["limit"], after["write"]["limit"]) == (10**6, 10**5)
        assert before["read"]["limit"] != 10**6  # it was the tier's default
        owner.quota_overrides = {}
        fresh = Oracle("benchwright").start()
        try:
            with LiveServer(target) as server:
                align(server.url, credentials, [fresh])
            user = fresh.client.get(
                "/v1/users/me/rate-limits", headers={"Authorization": f"Bearer {fresh.credentials['BW_PAT']}"}
            )
            assert user.json()["read"]["limit"] == before["read"]["limit"]
        finally:
            fresh.close()
    finally:
        oracle.close()
