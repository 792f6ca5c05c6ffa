"""Tokens through the app: bearer auth, scopes per operation, revocation and its 60 s window.

Claims B-02…B-05, B-17, B-28, B-32, B-42…B-48 (`other-apis.md` §B.2); reference part
"Security & control".
"""

from __future__ import annotations

import pytest

from mock_server.benchgen import fixtures

READ, RUN = "benchmark:read", "benchmark:run"
# (method, path, json body, scope it needs) for every operation that needs a token
SCOPED = [
    ("POST", f"/api/competitions/{fixtures.GSM8K_ID}/register/", None, RUN),
    (
        "POST",
        "/models/api/queue_benchmark_run",
        {"competition_id": fixtures.MMLU_ID, "model_id": fixtures.GPT_MINI_ID},
        RUN,
    ),
    ("GET", f"/api/submissions/{fixtures.FINISHED_RUN_ID}/run_status/", None, READ),
    ("GET", f"/api/submissions/{fixtures.FINISHED_RUN_ID}/item_results/", None, READ),
    ("GET", "/api/user_llm_models/", None, READ),
]


def _call(bench, method, path, body, token=None):
    headers = bench.auth(token) if token else {}
    return bench.client.request(method, path, json=body, headers=headers)


def _for_demo_user(bench, scopes):
    """A token of the demo user (who owns the finished run and joined MMLU Mini)."""
    return bench.token(scopes, user_id=fixtures.DEMO_USER_ID)[1]


@pytest.mark.parametrize(("method", "path", "body", "scope"), SCOPED)
def test_no_token_is_401_not_authenticated(bench, method, path, body, scope):
    """B-03: a bearer token is needed everywhere but the public listing."""
    response = _call(bench, method, path, body)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(("method", "path", "body", "scope"), SCOPED)
def test_a_token_without_the_scope_is_403_naming_it(bench, method, path, body, scope):
    """B-28, B-44: a request outside the token's scopes is refused with 403, naming the scope."""
    other = READ if scope == RUN else RUN
    response = _call(bench, method, path, body, _for_demo_user(bench, [other]))
    assert response.status_code == 403, response.text
    assert response.json() == {
        "detail": f"Token lacks scope {scope}.",
        "code": "permission_denied",
        "required_scopes": [scope],
    }


@pytest.mark.parametrize(("method", "path", "body", "scope"), SCOPED)
def test_a_token_with_just_that_scope_gets_through(bench, method, path, body, scope):
    """B-43: the one scope an operation needs is enough; neither scope implies the other."""
    response = _call(bench, method, path, body, _for_demo_user(bench, [scope]))
    assert response.status_code in (200, 201), response.text


def test_unknown_or_malformed_bearer_is_401_authentication_failed(bench):
    """B-03, B-04: only a token the platform issued works; DRF-style 401 for anything else."""
    path = "/api/user_llm_models/"
    for header in ("Bearer bgn_not_a_real_token", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b"):
        response = bench.client.get(path, headers={"Authorization": header})
        assert response.status_code == 401, header
        assert response.json()["code"] == "authentication_failed"


def test_public_listing_needs_no_token_but_refuses_a_bad_one(bench):
    """B-05 and PROPOSAL B.3-3: anonymous is fine; an invalid bearer is 401 (DRF authenticates first)."""
    assert bench.client.get("/api/competitions/public/").status_code == 200
    assert bench.client.get("/api/competitions/public/", headers=bench.auth()).status_code == 200
    bad = bench.client.get("/api/competitions/public/", headers=bench.auth("bgn_wrong"))
    assert bad.status_code == 401 and bad.json()["code"] == "authentication_failed"


def test_revoked_token_works_for_less_than_60_seconds_then_401(bench):
    """B-48: revoked at T, accepted while now < T + 60 s, refused from T + 60 s on, for good."""
    token_id, token = bench.token([READ])
    assert bench.client.get("/api/user_llm_models/", headers=bench.auth(token)).status_code == 200
    assert bench.client.delete(f"/__mock/tokens/{token_id}").status_code == 204
    bench.advance(59.5)
    assert bench.client.get("/api/user_llm_models/", headers=bench.auth(token)).status_code == 200
    bench.advance(0.5)
    response = bench.client.get("/api/user_llm_models/", headers=bench.auth(token))
    assert response.status_code == 401
    assert response.json() == {"detail": "Token has been revoked.", "code": "authentication_failed"}
    bench.advance(3600)
    assert bench.client.get("/api/user_llm_models/", headers=bench.auth(token)).status_code == 401
    # the demo token is untouched by another token's revocation
    assert bench.client.get("/api/user_llm_models/", headers=bench.auth()).status_code == 200


def test_the_window_is_the_specs(bench):
    """B-48: the 60 s come from the spec's `x-revocation`, not from a constant in the code."""
    assert bench.api.spec["x-revocation"]["propagation_seconds"] == 60


def test_no_operation_creates_or_revokes_tokens(bench):
    """B-42, B-47: tokens are made in the web app; the API has no token operation at all."""
    paths = bench.api.spec["paths"]
    assert not [p for p in paths if "token" in p.lower()]
    for method, path in (("POST", "/api/tokens/"), ("POST", "/api/platform_tokens/"), ("DELETE", "/api/tokens/1/")):
        response = bench.client.request(method, path, headers=bench.auth())
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_only_the_hash_of_a_minted_token_is_kept(bench):
    """B-46: the secret is shown once (the control surface's answer) and only its hash is stored."""
    _, token = bench.token([READ])
    assert token.startswith("bgn_")
    assert token not in repr(bench.store)
    assert bench.store.token_for_secret(token) is not None


def test_demo_token_is_fixed_across_resets(bench):
    """Seed fixtures: the documented demo token works on every start and after a reset."""
    assert bench.client.post("/__mock/reset").status_code == 204
    response = bench.client.get("/api/user_llm_models/", headers={"Authorization": f"Bearer {fixtures.DEMO_TOKEN}"})
    assert response.status_code == 200
