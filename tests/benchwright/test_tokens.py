"""§2.1/§2.4 token lifecycle: identity, list, mint, spend caps, expiry, rotate, revoke."""

from __future__ import annotations

import pytest

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.spec_data import all_scopes

SCOPES = ["runs:read", "runs:write", "artifacts:read"]


@pytest.fixture
def session(api):
    return api.as_session()


def mint(session, **body):
    response = session.post("/v1/tokens", json={"label": "ci", "scopes": SCOPES, **body})
    assert response.status_code == 201, response.text
    return response.json()


def bearer(api, secret):
    return api.anonymous().with_headers({"Authorization": f"Bearer {secret}"})


def listed(client, token_id):
    rows = [row for row in client.get("/v1/tokens").json()["data"] if row["id"] == token_id]
    return rows[0] if rows else None


# -- GET /v1/tokens/me ------------------------------------------------------------


def test_2_4_me_for_a_pat_names_its_own_scopes(api):
    body = api.as_token(["runs:read", "billing:read"]).get("/v1/tokens/me").json()
    assert body["auth_type"] == "pat"
    assert body["full_access"] is False
    assert body["scopes"] == ["runs:read", "billing:read"]
    assert body["email"] == "dev@example.test"
    assert body["role"] == "user"


def test_2_4_me_for_a_session_is_full_access_with_every_scope(api, session):
    body = session.get("/v1/tokens/me").json()
    assert body["auth_type"] == "session"
    assert body["full_access"] is True
    assert set(body["scopes"]) == set(all_scopes(api.mock))


# -- create -------------------------------------------------------------------------


def test_2_4_create_returns_the_secret_once_and_list_never_echoes_it(api, session):
    created = mint(session)
    assert created["token"].startswith("bw_live_pat_")
    assert created["prefix"] == created["token"][: len("bw_live_pat_") + 4]
    assert created["last4"] == created["token"][-4:]
    row = listed(session, created["id"])
    assert row is not None and "token" not in row
    assert created["token"] not in session.get("/v1/tokens").text
    assert bearer(api, created["token"]).get("/v1/tokens/me").json()["scopes"] == SCOPES


def test_2_2_wildcard_scopes_cannot_be_minted(session):
    response = session.post("/v1/tokens", json={"label": "x", "scopes": ["runs:*"]})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_argument"


def test_2_2_unknown_scopes_cannot_be_minted(session):
    response = session.post("/v1/tokens", json={"label": "x", "scopes": ["runs:everything"]})
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("method", "path", "operation"),
    [
        ("POST", "/v1/tokens", "createToken"),
        ("PATCH", "/v1/tokens/{id}", "patchToken"),
        ("POST", "/v1/tokens/{id}:rotate", "rotateToken"),
        ("DELETE", "/v1/tokens/{id}", "revokeToken"),
    ],
)
def test_2_4_token_mutation_is_session_only(api, session, method, path, operation):
    """A PAT gets 403 scope_insufficient; the explanation in `title`, the bare operation name in `detail`."""
    token_id = mint(session)["id"]
    body = {"label": "x", "scopes": ["runs:read"]} if operation == "createToken" else {"spend_cap_cents": 1}
    response = api.request(method, path.format(id=token_id), json=None if method == "DELETE" else body)
    assert response.status_code == 403
    problem = response.json()
    assert problem["code"] == "scope_insufficient"
    assert problem["detail"] == operation
    assert "session" in problem["title"]


def test_2_4_reads_work_with_a_pat(api, session):
    token_id = mint(session)["id"]
    pat = api.as_token(["runs:read"])
    assert pat.get("/v1/tokens").status_code == 200
    assert pat.get("/v1/tokens/me").status_code == 200
    assert pat.get(f"/v1/tokens/{token_id}/spending").status_code == 200


# -- list -----------------------------------------------------------------------------


