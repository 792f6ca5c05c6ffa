"""§13 rate limits: per-account buckets, headers vs counters, 429, anonymous, teams; Appendix B spec."""

from __future__ import annotations

PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"


def counters(client):
    response = client.get("/v1/users/me/rate-limits")
    assert response.status_code == 200
    return response, response.json()


def test_13_counters_agree_with_the_headers(api):
    read = api.get("/v1/runs")
    write = api.put("/v1/settings/narrate_enabled", json={"value": True})
    response, body = counters(api)
    # the counters request is itself a read: one more than the previous read's
    assert body["read"]["limit"] == int(read.headers["X-RateLimit-Limit"]) == 600
    assert body["read"]["remaining"] == int(read.headers["X-RateLimit-Remaining"]) - 1
    assert body["read"]["remaining"] == int(response.headers["X-RateLimit-Remaining"])
    assert body["read"]["count"] == 2
    assert body["write"]["limit"] == int(write.headers["X-RateLimit-Limit"]) == 120
    assert body["write"]["remaining"] == int(write.headers["X-RateLimit-Remaining"])
    assert body["write"]["count"] == 1
    reset = int(response.headers["X-RateLimit-Reset"])
    assert body["read"]["window_seconds"] == 60
    now = api.mock.store.clock.now().timestamp()
    assert body["read"]["reset_seconds"] == reset - int(now)
    assert body["user_id"] == api.mock.store.default_user_id


def test_13_tokens_of_one_account_share_the_bucket(api):
    api.get("/v1/runs")
    other_token = api.as_token(["runs:read"])
    other_token.get("/v1/runs")
    _, body = counters(api)
    assert body["read"]["count"] == 3


def test_13_team_members_share_the_owners_bucket(api):
    owner_id = api.mock.store.default_user_id
    member_user = api.user(team_owner_id=owner_id)
    member = api.as_token(["full"], user_id=member_user["id"])
    member.get("/v1/runs")
    member.get("/v1/runs")
    _, owner_view = counters(api)
    _, member_view = counters(member)
    assert owner_view["read"]["count"] == 3
    assert member_view["read"]["count"] == 4
    assert member_view["user_id"] == member_user["id"]
    assert member_view["read"]["limit"] == owner_view["read"]["limit"]


def test_13_exhausted_write_quota_is_429_with_retry_after(api):
    user = api.user(tier="free")
    client = api.as_token(["full"], user_id=user["id"])
    for n in range(10):
        response = client.put("/v1/settings/narrate_enabled", json={"value": True})
        assert response.status_code == 200, n
    assert response.headers["X-RateLimit-Remaining"] == "0"
    limited = client.put("/v1/settings/narrate_enabled", json={"value": True})
    assert limited.status_code == 429
    assert limited.json()["code"] == "rate_limited"
    assert limited.json()["retryable"] is True
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert client.get("/v1/settings").status_code == 200  # reads have their own quota
    api.advance(int(limited.headers["Retry-After"]))
    assert client.put("/v1/settings/narrate_enabled", json={"value": True}).status_code == 200


def test_13_anonymous_responses_carry_no_rate_limit_headers(anon):
    response = anon.get(f"/v1/runs/{PUBLIC_RUN}")
    assert response.status_code == 200
    assert not [h for h in response.headers if h.lower().startswith("x-ratelimit")]


def test_appendix_b_openapi_is_served_anonymously(anon, app):
    response = anon.get("/v1/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["openapi"].startswith("3.1")
    assert body == app.state.mock.spec
    assert "/v1/users/me/rate-limits" in body["paths"]
