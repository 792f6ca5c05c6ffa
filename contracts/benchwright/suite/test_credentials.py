"""§2.4 token states and credential precedence, and the session-only operations.

- Rotation: the new value authenticates at once, and "the previous value stops
  authenticating immediately" (no grace period): `401 auth_required`.
- Precedence: a PAT of ours that is expired (or revoked) is answered about even when
  the request also carries a session cookie that would have worked; "a string that was
  never a token of ours is not a credential and still falls through" to the cookie,
  or to anonymous access where the operation allows it.
- Session-only operations (read from the spec: every security alternative is the
  session): a PAT gets `403 scope_insufficient` with the bare operation name in
  `detail` and no `required_scope`; the browser session is served.

Rotation and sessions need the mock's control surface (a live target gives the suite
no browser session); the PAT refusals and the fall-through to anonymous access are
read-only and run everywhere.
"""

from __future__ import annotations

import re

import pytest

from contracts.benchwright.suite._support import (
    body_of,
    code_of,
    cookie_header,
    example_of,
    expect,
    random_uuid,
    session_only,
    token_id,
)
from contracts.benchwright.suite.conftest import OPERATIONS, require

SESSION_ONLY = sorted(name for name, (_, _, operation) in OPERATIONS.items() if session_only(operation))
TOKEN_PREFIX = "bw_live_pat_"  # §2.1: what a token's value looks like
NEVER_A_TOKEN = TOKEN_PREFIX + "0" * 40  # our shape, but no token of ours


def _url(path: str) -> str:
    return re.sub(r"\{[^}]+\}", lambda _: random_uuid(), path)


def _secret_rows(client) -> list[tuple]:
    """The provider secrets as (id, name, updated_at): what a PAT rotation must leave alone (§2.3)."""
    rows = (body_of(client.get("/v1/secrets")) or {}).get("data") or []
    return [(row.get("id"), row.get("name"), row.get("updated_at")) for row in rows]


def test_rotation_kills_the_old_value_at_once(client, target, session_cookie, mock_only):
    """§2.4 (§2.1): rotate keeps id and scopes; the new value works, the old is 401 at once. §2.1#1 the
    value has the `bw_live_pat_` shape, §2.1#2 it is fresh under the same id, §2.1#3 the token's row
    carries a last_used_at once it has authenticated. §2.3#2: the provider secrets are untouched by it."""
    old = target.mint(["runs:read"], user_id=target.tokens["user_id"], label="contract rotation")
    ident = token_id(client, old)
    secrets_before = _secret_rows(client)
    rotated = client.with_token(None).post(f"/v1/tokens/{ident}:rotate", headers=cookie_header(session_cookie))
    expect(
        rotated.status_code == 200,
        "spec.status",
        "POST /v1/tokens/{id}:rotate",
        f"rotate answered {rotated.status_code}",
        rotated,
    )
    body = body_of(rotated) or {}
    new = body.get("token")
    secrets_after = _secret_rows(client)
    expect(
        secrets_after == secrets_before,
        "§2.3#2",
        "GET /v1/secrets",
        f"rotating a PAT changed the provider secrets: {secrets_before} became {secrets_after}",
    )
    expect(
        isinstance(new, str) and new.startswith(TOKEN_PREFIX),
        "§2.1#1",
        "POST /v1/tokens/{id}:rotate",
        f"the rotated value does not have the {TOKEN_PREFIX}… shape",
        rotated,
    )
    expect(
        new != old and body.get("id") == ident,
        "§2.1#2",
        "POST /v1/tokens/{id}:rotate",
        f"the rotation answered id {body.get('id')!r} (the token is {ident}) and {'the same' if new == old else 'a'}"
        " value",
        rotated,
    )
    expect(
        body.get("scopes") == ["runs:read"],
        "auth.rotation",
        "POST /v1/tokens/{id}:rotate",
        f"the rotation answered scopes {body.get('scopes')}, not the token's ['runs:read']",
        rotated,
    )
    fresh = client.with_token(new).get("/v1/tokens/me")
    expect(
        fresh.status_code == 200,
        "auth.rotation",
        "GET /v1/tokens/me",
        f"the rotated value answered {fresh.status_code} {code_of(fresh)}",
        fresh,
    )
    listed = client.with_token(new).get("/v1/tokens")
    row = next((r for r in (body_of(listed) or {}).get("data") or [] if r.get("id") == ident), {})
    expect(
        isinstance(row.get("last_used_at"), str),
        "§2.1#3",
        "GET /v1/tokens",
        f"the token has authenticated, yet its row reads last_used_at {row.get('last_used_at')!r}",
        listed,
    )
    stale = client.with_token(old).get("/v1/tokens/me")
    expect(
        stale.status_code == 401 and code_of(stale) == "auth_required",
        "auth.rotation",
        "GET /v1/tokens/me",
        f"the value before the rotation answered {stale.status_code} {code_of(stale)}, not 401 auth_required",
        stale,
    )


