"""The BenchGen control surface: the out-of-band moves of the web app, as the issue lists them."""

from __future__ import annotations

from mock_server.benchgen import fixtures


def test_users_default_and_explicit_credits(bench):
    """POST /__mock/users {credits?} -> 201 {id, credits}."""
    a = bench.client.post("/__mock/users", json={})
    b = bench.client.post("/__mock/users", json={"credits": 7})
    assert (a.status_code, b.status_code) == (201, 201)
    assert a.json()["credits"] == 100 and b.json()["credits"] == 7 and a.json()["id"] != b.json()["id"]
    for bad in ({"credits": -1}, {"credits": "7"}, {"credits": True}):
        response = bench.client.post("/__mock/users", json=bad)
        assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert bench.client.post("/__mock/users", content=b"{nope").status_code == 400


def test_tokens_mint_and_revoke(bench):
    """POST /__mock/tokens {user_id?, scopes} -> 201 {id, token, scopes}; DELETE -> 204 (B-43, B-48)."""
    response = bench.client.post("/__mock/tokens", json={"scopes": "benchmark:read"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "token", "scopes"} and body["scopes"] == ["benchmark:read"]
    assert body["token"].startswith("bgn_")
    assert bench.store.tokens[body["id"]].user_id == fixtures.DEMO_USER_ID
    assert bench.client.delete(f"/__mock/tokens/{body['id']}").status_code == 204
    assert bench.client.delete(f"/__mock/tokens/{body['id']}").status_code == 204  # idempotent
    assert bench.client.delete("/__mock/tokens/99999").status_code == 404
    for bad in ({}, {"scopes": ["benchmark:*"]}, {"scopes": [1]}, {"scopes": ["benchmark:read"], "user_id": 99999}):
        response = bench.client.post("/__mock/tokens", json=bad)
        assert response.status_code in (400, 404), bad
        assert "code" in response.json()


def test_competitions_are_created_published_and_auto_approving_by_default(bench):
    """POST /__mock/competitions {name, auto_approve?, published?} -> 201 {id}."""
    made = bench.client.post("/__mock/competitions", json={"name": "My Bench"})
    assert made.status_code == 201 and set(made.json()) == {"id"}
    cid = made.json()["id"]
    listed = bench.client.get("/api/competitions/public/", params={"search": "my bench"}).json()["results"]
    assert [c["id"] for c in listed] == [cid] and listed[0]["slug"] == "my-bench"
    hidden = bench.client.post("/__mock/competitions", json={"name": "Hidden", "published": False}).json()["id"]
    assert bench.join(hidden).status_code == 404
    manual = bench.client.post("/__mock/competitions", json={"name": "Manual", "auto_approve": False}).json()["id"]
    assert bench.join(manual).json()["participant_status"] == "pending"
    assert bench.client.post("/__mock/competitions", json={"name": ""}).status_code == 400
    assert bench.client.post("/__mock/competitions", json={"name": "x", "published": "yes"}).status_code == 400


def test_approve_needs_an_application(bench):
    """POST /__mock/competitions/{id}/participants/{user_id}/approve -> 200, 404 without an application."""
    url = f"/__mock/competitions/{fixtures.CURATED_ID}/participants/{fixtures.DEMO_USER_ID}/approve"
    assert bench.client.post(url).status_code == 404
    bench.join(fixtures.CURATED_ID)
    response = bench.client.post(url)
    assert response.status_code == 200 and response.json()["participant_status"] == "approved"
    assert bench.client.post(url).status_code == 200


def test_finish_with_score_error_or_as_simulated(bench):
    """POST /__mock/submissions/{id}/finish {score?, error?} -> 200 the run's status."""
    bench.join(fixtures.GSM8K_ID)
    run = {"competition_id": fixtures.GSM8K_ID, "model_id": fixtures.GPT_MINI_ID}
    ids = [bench.queue(run).json()["submission_id"] for _ in range(3)]
    scored = bench.client.post(f"/__mock/submissions/{ids[0]}/finish", json={"score": 0.25})
    assert scored.status_code == 200 and scored.json()["score"] == 0.25 and scored.json()["done"] is True
    assert sum(i["correct"] for i in bench.items(ids[0]).json()["results"]) == 2  # 0.25 of 8
    failed = bench.client.post(f"/__mock/submissions/{ids[1]}/finish", json={"error": "boom"}).json()
    assert failed["status"] == "failed" and failed["error"] == "boom"
    natural = bench.client.post(f"/__mock/submissions/{ids[2]}/finish", json={}).json()
    assert natural["status"] == "completed"
    again = bench.client.post(f"/__mock/submissions/{ids[2]}/finish", json={})
    assert again.status_code == 409
    for bad in ({"score": 2}, {"score": "high"}, {"score": 0.5, "error": "x"}, {"error": ""}):
        bench.queue(run)
        sid = max(bench.store.submissions)
        assert bench.client.post(f"/__mock/submissions/{sid}/finish", json=bad).status_code == 400, bad
    assert bench.client.post("/__mock/submissions/99999/finish", json={}).status_code == 404


def test_reset_brings_back_the_seed(bench):
    """POST /__mock/reset: the fixtures again, with the same ids and the same demo token."""
    bench.join(fixtures.GSM8K_ID)
    bench.user()
    assert bench.client.post("/__mock/reset").status_code == 204
    assert (fixtures.GSM8K_ID, fixtures.DEMO_USER_ID) not in bench.store.participations
    assert sorted(bench.store.users) == [fixtures.DEMO_USER_ID]
    assert bench.join(fixtures.GSM8K_ID).status_code == 201


def test_without_fixtures_the_store_starts_empty():
    """MockConfig.seed=False: no seeded user, token or competition; the control surface fills it."""
    from starlette.testclient import TestClient

    from mock_server.app import create_app

    with TestClient(create_app(api="benchgen", seed=False)) as client:
        assert client.get("/api/competitions/public/").json()["count"] == 0
        response = client.get("/api/user_llm_models/", headers={"Authorization": f"Bearer {fixtures.DEMO_TOKEN}"})
        assert response.status_code == 401
        assert client.post("/__mock/tokens", json={"scopes": []}).status_code == 400  # no default user to mint for
        user = client.post("/__mock/users", json={}).json()["id"]
        token = client.post("/__mock/tokens", json={"scopes": ["benchmark:read"], "user_id": user}).json()["token"]
        assert client.get("/api/user_llm_models/", headers={"Authorization": f"Bearer {token}"}).json()["count"] == 0
