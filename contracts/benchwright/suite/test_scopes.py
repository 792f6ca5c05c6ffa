"""§2.2 scope enforcement, derived from each operation's security requirement in
the spec: a PAT lacking the scope an operation names gets `403 scope_insufficient`
with `required_scope` naming it. §2.4: revoked and expired tokens get 401.

On the mock the suite mints, per scope, a token holding every other scope. On a
live target it uses `BW_PAT_READONLY` if given (its scopes read from
`GET /v1/tokens/me`), and sends bodies that could not succeed even if the scope
check were missing (`{}`, unknown ids); operations that spend or destroy stay
behind the safety opt-ins.
"""

from __future__ import annotations

import re

import pytest

from contracts.benchwright.suite._support import body_of, code_of, cookie_header, expect, random_uuid
from contracts.benchwright.suite.conftest import BUNDLE, OPERATIONS, require


def _scoped_operations() -> list[tuple[str, str]]:
    out = []
    for name, (_, _, operation) in sorted(OPERATIONS.items()):
        for alternative in operation["security"]:
            for scope in alternative.get("pat") or []:
                out.append((name, scope))
    return out


def _url(path: str) -> str:
    return re.sub(r"\{[^}]+\}", lambda m: random_uuid() if m.group(0) == "{id}" else "contract-unknown-id", path)


@pytest.fixture(scope="module")
def tokens_lacking(target, client):
    """scope -> a token without it."""
    scopes = list(BUNDLE["components"]["schemas"]["Scope"]["enum"])
    if target.control:
        user = target.tokens["user_id"]
        return {scope: target.mint([s for s in scopes if s != scope], user_id=user) for scope in scopes}
    lacking: dict[str, str] = {}
    for role in ("readonly", "writeonly"):  # on a deployment: the narrower PATs its operator gave
        token = target.tokens.get(role)
        if token:
            held = client.with_token(token).get("/v1/tokens/me").json().get("scopes", [])
            lacking.update({scope: token for scope in scopes if scope not in held and scope not in lacking})
    return lacking


@pytest.mark.parametrize(("operation_id", "scope"), _scoped_operations())
def test_missing_scope_is_refused_with_required_scope(client, policy, tokens_lacking, operation_id, scope):
    method, path, operation = OPERATIONS[operation_id]
    token = tokens_lacking.get(scope)
    if token is None:
        pytest.skip(f"no token lacking {scope} (set BW_PAT_READONLY and BW_PAT_WRITEONLY to widen this check)")
    require(policy, operation_id)
    response = client.with_token(token).request(method, _url(path), json={} if method != "GET" else None)
    if operation.get("x-error-format") == "legacy":  # §3.9: {"error": ...} bodies carry no code
        expect(
            response.status_code == 403,
            "scopes.enforced",
            f"{method} {path}",
            f"a token without {scope} answered {response.status_code}",
            response,
        )
        return
    expect(
        response.status_code == 403 and code_of(response) == "scope_insufficient",
        "scopes.enforced",
        f"{method} {path}",
        f"a token without {scope} answered {response.status_code} {code_of(response)}",
        response,
    )
    expect(
        (body_of(response) or {}).get("required_scope") == scope,
        "scopes.enforced",
        f"{method} {path}",
        f"required_scope is {(body_of(response) or {}).get('required_scope')!r}, not {scope!r}",
        response,
    )


def test_expired_token_gets_token_expired(client, target):
    token = target.tokens.get("expired")
    if not token:
        pytest.skip("no expired token (set BW_PAT_EXPIRED)")
    response = client.with_token(token).get("/v1/tokens/me")
    body = body_of(response) or {}
    expect(
        response.status_code == 401 and body.get("code") == "token_expired",
        "auth.expired",
        "GET /v1/tokens/me",
        f"an expired token answered {response.status_code} {body.get('code')}",
        response,
    )
    expect("expired_at" in body, "auth.expired", "GET /v1/tokens/me", "token_expired without expired_at", response)


def test_revoked_token_gets_auth_required(client, target, session_cookie, mock_only):
    token = target.mint(["runs:read"], user_id=target.tokens["user_id"])
    revoked = client.with_token(None).delete(
        f"/v1/tokens/{_token_id(client, token)}", headers=cookie_header(session_cookie)
    )
    expect(
        revoked.status_code == 204,
        "spec.status",
        "DELETE /v1/tokens/{id}",
        f"revoke answered {revoked.status_code}",
        revoked,
    )
    response = client.with_token(token).get("/v1/runs")
    expect(
        response.status_code == 401 and code_of(response) == "auth_required",
        "auth.revoked",
        "GET /v1/runs",
        f"a revoked token answered {response.status_code} {code_of(response)}",
        response,
    )


def _token_id(client, token: str) -> str:
    rows = client.with_token(token).get("/v1/tokens").json()["data"]
    return next(row["id"] for row in rows if token.endswith(row["last4"]) and token.startswith(row["prefix"]))
