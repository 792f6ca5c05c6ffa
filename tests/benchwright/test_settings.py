"""§11 settings: allowlist, per-key validation, owner's settings for a team, narration opt-in (§4.9)."""

from __future__ import annotations

import pytest

PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"
REFERENCE_KEYS = [
    "score_display_format",
    "litellm_proxy_ui_enabled",
    "litellm_full_logging_enabled",
    "run_narration_enabled",
    "goal_narration_enabled",
    "phase_models",
    "analyzer_model",
    "operator_harness",
    "operator_model",
    "default_model_under_test",
    "default_harness",
    "narrate_enabled",
    "narrate_voice",
]


def test_11_schema_serves_the_allowlist(api):
    assert api.get("/v1/settings:schema").json() == {"keys": REFERENCE_KEYS}


def test_11_put_then_get(api):
    assert api.get("/v1/settings").json()["data"] == {}
    now = api.advance(5)
    stored = api.put("/v1/settings/analyzer_model", json={"value": {"model": "qwen/qwen3-32b", "provider": "together"}})
    assert stored.status_code == 200
    assert stored.json() == {
        "key": "analyzer_model",
        "value": {"model": "qwen/qwen3-32b", "provider": "together"},
        "updated_at": now,
    }
    body = api.get("/v1/settings").json()
    assert body["data"] == {"analyzer_model": {"value": stored.json()["value"], "updated_at": now}}
    assert body["meta"]["payer"]["user_id"] == api.mock.store.default_user_id


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_11_keys_outside_the_allowlist_are_invalid(api, method):
    response = api.request(method, "/v1/settings/is_admin", json={"value": True} if method == "PUT" else None)
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


@pytest.mark.parametrize(
    ("key", "good", "bad"),
    [
        ("score_display_format", "percent", "ratio"),
        ("operator_harness", "claude-code", "cursor"),
        ("operator_model", "google/gemini-2.5-pro", "gemini 2.5; rm -rf"),
        ("default_harness", "", "bridge"),
        ("default_harness", "inspect", 7),
        ("default_model_under_test", "qwen/qwen3-32b@openrouter", "qwen/qwen3-32b"),
        ("default_model_under_test", "", "qwen@nowhere"),
        ("narrate_voice", "Kore", "Robot"),
    ],
)
def test_11_launch_feeding_keys_are_validated_on_write(api, key, good, bad):
    refused = api.put(f"/v1/settings/{key}", json={"value": bad})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_argument"
    assert api.put(f"/v1/settings/{key}", json={"value": good}).status_code == 200
    assert api.get("/v1/settings").json()["data"][key]["value"] == good


def test_11_value_is_any_json_for_other_keys(api):
    value = {"atomize": "gemini-3-flash-preview", "report": None, "list": [1, 2]}
    assert api.put("/v1/settings/phase_models", json={"value": value}).json()["value"] == value


def test_11_delete_removes_the_key(api):
    api.put("/v1/settings/narrate_enabled", json={"value": True})
    assert api.delete("/v1/settings/narrate_enabled").status_code == 204
    assert "narrate_enabled" not in api.get("/v1/settings").json()["data"]
    assert api.delete("/v1/settings/narrate_enabled").status_code == 204


def test_11_settings_are_per_account(api):
    api.put("/v1/settings/score_display_format", json={"value": "percent"})
    other = api.as_token(["full"], user_id=api.user()["id"])
    assert other.get("/v1/settings").json()["data"] == {}


def test_11_a_team_member_reads_the_owners_settings(api):
    api.put("/v1/settings/score_display_format", json={"value": "percent"})
    member_user = api.user(team_owner_id=api.mock.store.default_user_id)
    member = api.as_token(["full"], user_id=member_user["id"])
    body = member.get("/v1/settings").json()
    assert body["data"]["score_display_format"]["value"] == "percent"
    assert body["meta"]["payer"]["user_id"] == api.mock.store.default_user_id
    assert body["meta"]["payer"]["is_team_owner"] is False


@pytest.mark.parametrize(("value", "status"), [(True, 200), (False, 204), ("true", 204), (None, 204)])
def test_4_9_narration_follows_run_narration_enabled(api, value, status):
    if value is not None:
        api.put("/v1/settings/run_narration_enabled", json={"value": value})
    assert api.get(f"/v1/runs/{PUBLIC_RUN}/narrate").status_code == status


def test_4_9_disabling_narration_again(api):
    api.put("/v1/settings/run_narration_enabled", json={"value": True})
    assert api.get(f"/v1/runs/{PUBLIC_RUN}/narrate").status_code == 200
    api.delete("/v1/settings/run_narration_enabled")
    assert api.get(f"/v1/runs/{PUBLIC_RUN}/narrate").status_code == 204
