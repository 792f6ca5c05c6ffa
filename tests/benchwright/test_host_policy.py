"""Host policy (§9.6) and the blocked-host log (§9.7)."""

from __future__ import annotations

from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.resources.host_policy import STARTER_PACK, record_blocked, seed_blocked_hosts

OK_RUN = RUN_IDS["ok_public"]


def entries(api):
    return {e["host_pattern"]: e for e in api.get("/v1/host-policy").json()["data"]}


def block(api, run_id, host, count, source="proxy", seconds=0):
    store = api.mock.store
    at = store.clock.now()
    if seconds:
        api.advance(seconds)
        at = store.clock.now()
    record_blocked(store, pipeline.get_run(store, run_id), host, count, source, at)


# -- §9.6 ------------------------------------------------------------------------------------


def test_9_6_default_mode_is_allow_and_flips(api):
    assert api.get("/v1/host-policy").json()["default_mode"] == "allow"
    response = api.patch("/v1/host-policy/default", json={"mode": "block"})
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert api.get("/v1/host-policy").json()["default_mode"] == "block"
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.get("/v1/host-policy").json()["default_mode"] == "allow"


def test_9_6_add_entry_is_201_ok_and_listed_as_yours(api):
    response = api.post("/v1/host-policy", json={"host_pattern": "*.Example.com ", "mode": "block"})
    assert response.status_code == 201 and response.json() == {"ok": True}
    entry = entries(api)["*.example.com"]
    assert (entry["mode"], entry["source"]) == ("block", "user")
    assert entry["id"] and entry["created_at"]


def test_9_6_adding_a_pattern_again_updates_the_one_entry(api):
    api.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "block"})
    api.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "allow"})
    rows = [e for e in api.get("/v1/host-policy").json()["data"] if e["host_pattern"] == "example.com"]
    assert [(e["mode"], e["source"]) for e in rows] == [("allow", "user")]


def test_9_6_mode_must_be_allow_or_block(api):
    response = api.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "maybe"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    blank = api.post("/v1/host-policy", json={"host_pattern": "  ", "mode": "allow"})
    assert blank.status_code == 400 and blank.json()["code"] == "invalid_argument"
    default = api.patch("/v1/host-policy/default", json={"mode": "deny"})
    assert default.status_code == 400 and default.json()["code"] == "invalid_argument"


def test_9_6_delete_entry(api):
    api.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "allow"})
    entry_id = entries(api)["example.com"]["id"]
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.delete(f"/v1/host-policy/{entry_id}").status_code == 404
    assert api.delete(f"/v1/host-policy/{entry_id}").status_code == 204
    assert "example.com" not in entries(api)
    response = api.delete(f"/v1/host-policy/{entry_id}")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_9_6_starter_pack_adds_the_five_hosts_once(api):
    first = api.post("/v1/host-policy:starter-pack")
    assert first.status_code == 200 and first.json() == {"ok": True, "added": 5}
    listed = entries(api)
    assert set(STARTER_PACK) == {
        "github.com",
        "raw.githubusercontent.com",
        "pypi.org",
        "files.pythonhosted.org",
        "huggingface.co",
    }
    assert all((listed[h]["mode"], listed[h]["source"]) == ("allow", "starter_pack") for h in STARTER_PACK)
    assert api.post("/v1/host-policy:starter-pack").json() == {"ok": True, "added": 0}
    assert len(entries(api)) == len(listed)


def test_9_6_starter_pack_leaves_your_own_entries_alone(api):
    api.post("/v1/host-policy", json={"host_pattern": "pypi.org", "mode": "block"})
    assert api.post("/v1/host-policy:starter-pack").json()["added"] == 4
    assert (entries(api)["pypi.org"]["mode"], entries(api)["pypi.org"]["source"]) == ("block", "user")


def test_9_6_scopes_read_is_secrets_read_writes_host_policy_write(api):
    reader = api.as_token(["secrets:read"])
    assert reader.get("/v1/host-policy").status_code == 200
    response = reader.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "allow"})
    assert response.status_code == 403 and response.json()["required_scope"] == "host_policy:write"
    writer = api.as_token(["host_policy:write"])
    assert writer.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "allow"}).status_code == 201
    assert writer.get("/v1/host-policy").status_code == 403


