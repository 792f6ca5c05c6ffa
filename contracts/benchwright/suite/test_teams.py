"""§2.5 teams and whose wallet a call bills to, §2.3 provider keys apart from the PAT.

- `GET /v1/teams/me` answers `{team, members, invites, balance, is_owner}`; without a team,
  `team` is null, there are no members and the caller owns nothing (§2.5#1).
- Billing-, token- and secret-shaped answers carry `meta.payer`, the wallet the call is scoped
  to: for a caller without a team, the caller's own (§2.5#2).
- Creating a team while on one is `409 already_on_team` (§2.5#3; a fresh account of the mock).
- Rotating a provider key (a secret) leaves the PAT working (§2.3).

The reads run on every target; creating teams and rotating secrets where the policy permits.
"""

from __future__ import annotations

from contracts.benchwright.suite._support import body_of, code_of, expect
from contracts.benchwright.suite.conftest import require
from contracts.runner import unique

PAYER_ROUTES = ("/v1/tokens", "/v1/secrets", "/v1/settings")


def test_my_team_and_the_payer(client):
    """§2.5#1, §2.5#2."""
    response = client.get("/v1/teams/me")
    body = body_of(response) or {}
    expect(
        response.status_code == 200
        and {"team", "members", "invites", "balance", "is_owner"} <= set(body)
        and (body.get("team") is not None or (body.get("members") == [] and body.get("is_owner") is False)),
        "§2.5#1",
        "GET /v1/teams/me",
        f"answered {response.status_code} {body}",
        response,
    )
    me = body_of(client.get("/v1/tokens/me")) or {}
    for path in PAYER_ROUTES:
        listed = client.get(path)
        payer = ((body_of(listed) or {}).get("meta") or {}).get("payer")
        expect(
            isinstance(payer, dict) and (body.get("team") is not None or payer.get("user_id") == me.get("user_id")),
            "§2.5#2",
            f"GET {path}",
            f"meta.payer is {payer!r} for a caller {me.get('user_id')!r} without a team",
            listed,
        )


def test_a_second_team_is_refused(client, target, policy, mock_only):
    """§2.5#3: a fresh account creates a team (and becomes its owner); a second is 409 already_on_team."""
    require(policy, "createTeam")
    user = target.control_post("/users", {"tier": "scale", "balance_cents": 10_000}).json()
    own = client.with_token(target.mint(["full"], user_id=user["id"]))
    first = own.post("/v1/teams", json={"name": f"contract {unique.hex(8)}"})
    mine = body_of(own.get("/v1/teams/me")) or {}
    expect(
        first.status_code == 201 and mine.get("is_owner") is True,
        "§2.5#3",
        "POST /v1/teams",
        f"a first team answered {first.status_code}; the caller reads is_owner={mine.get('is_owner')!r}",
        first,
    )
    second = own.post("/v1/teams", json={"name": "another"})
    expect(
        second.status_code == 409 and code_of(second) == "already_on_team",
        "§2.5#3",
        "POST /v1/teams",
        f"a second team answered {second.status_code} {code_of(second)}",
        second,
    )


def test_rotating_a_provider_key_keeps_the_pat(client, policy):
    """§2.3#1: provider keys live in the Secrets API, apart from the PAT: rotating one leaves the PAT working."""
    for operation in ("createSecret", "patchSecret", "deleteSecret"):
        require(policy, operation)
    created = client.post("/v1/secrets", json={"name": f"OPENROUTER_{unique.hex(6).upper()}", "value": "one"})
    secret_id = (body_of(created) or {}).get("id")
    try:
        rotated = client.patch(f"/v1/secrets/{secret_id}", json={"value": "two"})
        me = client.get("/v1/tokens/me")
        expect(
            rotated.status_code == 200 and me.status_code == 200,
            "§2.3#1",
            "GET /v1/tokens/me",
            f"after rotating a provider key ({rotated.status_code}) the PAT answered {me.status_code}",
            me,
        )
    finally:
        if secret_id:
            client.delete(f"/v1/secrets/{secret_id}")
