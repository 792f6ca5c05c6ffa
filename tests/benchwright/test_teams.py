"""§2.5 teams: workspace, invites, roles (member | readonly), leave, dissolve."""

from __future__ import annotations

import pytest

from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model import ledger


@pytest.fixture
def owner(api):
    """The default user, owner of a fresh team."""
    response = api.post("/v1/teams", json={"name": "Evals"})
    assert response.status_code == 201, response.text
    return api


def join(api, owner, email, role="member"):
    """A new user who accepts an invite to `owner`'s team; returns (user, client)."""
    user = api.user(email=email)
    client = api.as_token(["full"], user_id=user["id"])
    invite = owner.post("/v1/teams/me/invites", json={"email": email, "role": role}).json()
    assert client.post(f"/v1/team-invites/{invite['id']}:accept").status_code == 200
    return user, client


def test_2_5_no_team(api):
    body = api.get("/v1/teams/me").json()
    assert body["team"] is None and body["members"] == [] and body["invites"] == []
    assert body["is_owner"] is False
    wallet = ledger.balance_cents(api.mock.store, api.mock.store.default_user_id)
    assert body["balance"] == {"amount_cents": wallet, "currency": "USD"}


def test_2_5_create_makes_the_caller_owner(owner, api):
    body = api.get("/v1/teams/me").json()
    assert body["team"]["name"] == "Evals"
    assert body["team"]["owner_id"] == api.mock.store.default_user_id
    assert body["is_owner"] is True
    assert [m["role"] for m in body["members"]] == ["owner"]


def test_2_5_create_while_on_a_team_is_already_on_team(owner):
    response = owner.post("/v1/teams", json={"name": "Another"})
    assert response.status_code == 409 and response.json()["code"] == "already_on_team"


def test_2_5_invite_accept_and_membership(owner, api):
    invite = owner.post("/v1/teams/me/invites", json={"email": "new@example.test"}).json()
    assert (invite["status"], invite["role"]) == ("pending", "member")
    assert [i["id"] for i in owner.get("/v1/teams/me").json()["invites"]] == [invite["id"]]
    user = api.user(email="new@example.test")
    member = api.as_token(["full"], user_id=user["id"])
    assert member.post(f"/v1/team-invites/{invite['id']}:accept").json() == {"ok": True}
    team = member.get("/v1/teams/me").json()
    assert team["is_owner"] is False
    assert team["invites"] == []
    roles = {m["user_id"]: m["role"] for m in team["members"]}
    assert roles[user["id"]] == "member"
    assert team["balance"]["amount_cents"] == owner.get("/v1/teams/me").json()["balance"]["amount_cents"]


def test_2_5_invite_to_a_given_team(owner, api):
    team_id = owner.get("/v1/teams/me").json()["team"]["id"]
    response = owner.post(f"/v1/teams/{team_id}/invites", json={"email": "x@example.test"})
    assert response.status_code == 201 and response.json()["team_id"] == team_id
    stranger = api.as_token(["full"], user_id=api.user()["id"])
    refused = stranger.post(f"/v1/teams/{team_id}/invites", json={"email": "y@example.test"})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"


def test_2_5_an_invite_for_someone_else_cannot_be_accepted(owner, api):
    invite = owner.post("/v1/teams/me/invites", json={"email": "right@example.test"}).json()
    wrong = api.as_token(["full"], user_id=api.user(email="wrong@example.test")["id"])
    response = wrong.post(f"/v1/team-invites/{invite['id']}:accept")
    assert response.status_code == 403 and response.json()["code"] == "forbidden"


def test_2_5_a_revoked_invite_cannot_be_accepted(owner, api):
    invite = owner.post("/v1/teams/me/invites", json={"email": "late@example.test"}).json()
    assert owner.post(f"/v1/team-invites/{invite['id']}:revoke").json() == {"ok": True}
    assert owner.get("/v1/teams/me").json()["invites"] == []
    late = api.as_token(["full"], user_id=api.user(email="late@example.test")["id"])
    assert late.post(f"/v1/team-invites/{invite['id']}:accept").status_code == 403


def test_2_5_members_cannot_send_or_revoke_invites(owner, api):
    _, member = join(api, owner, "m@example.test")
    assert member.post("/v1/teams/me/invites", json={"email": "z@example.test"}).json()["code"] == "forbidden"
    invite = owner.post("/v1/teams/me/invites", json={"email": "q@example.test"}).json()
    assert member.post(f"/v1/team-invites/{invite['id']}:revoke").json()["code"] == "forbidden"