def test_2_4_list_shows_only_the_callers_tokens_with_payer(api, session):
    other = api.user(email="someone@example.test")
    api.token(["runs:read"], user_id=other["id"], label="theirs")
    mine = mint(session, label="mine")
    rows = session.get("/v1/tokens").json()
    labels = {row["label"] for row in rows["data"]}
    assert "mine" in labels and "theirs" not in labels
    assert mine["id"] in {row["id"] for row in rows["data"]}
    assert rows["meta"]["payer"]["user_id"] == api.mock.store.default_user_id


def test_2_1_last_used_at_is_bumped_on_use(api, session):
    created = mint(session)
    assert listed(session, created["id"])["last_used_at"] is None
    client = bearer(api, created["token"])
    client.get("/v1/tokens/me")
    first = listed(session, created["id"])["last_used_at"]
    assert first is not None
    now = api.advance(30)
    client.get("/v1/tokens/me")
    assert listed(session, created["id"])["last_used_at"] == now


# -- spend caps and spending ----------------------------------------------------------


def test_2_4_spend_cap_defaults_to_month_and_null_clears_both(session):
    created = mint(session, spend_cap_cents=5000)
    assert (created["spend_cap_cents"], created["cap_period"]) == (5000, "month")
    daily = session.patch(f"/v1/tokens/{created['id']}", json={"spend_cap_cents": 200, "cap_period": "day"}).json()
    assert (daily["spend_cap_cents"], daily["cap_period"], daily["spend_period"]) == (200, "day", "day")
    cleared = session.patch(f"/v1/tokens/{created['id']}", json={"spend_cap_cents": None}).json()
    assert (cleared["spend_cap_cents"], cleared["cap_period"], cleared["spend_period"]) == (None, None, "month")


def test_2_4_patch_leaves_fields_out_unchanged(session):
    created = mint(session, spend_cap_cents=700, cap_period="lifetime", expires_at="2026-12-31")
    patched = session.patch(f"/v1/tokens/{created['id']}", json={"expires_at": "2027-01-31"}).json()
    assert (patched["spend_cap_cents"], patched["cap_period"]) == (700, "lifetime")
    assert patched["expires_at"].startswith("2027-01-31T23:59:59.999999")


def test_2_4_cap_period_without_a_cap_is_refused(session):
    refused = session.post("/v1/tokens", json={"label": "x", "scopes": SCOPES, "cap_period": "day"})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_argument"
    created = mint(session)
    response = session.patch(f"/v1/tokens/{created['id']}", json={"cap_period": "day"})
    assert response.status_code == 400


def test_2_4_spent_cents_period_counts_runs_launched_with_the_token(api, session):
    capped = mint(session, spend_cap_cents=5000)
    idle = mint(session, label="idle")
    launched = bearer(api, capped["token"]).post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"})
    assert launched.status_code == 202
    api.advance(120)
    run = pipeline.get_run(api.mock.store, launched.json()["id"])
    assert run.debited_cents > 0
    row = listed(session, capped["id"])
    assert row["spent_cents_period"] == run.debited_cents
    spending = session.get(f"/v1/tokens/{capped['id']}/spending").json()
    assert spending == {
        "token_id": capped["id"],
        "period": "month",
        "spent_cents": row["spent_cents_period"],
        "spend_cap_cents": 5000,
        "cap_period": "month",
    }
    assert listed(session, idle["id"])["spent_cents_period"] == 0


def test_2_4_spending_is_per_period(api, session):
    created = mint(session)
    bearer(api, created["token"]).post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"})
    api.advance(600)
    spent = session.get(f"/v1/tokens/{created['id']}/spending?period=lifetime").json()["spent_cents"]
    assert spent > 0
    api.advance(86_400)  # the next UTC day, still April
    assert session.get(f"/v1/tokens/{created['id']}/spending?period=day").json()["spent_cents"] == 0
    assert session.get(f"/v1/tokens/{created['id']}/spending?period=month").json()["spent_cents"] == spent


def test_2_4_spending_of_someone_elses_token_is_404(api, session):
    other = api.user()
    token_id = api.http.post("/__mock/tokens", json={"scopes": ["runs:read"], "user_id": other["id"]}).json()["id"]
    assert session.get(f"/v1/tokens/{token_id}/spending").status_code == 404