def test_a_named_token_wins_over_the_session(client, target, session_cookie, mock_only):
    """§2.4: an expired or revoked PAT short-circuits beside a working session cookie;
    a string that was never our token falls through to the session."""
    cookie = cookie_header(session_cookie)
    anonymous = client.with_token(None)
    expired = target.tokens["expired"]
    response = anonymous.get("/v1/tokens/me", headers={"Authorization": f"Bearer {expired}", **cookie})
    expect(
        response.status_code == 401 and code_of(response) == "token_expired",
        "auth.precedence",
        "GET /v1/tokens/me",
        f"an expired PAT beside a session answered {response.status_code} {code_of(response)}",
        response,
    )
    revoked = target.mint(["runs:read"], user_id=target.tokens["user_id"], label="contract precedence")
    anonymous.delete(f"/v1/tokens/{token_id(client, revoked)}", headers=cookie)
    response = anonymous.get("/v1/tokens/me", headers={"Authorization": f"Bearer {revoked}", **cookie})
    expect(
        response.status_code == 401 and code_of(response) == "auth_required",
        "auth.precedence",
        "GET /v1/tokens/me",
        f"a revoked PAT beside a session answered {response.status_code} {code_of(response)}",
        response,
    )
    response = anonymous.get("/v1/tokens/me", headers={"Authorization": f"Bearer {NEVER_A_TOKEN}", **cookie})
    expect(
        response.status_code == 200 and (body_of(response) or {}).get("auth_type") == "session",
        "auth.precedence",
        "GET /v1/tokens/me",
        f"a string that was never a token, beside a session, answered {response.status_code} {code_of(response)}"
        f" (auth_type {(body_of(response) or {}).get('auth_type')!r}), not the session",
        response,
    )


def test_a_non_token_string_falls_through_to_anonymous_access(client):
    """§2.4 with §2.2: registry reads serve anyone, so an unknown bearer string reads them too."""
    response = client.with_token(NEVER_A_TOKEN).get("/v1/registry/benchmarks", params={"limit": 1})
    expect(
        response.status_code == 200,
        "auth.precedence",
        "GET /v1/registry/benchmarks",
        f"a bearer string that was never a token answered {response.status_code} {code_of(response)}",
        response,
    )


@pytest.mark.parametrize("operation_id", SESSION_ONLY)
def test_session_only_operations_refuse_a_pat(client, policy, session_cookie, operation_id):
    """§2.4 (§2.0): a PAT on a session-only operation is 403 scope_insufficient, the
    operation named in `detail`, no `required_scope`; the session is served."""
    method, path, operation = OPERATIONS[operation_id]
    require(policy, operation_id)
    url = _url(path)
    body = example_of(operation) if method != "GET" else None
    label = f"{method} {path}"
    refused = client.request(method, url, json=body)
    problem = body_of(refused) or {}
    expect(
        refused.status_code == 403 and problem.get("code") == "scope_insufficient",
        "auth.session_only",
        label,
        f"a PAT answered {refused.status_code} {problem.get('code')}, not 403 scope_insufficient",
        refused,
    )
    expect(
        problem.get("detail") == operation_id and "required_scope" not in problem,
        "§2.4#13",
        label,
        f"the refusal's detail is {problem.get('detail')!r} (required_scope {problem.get('required_scope')!r});"
        f" expected the bare operation name {operation_id!r} and no required_scope",
        refused,
    )
    if session_cookie is None:
        return  # a live target gives the suite no browser session
    served = client.with_token(None).request(method, url, json=body, headers=cookie_header(session_cookie))
    expect(
        served.status_code not in (401, 403),
        "§2.4#14",
        label,
        f"the browser session was refused: {served.status_code} {code_of(served)}",
        served,
    )


def test_api_prefix_expects_a_browser_session(client):
    """§2.0#1: `/api` backs the web app and expects a session: a PAT there is 401, the endpoint working
    as intended, while the `/v1` equivalent serves the same PAT. Read-only; runs on every target."""
    served = client.get("/v1/runs", params={"limit": 1})
    expect(
        served.status_code == 200,
        "§2.0#1",
        "listRuns",
        f"the run's PAT is refused on /v1 ({served.status_code})",
        served,
    )
    refused = client.get("/api/runs", params={"limit": 1})
    expect(
        refused.status_code == 401,
        "§2.0#1",
        "GET /api/runs",
        f"a PAT on the web app's /api surface answered {refused.status_code}, not 401",
        refused,
    )