def test_2_5_readonly_members_get_team_readonly_on_writes(owner, api):
    user, reader = join(api, owner, "ro@example.test", role="readonly")
    roles = {m["user_id"]: m["role"] for m in owner.get("/v1/teams/me").json()["members"]}
    assert roles[user["id"]] == "readonly"
    for response in (
        reader.post("/v1/teams/me/invites", json={"email": "z@example.test"}),
        reader.put("/v1/settings/score_display_format", json={"value": "percent"}),
        reader.delete("/v1/settings/score_display_format"),
        reader.post("/v1/teams/me:delete"),
        reader.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"}),
    ):
        assert response.status_code == 403 and response.json()["code"] == "team_readonly", response.text
    assert reader.get("/v1/settings").status_code == 200


def test_2_5_a_readonly_member_cannot_fork_even_their_own_run(api):
    """§4.3 fork is a write, so the general team-write guard applies (§2.5): a
    read-only member gets `403 team_readonly`, as the spec's forkRun documents."""
    lead = api.as_token(["full"], user_id=api.user(email="lead@example.test")["id"])
    assert lead.post("/v1/teams", json={"name": "Evals"}).status_code == 201
    invite = lead.post("/v1/teams/me/invites", json={"email": "dev@example.test", "role": "readonly"}).json()
    assert api.post(f"/v1/team-invites/{invite['id']}:accept").status_code == 200
    response = api.post(f"/v1/runs/{RUN_IDS['fork_root']}/fork", json={"description": "stricter scoring"})
    assert response.status_code == 403 and response.json()["code"] == "team_readonly", response.text


def test_2_5_a_teammate_sees_the_owners_runs(owner, api):
    run_id = owner.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"}).json()["id"]
    _, member = join(api, owner, "m@example.test")
    outsider = api.as_token(["full"], user_id=api.user()["id"])
    assert run_id in {r["id"] for r in member.get("/v1/runs?limit=100").json()["data"]}
    assert run_id not in {r["id"] for r in outsider.get("/v1/runs?limit=100").json()["data"]}


def test_2_5_owners_cannot_leave_members_can(owner, api):
    response = owner.post("/v1/teams/me:leave")
    assert response.status_code == 403 and response.json()["code"] == "forbidden"
    user, member = join(api, owner, "m@example.test")
    assert member.post("/v1/teams/me:leave").json() == {"ok": True}
    assert member.get("/v1/teams/me").json()["team"] is None
    assert user["id"] not in {m["user_id"] for m in owner.get("/v1/teams/me").json()["members"]}
    assert member.post("/v1/teams/me:leave").status_code == 404


def test_2_5_only_the_owner_dissolves(owner, api):
    _, member = join(api, owner, "m@example.test")
    response = member.post("/v1/teams/me:delete")
    assert response.status_code == 403 and response.json()["code"] == "forbidden"


def test_2_5_dissolving_removes_members_cancels_invites_and_unshares_runs(owner, api):
    run_id = owner.post("/v1/runs", json={"request": "Run MMLU on qwen/qwen3-32b"}).json()["id"]
    _, member = join(api, owner, "m@example.test")
    invite = owner.post("/v1/teams/me/invites", json={"email": "pending@example.test"}).json()
    assert member.get(f"/v1/runs/{run_id}").status_code == 200
    assert owner.post("/v1/teams/me:delete").json() == {"ok": True}
    assert owner.get("/v1/teams/me").json()["team"] is None
    assert member.get("/v1/teams/me").json()["team"] is None
    assert member.get(f"/v1/runs/{run_id}").status_code == 404
    assert run_id not in {r["id"] for r in member.get("/v1/runs?limit=100").json()["data"]}
    assert api.mock.store.team_invites[invite["id"]].status == "cancelled"
    pending = api.as_token(["full"], user_id=api.user(email="pending@example.test")["id"])
    assert pending.post(f"/v1/team-invites/{invite['id']}:accept").status_code == 403
    assert owner.post("/v1/teams", json={"name": "Again"}).status_code == 201


def test_2_5_no_team_is_404_for_my_team_operations(api):
    assert api.post("/v1/teams/me/invites", json={"email": "a@example.test"}).status_code == 404
    assert api.post("/v1/teams/me:delete").status_code == 404


def test_2_5_accepting_while_on_another_team_is_forbidden(owner, api):
    other = api.user(email="o@example.test")
    other_client = api.as_token(["full"], user_id=other["id"])
    other_client.post("/v1/teams", json={"name": "Theirs"})
    invite = owner.post("/v1/teams/me/invites", json={"email": "o@example.test"}).json()
    assert other_client.post(f"/v1/team-invites/{invite['id']}:accept").json()["code"] == "forbidden"