# -- expiry ---------------------------------------------------------------------------


def test_2_4_bare_date_expiry_is_the_end_of_that_day(api, session):
    created = mint(session, expires_at="2026-04-23")
    assert created["expires_at"].startswith("2026-04-23T23:59:59.999999")
    client = bearer(api, created["token"])
    api.advance(9 * 3600)  # 23:00 the same day: still valid
    assert client.get("/v1/tokens/me").status_code == 200
    api.advance(3600)
    expired = client.get("/v1/tokens/me")
    assert expired.status_code == 401 and expired.json()["code"] == "token_expired"
    row = listed(session, created["id"])
    assert row["expired"] is True


def test_2_4_expiry_must_be_in_the_future(session):
    assert (
        session.post("/v1/tokens", json={"label": "x", "scopes": SCOPES, "expires_at": "2026-04-22"}).status_code == 400
    )
    created = mint(session)
    response = session.patch(f"/v1/tokens/{created['id']}", json={"expires_at": "2026-04-23T13:00:00Z"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_2_4_extending_or_clearing_expiry_brings_a_token_back(api, session):
    created = mint(session, expires_at="2026-04-23T15:00:00Z")
    client = bearer(api, created["token"])
    api.advance(2 * 3600)
    assert client.get("/v1/tokens/me").json()["code"] == "token_expired"
    session.patch(f"/v1/tokens/{created['id']}", json={"expires_at": None})
    assert listed(session, created["id"])["expires_at"] is None
    assert client.get("/v1/tokens/me").status_code == 200


# -- rotate and revoke ------------------------------------------------------------------


def test_2_1_rotate_keeps_the_grant_and_kills_the_old_value(api, session):
    created = mint(session, spend_cap_cents=900, cap_period="day", expires_at="2026-12-31")
    rotated = session.post(f"/v1/tokens/{created['id']}:rotate")
    assert rotated.status_code == 200
    body = rotated.json()
    assert body["token"] != created["token"]
    for field in ("id", "label", "scopes", "spend_cap_cents", "cap_period", "expires_at", "created_at"):
        assert body[field] == created[field], field
    old = bearer(api, created["token"]).get("/v1/tokens/me")
    assert old.status_code == 401 and old.json()["code"] == "auth_required"
    assert bearer(api, body["token"]).get("/v1/tokens/me").status_code == 200


def test_2_4_rotating_an_expired_token_says_expired(api, session):
    created = mint(session, expires_at="2026-04-23T15:00:00Z")
    api.advance(2 * 3600)
    body = session.post(f"/v1/tokens/{created['id']}:rotate").json()
    assert body["expired"] is True
    assert bearer(api, body["token"]).get("/v1/tokens/me").json()["code"] == "token_expired"


def test_2_4_revoke_soft_deletes(api, session):
    created = mint(session)
    client = bearer(api, created["token"])
    assert client.get("/v1/tokens/me").status_code == 200
    assert session.delete(f"/v1/tokens/{created['id']}").status_code == 204
    assert listed(session, created["id"]) is None
    assert api.mock.store.tokens[created["id"]].revoked_at is not None
    after = client.get("/v1/tokens/me")
    assert after.status_code == 401 and after.json()["code"] == "auth_required"
    assert session.delete(f"/v1/tokens/{created['id']}").status_code == 404
    assert session.post(f"/v1/tokens/{created['id']}:rotate").status_code == 404


def test_2_4_only_your_own_tokens_can_be_changed(api):
    other = api.user()
    token_id = api.http.post("/__mock/tokens", json={"scopes": ["runs:read"], "user_id": other["id"]}).json()["id"]
    session = api.as_session()
    assert session.patch(f"/v1/tokens/{token_id}", json={"spend_cap_cents": 1}).status_code == 404
    assert session.delete(f"/v1/tokens/{token_id}").status_code == 404


def test_2_4_token_ids_are_uuids(session):
    response = session.delete("/v1/tokens/not-a-uuid")
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
