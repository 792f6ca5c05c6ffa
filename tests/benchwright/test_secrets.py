"""Secrets and rules (§9.1–§9.5), their host-policy side effects (§9.2, §9.4) and
the team vault (§2.5). Every response is validated against the spec by `api`."""

from __future__ import annotations

import copy

from mock_server.benchwright.resources.secrets import enroll_cloud_inference
from mock_server.benchwright.store import sha256

RULE = {"host_pattern": "api.example.com", "inject_kind": "header", "inject_target": "X-Api-Key"}
MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}


def create(api, **body):
    response = api.post("/v1/secrets", json={"name": "EXAMPLE_KEY", "value": "sk-example-1", **body})
    assert response.status_code == 201, response.text
    assert set(response.json()) == {"id"}
    return response.json()["id"]


def listed(api, secret_id):
    return next(s for s in api.get("/v1/secrets").json()["data"] if s["id"] == secret_id)


def policy(api):
    return {e["host_pattern"]: e for e in api.get("/v1/host-policy").json()["data"]}


def stored(api, secret_id):
    return api.mock.store.secrets[secret_id]


def fresh_user(api):
    user = api.user()
    return user, api.as_token(["full"], user_id=user["id"])


# -- §9.1 list ---------------------------------------------------------------------------


def test_9_1_list_shows_names_rules_and_injections_never_values(api):
    body = api.get("/v1/secrets").json()
    assert body["meta"]["payer"]["user_id"] == api.mock.store.default_user_id
    [seeded] = body["data"]
    assert seeded["name"] == "OPENROUTER_API_KEY" and seeded["injections"] == []
    assert [r["host_pattern"] for r in seeded["rules"]] == ["openrouter.ai"]
    assert seeded["rules"][0]["secret_id"] == seeded["id"]
    assert not {"value", "value_sha256", "preview", "last_used_at"} & set(seeded)


def test_9_1_values_never_surface_on_any_response(api):
    created = api.post("/v1/secrets", json={"name": "LEAKY", "value": "sk-very-secret-value", "rules": [RULE]})
    listing = api.get("/v1/secrets")
    rotated = api.patch(f"/v1/secrets/{created.json()['id']}", json={"value": "sk-another-secret"})
    for response in (created, listing, rotated):
        assert "sk-very-secret-value" not in response.text and "sk-another-secret" not in response.text
    assert stored(api, created.json()["id"]).value_sha256 == sha256("sk-another-secret")


# -- §9.2 create ---------------------------------------------------------------------------


def test_9_2_create_with_rules_and_injections(api):
    secret_id = create(api, description="ci key", rules=[RULE], injections=["product_sandbox", "operator"])
    secret = listed(api, secret_id)
    assert secret["description"] == "ci key"
    assert secret["injections"] == ["product_sandbox", "operator"]
    [rule] = secret["rules"]
    assert {k: rule[k] for k in RULE} == RULE
    assert stored(api, secret_id).value_sha256 == sha256("sk-example-1")
    assert stored(api, secret_id).user_id == api.mock.store.default_user_id


def test_9_2_inline_rule_with_a_blank_field_is_skipped_silently(api):
    rules = [
        {**RULE, "inject_target": ""},
        {"host_pattern": "b.example.com", "inject_kind": None, "inject_target": "Authorization"},
        {"host_pattern": "   ", "inject_kind": "bearer", "inject_target": "Authorization"},
        {"inject_kind": "bearer", "inject_target": "Authorization"},
        {"host_pattern": "kept.example.com", "inject_kind": "bearer", "inject_target": "Authorization"},
    ]
    secret_id = create(api, rules=rules)
    assert [r["host_pattern"] for r in listed(api, secret_id)["rules"]] == ["kept.example.com"]
    assert "api.example.com" not in policy(api)


def test_9_2_inject_kind_outside_the_enum_is_invalid_argument(api):
    response = api.post("/v1/secrets", json={"name": "K", "value": "v", "rules": [{**RULE, "inject_kind": "cookie"}]})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    assert all(s["name"] != "K" for s in api.get("/v1/secrets").json()["data"])


def test_9_2_injections_are_product_sandbox_or_operator(api):
    response = api.post("/v1/secrets", json={"name": "K", "value": "v", "injections": ["laptop"]})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_9_2_injections_need_an_identifier_name(api):
    bad = api.post("/v1/secrets", json={"name": "my-key", "value": "v", "injections": ["operator"]})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_argument"
    assert all(s["name"] != "my-key" for s in api.get("/v1/secrets").json()["data"])
    create(api, name="my-key")  # without injections any name will do
    create(api, name="_MY_KEY2", injections=["operator"])


def test_9_2_name_conflict(api):
    response = api.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "v"})
    assert response.status_code == 409 and response.json()["code"] == "name_conflict"