def test_2_5_team_shares_the_owner_policy_and_readonly_cannot_write(api):
    owner_id = api.mock.store.default_user_id
    reader = api.user(team_owner_id=owner_id)
    team = api.mock.store.teams[api.mock.store.users[owner_id].team_id]
    team.readonly_ids.append(reader["id"])
    client = api.as_token(["full"], user_id=reader["id"])
    api.post("/v1/host-policy", json={"host_pattern": "example.com", "mode": "block"})
    assert "example.com" in {e["host_pattern"] for e in client.get("/v1/host-policy").json()["data"]}
    for response in (
        client.post("/v1/host-policy", json={"host_pattern": "x.com", "mode": "allow"}),
        client.post("/v1/host-policy:starter-pack"),
        client.patch("/v1/host-policy/default", json={"mode": "block"}),
        client.delete(f"/v1/host-policy/{entries(api)['example.com']['id']}"),
        client.delete("/v1/blocked-hosts?host=example.com"),
    ):
        assert response.status_code == 403 and response.json()["code"] == "team_readonly"


# -- §9.7 --------------------------------------------------------------------------------------


def test_9_7_seeded_public_run_has_proxy_blocks(api):
    seed_blocked_hosts(api.mock.store, RUN_IDS["ok_public"])  # idempotent; the seed calls it too once wired
    seed_blocked_hosts(api.mock.store, RUN_IDS["ok_public"])
    rows = api.get(f"/v1/runs/{OK_RUN}/blocked-hosts").json()["data"]
    assert [(r["host"], r["seen_count"], r["source"]) for r in rows] == [
        ("files.pythonhosted.org", 12, "proxy"),
        ("api.wandb.ai", 3, "proxy"),
    ]
    assert all(r["first_seen"] < r["last_seen"] for r in rows)


def test_9_7_the_seed_includes_the_blocked_hosts(api):
    assert api.get(f"/v1/runs/{OK_RUN}/blocked-hosts").json()["data"]


def test_9_7_per_run_log_counts_and_orders_recent_first(api):
    run_id = RUN_IDS["error"]
    block(api, run_id, "a.example.com", 2)
    block(api, run_id, "b.example.com", 1, seconds=5)
    block(api, run_id, "a.example.com", 3, seconds=5)
    rows = api.get(f"/v1/runs/{run_id}/blocked-hosts").json()["data"]
    assert [(r["host"], r["seen_count"]) for r in rows] == [("a.example.com", 5), ("b.example.com", 1)]
    assert rows[0]["first_seen"] < rows[0]["last_seen"]


def test_9_7_per_run_read_needs_runs_read_and_follows_run_visibility(api):
    runs_only = api.as_token(["runs:read"])
    assert runs_only.get(f"/v1/runs/{RUN_IDS['error']}/blocked-hosts").status_code == 200
    assert runs_only.get("/v1/blocked-hosts").status_code == 403
    vault_only = api.as_token(["secrets:read"])
    assert vault_only.get("/v1/blocked-hosts").status_code == 200
    response = vault_only.get(f"/v1/runs/{RUN_IDS['error']}/blocked-hosts")
    assert response.status_code == 403 and response.json()["required_scope"] == "runs:read"
    hidden = api.get(f"/v1/runs/{RUN_IDS['other_private']}/blocked-hosts")
    assert hidden.status_code == 404


def test_9_7_account_wide_log_merges_runs(api):
    block(api, RUN_IDS["error"], "a.example.com", 2)
    block(api, RUN_IDS["killed"], "a.example.com", 4, seconds=3)
    block(api, RUN_IDS["killed"], "a.example.com", 1, source="home", seconds=3)
    block(api, RUN_IDS["other_private"], "a.example.com", 9)
    rows = [r for r in api.get("/v1/blocked-hosts").json()["data"] if r["host"] == "a.example.com"]
    assert [(r["host"], r["seen_count"], r["source"]) for r in rows] == [
        ("a.example.com", 1, "home"),
        ("a.example.com", 6, "proxy"),
    ]


def test_9_7_delete_clears_one_host(api):
    block(api, RUN_IDS["error"], "a.example.com", 2)
    block(api, RUN_IDS["killed"], "a.example.com", 1, source="home")
    block(api, RUN_IDS["error"], "b.example.com", 1)
    block(api, RUN_IDS["other_private"], "a.example.com", 9)
    assert api.delete("/v1/blocked-hosts?host=A.example.com").status_code == 204
    hosts = [r["host"] for r in api.get("/v1/blocked-hosts").json()["data"]]
    assert "b.example.com" in hosts and "a.example.com" not in hosts
    assert [r["host"] for r in api.get(f"/v1/runs/{RUN_IDS['error']}/blocked-hosts").json()["data"]] == [
        "b.example.com"
    ]
    other = api.mock.store.blocked_hosts[(RUN_IDS["other_private"], "a.example.com", "proxy")]
    assert other.seen_count == 9
    missing = api.delete("/v1/blocked-hosts")
    assert missing.status_code == 400 and missing.json()["code"] == "invalid_argument"
