"""§2.0–§2.4 at the engine: which credential a request carries, and what it may call."""

from __future__ import annotations

PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"
PRIVATE_RUN = "2a1b0c9d-8e7f-4a6b-9c5d-4e3f2a1b0c9d"


def bearer(api, secret):
    return api.anonymous().with_headers({"Authorization": f"Bearer {secret}"})


def test_2_2_scope_comes_from_the_spec_security_requirement(api):
    reader = api.as_token(["runs:read"])
    assert reader.get("/v1/runs").status_code == 200
    response = reader.post("/v1/runs", json={"request": "Run MMLU"})
    assert response.status_code == 403
    problem = response.json()
    assert problem["code"] == "scope_insufficient"
    assert problem["required_scope"] == "runs:write"


def test_2_2_scope_insufficient_names_the_scope_per_operation(api):
    response = api.as_token(["runs:read"]).get("/v1/billing/balance")
    assert response.status_code == 403
    assert response.json()["required_scope"] == "billing:read"


def test_2_2_a_stored_wildcard_is_still_honoured(api):
    wildcard = api.as_token(["runs:*"])
    assert wildcard.get("/v1/runs").status_code == 200
    assert wildcard.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"}).status_code == 202
    assert wildcard.get("/v1/billing/balance").json()["required_scope"] == "billing:read"


def test_2_4_an_expired_token_short_circuits_even_with_a_session_cookie(api):
    secret = api.token(["full"], expires_at="2026-04-23T15:00:00Z")
    both = api.as_session()
    both.headers["Authorization"] = f"Bearer {secret}"
    assert both.get("/v1/tokens/me").json()["auth_type"] == "pat"
    api.advance(2 * 3600)
    response = both.get("/v1/tokens/me")
    assert response.status_code == 401
    problem = response.json()
    assert problem["code"] == "token_expired"
    assert problem["expired_at"].startswith("2026-04-23T15:00:00")
    assert problem["title"] == "API token expired"
    assert "2026-04-23" in problem["detail"]


def test_2_4_a_revoked_token_is_auth_required(api):
    session = api.as_session()
    created = session.post("/v1/tokens", json={"label": "x", "scopes": ["runs:read"]}).json()
    client = bearer(api, created["token"])
    session.delete(f"/v1/tokens/{created['id']}")
    response = client.get("/v1/runs")
    assert response.status_code == 401 and response.json()["code"] == "auth_required"


def test_2_4_a_string_that_was_never_a_token_falls_through(api):
    stranger = bearer(api, "bw_live_pat_" + "0" * 40)
    assert stranger.get(f"/v1/runs/{PUBLIC_RUN}").status_code == 200  # anonymous read of a public run
    assert stranger.get(f"/v1/runs/{PRIVATE_RUN}").status_code == 404
    assert stranger.get("/v1/runs").json()["code"] == "auth_required"
    session = api.as_session()
    session.headers["Authorization"] = "Bearer not-ours"
    assert session.get("/v1/tokens/me").json()["auth_type"] == "session"


def test_2_1_last_used_at_is_bumped_on_every_authenticated_request(api):
    secret = api.token(["runs:read"])
    token = api.mock.store.token_for_secret(secret)
    assert token.last_used_at is None
    bearer(api, secret).get("/v1/runs")
    first = token.last_used_at
    api.advance(90)
    bearer(api, secret).get("/v1/tokens/me")
    assert (token.last_used_at - first).total_seconds() == 90


def test_2_0_api_prefix_refuses_a_pat(api):
    secret = api.token(["full"])
    response = api.http.get("/api/runs", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 401
    assert response.json()["code"] == "auth_required"


def test_2_2_anonymous_is_auth_required_where_no_anonymous_access_is_documented(anon):
    response = anon.get("/v1/tokens")
    assert response.status_code == 401 and response.json()["code"] == "auth_required"