def test_9_2_cloud_managed_openrouter_key_when_enrolled(api):
    user, client = fresh_user(api)
    enroll_cloud_inference(api.mock.store, user["id"])
    response = client.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or"})
    assert response.status_code == 409 and response.json()["code"] == "cloud_managed"
    assert create(client, name="TOGETHER_API_KEY")
    _, unenrolled = fresh_user(api)
    assert create(unenrolled, name="OPENROUTER_API_KEY")


def test_9_2_a_rule_auto_allows_its_host(api):
    create(api, rules=[RULE])
    entry = policy(api)["api.example.com"]
    assert (entry["mode"], entry["source"]) == ("allow", "auto_from_secret")


def test_9_2_a_rule_flips_an_existing_block_to_allow_and_keeps_it_yours(api):
    api.post("/v1/host-policy", json={"host_pattern": "api.example.com", "mode": "block"})
    create(api, rules=[RULE])
    entry = policy(api)["api.example.com"]
    assert (entry["mode"], entry["source"]) == ("allow", "user")


# -- §9.3 rotation and relabel ----------------------------------------------------------------


def test_9_3_rotation_replaces_the_stored_value(api):
    secret_id = create(api)
    before = copy.copy(stored(api, secret_id))
    api.advance(5)
    response = api.patch(f"/v1/secrets/{secret_id}", json={"value": "sk-example-2"})
    assert response.status_code == 200 and response.json() == {"id": secret_id}
    after = stored(api, secret_id)
    assert after.value_sha256 == sha256("sk-example-2") != before.value_sha256
    assert listed(api, secret_id)["updated_at"] > listed(api, secret_id)["created_at"]


def test_9_3_relabel_without_value_leaves_the_secret_untouched(api):
    secret_id = create(api)
    digest = stored(api, secret_id).value_sha256
    response = api.patch(f"/v1/secrets/{secret_id}", json={"description": "renamed", "name": "RENAMED_KEY"})
    assert response.status_code == 200 and response.json() == {"id": secret_id}
    secret = listed(api, secret_id)
    assert (secret["name"], secret["description"]) == ("RENAMED_KEY", "renamed")
    assert stored(api, secret_id).value_sha256 == digest


def test_9_3_rename_with_injections_is_held_to_the_identifier_rule(api):
    injected = create(api, name="INJECTED", injections=["product_sandbox"])
    bad = api.patch(f"/v1/secrets/{injected}", json={"name": "not-an-identifier"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_argument"
    assert listed(api, injected)["name"] == "INJECTED"
    plain = create(api, name="PLAIN")
    assert api.patch(f"/v1/secrets/{plain}", json={"name": "plain-key"}).status_code == 200


def test_9_3_rename_conflicts(api):
    secret_id = create(api)
    taken = api.patch(f"/v1/secrets/{secret_id}", json={"name": "OPENROUTER_API_KEY"})
    assert taken.status_code == 409 and taken.json()["code"] == "name_conflict"
    user, client = fresh_user(api)
    enroll_cloud_inference(api.mock.store, user["id"])
    own = create(client)
    managed = client.patch(f"/v1/secrets/{own}", json={"name": "OPENROUTER_API_KEY"})
    assert managed.status_code == 409 and managed.json()["code"] == "cloud_managed"


def test_9_3_empty_patch_and_unknown_secret(api):
    secret_id = create(api)
    empty = api.patch(f"/v1/secrets/{secret_id}", json={})
    assert empty.status_code == 400 and empty.json()["code"] == "invalid_argument"
    missing = api.patch("/v1/secrets/00000000-0000-4000-8000-000000000000", json={"value": "x"})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


# -- §9.4 delete ----------------------------------------------------------------------------------


def test_9_4_delete_cascades_to_rules(api):
    secret_id = create(api, rules=[RULE, {**RULE, "host_pattern": "b.example.com"}])
    assert api.delete(f"/v1/secrets/{secret_id}").status_code == 204
    assert all(s["id"] != secret_id for s in api.get("/v1/secrets").json()["data"])
    assert not [r for r in api.mock.store.secret_rules.values() if r.secret_id == secret_id]
    assert api.delete(f"/v1/secrets/{secret_id}").status_code == 404


def test_9_4_delete_withdraws_auto_entries_but_keeps_user_ones(api):
    api.post("/v1/host-policy", json={"host_pattern": "b.example.com", "mode": "allow"})
    secret_id = create(api, rules=[RULE, {**RULE, "host_pattern": "b.example.com"}])
    assert policy(api)["api.example.com"]["source"] == "auto_from_secret"
    api.delete(f"/v1/secrets/{secret_id}")
    entries = policy(api)
    assert "api.example.com" not in entries
    assert (entries["b.example.com"]["source"], entries["b.example.com"]["mode"]) == ("user", "allow")


def test_9_4_a_host_another_secret_still_rules_stays_allowed(api):
    first = create(api, name="FIRST", rules=[RULE])
    create(api, name="SECOND", rules=[RULE])
    api.delete(f"/v1/secrets/{first}")
    assert policy(api)["api.example.com"]["source"] == "auto_from_secret"


def test_9_4_next_launch_needing_the_key_fails_no_provider_secret(api):
    create(api, name="TOGETHER_API_KEY")
    seeded = next(s for s in api.get("/v1/secrets").json()["data"] if s["name"] == "OPENROUTER_API_KEY")
    api.delete(f"/v1/secrets/{seeded['id']}")
    response = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL})
    assert response.status_code == 412 and response.json()["code"] == "no_provider_secret"


# -- §9.5 rules on their own ------------------------------------------------------------------------


def test_9_5_create_rule_returns_a_single_element_array_and_auto_allows(api):
    secret_id = create(api)
    response = api.post(f"/v1/secrets/{secret_id}/rules", json=RULE)
    assert response.status_code == 201
    [rule] = response.json()
    assert rule["secret_id"] == secret_id and {k: rule[k] for k in RULE} == RULE
    assert listed(api, secret_id)["rules"] == [rule]
    assert policy(api)["api.example.com"]["source"] == "auto_from_secret"


def test_9_5_each_field_is_validated(api):
    secret_id = create(api)
    for bad in ({**RULE, "inject_kind": "cookie"}, {**RULE, "host_pattern": "  "}, {**RULE, "inject_target": ""}):
        response = api.post(f"/v1/secrets/{secret_id}/rules", json=bad)
        assert response.status_code == 400 and response.json()["code"] == "invalid_argument", bad
    assert listed(api, secret_id)["rules"] == []


def test_9_5_delete_rule(api):
    secret_id = create(api)
    [rule] = api.post(f"/v1/secrets/{secret_id}/rules", json=RULE).json()
    other = create(api, name="OTHER")
    assert api.delete(f"/v1/secrets/{other}/rules/{rule['id']}").status_code == 404
    assert api.delete(f"/v1/secrets/{secret_id}/rules/{rule['id']}").status_code == 204
    assert listed(api, secret_id)["rules"] == []
    assert "api.example.com" not in policy(api)
    assert api.delete(f"/v1/secrets/{secret_id}/rules/{rule['id']}").status_code == 404


def test_9_5_rules_of_an_unknown_secret_are_not_found(api):
    response = api.post("/v1/secrets/00000000-0000-4000-8000-000000000000/rules", json=RULE)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


# -- §2.2 / §2.5 access ---------------------------------------------------------------------------------


def test_2_2_scopes(api):
    reader = api.as_token(["secrets:read"])
    assert reader.get("/v1/secrets").status_code == 200
    response = reader.post("/v1/secrets", json={"name": "X", "value": "v"})
    assert response.status_code == 403 and response.json()["required_scope"] == "secrets:write"


def test_2_5_another_account_cannot_see_or_change_my_secrets(api):
    secret_id = create(api)
    _, other = fresh_user(api)
    assert other.get("/v1/secrets").json()["data"] == []
    assert other.patch(f"/v1/secrets/{secret_id}", json={"value": "x"}).status_code == 404
    assert other.delete(f"/v1/secrets/{secret_id}").status_code == 404


def test_2_5_team_members_share_the_owner_vault_and_readonly_cannot_write(api):
    owner_id = api.mock.store.default_user_id
    member = api.user(team_owner_id=owner_id)
    reader = api.user(team_owner_id=owner_id)
    team = api.mock.store.teams[api.mock.store.users[owner_id].team_id]
    team.readonly_ids.append(reader["id"])
    member_client = api.as_token(["full"], user_id=member["id"])
    reader_client = api.as_token(["full"], user_id=reader["id"])

    body = reader_client.get("/v1/secrets").json()
    assert body["meta"]["payer"]["user_id"] == owner_id
    assert [s["name"] for s in body["data"]] == ["OPENROUTER_API_KEY"]
    seeded = body["data"][0]["id"]
    for response in (
        reader_client.post("/v1/secrets", json={"name": "RO", "value": "v"}),
        reader_client.patch(f"/v1/secrets/{seeded}", json={"value": "v"}),
        reader_client.delete(f"/v1/secrets/{seeded}"),
        reader_client.post(f"/v1/secrets/{seeded}/rules", json=RULE),
    ):
        assert response.status_code == 403 and response.json()["code"] == "team_readonly"

    created = create(member_client, name="TEAM_KEY", rules=[RULE])
    assert stored(api, created).user_id == owner_id
    assert "TEAM_KEY" in {s["name"] for s in api.get("/v1/secrets").json()["data"]}
    assert policy(api)["api.example.com"]["source"] == "auto_from_secret"


def test_9_2_cloud_inference_enrollment_through_the_control_surface(api):
    """§9.2: an account enrolled in Cloud inference cannot store its own OPENROUTER_API_KEY."""
    user = api.user(cloud_inference=True)
    client = api.as_token(["full"], user_id=user["id"])
    response = client.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-x"})
    assert response.status_code == 409 and response.json()["code"] == "cloud_managed"
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-x"}).status_code == 201
