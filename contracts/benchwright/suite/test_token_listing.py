"""§2.4 token listing and introspection, clause by clause (contracts/benchwright/clauses.py).

- `GET /v1/tokens/me` answers who the credential is and lists exactly the scopes this token
  holds (§2.4#1, §2.4#2): read-only, so it runs in every target mode, against the token's
  own row in `GET /v1/tokens`; on the mock also with a freshly minted narrow token.
- `GET /v1/tokens` is metadata: no row carries a token value (§2.4#3); a row whose
  `expires_at` has passed says `expired: true`, and an expired token keeps its row (§2.4#6).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from contracts.benchwright.suite._support import body_of, cookie_header, expect, token_id

SECRET_FIELDS = ("token", "value", "secret")


def _rows(client) -> list[dict]:
    response = client.get("/v1/tokens")
    expect(response.status_code == 200, "spec.status", "GET /v1/tokens", f"answered {response.status_code}", response)
    return (body_of(response) or {}).get("data") or []


def _own_row(rows: list[dict], token: str) -> dict | None:
    found = (r for r in rows if token.startswith(str(r.get("prefix"))) and token.endswith(str(r.get("last4"))))
    return next(found, None)


def _me(client, token: str | None = None) -> tuple[dict, object]:
    response = (client.with_token(token) if token else client).get("/v1/tokens/me")
    expect(response.status_code == 200, "§2.4#1", "GET /v1/tokens/me", f"answered {response.status_code}", response)
    return body_of(response) or {}, response


def test_tokens_me_names_the_caller_and_lists_its_own_scopes(client, target):
    """§2.4#1, §2.4#2: /tokens/me carries who the credential is, and its scope list is this token's."""
    me, response = _me(client)
    missing = [f for f in ("user_id", "scopes") if f not in me]
    expect(not missing, "§2.4#1", "GET /v1/tokens/me", f"the answer lacks {missing}", response)
    row = _own_row(_rows(client), target.credential)
    if row is not None:
        expect(
            sorted(me.get("scopes") or []) == sorted(row.get("scopes") or []),
            "§2.4#2",
            "GET /v1/tokens/me",
            f"/tokens/me lists {me.get('scopes')}; the token's own row lists {row.get('scopes')}",
            response,
        )
    if target.control:
        narrow = target.mint(["runs:read"], user_id=target.tokens["user_id"], label="contract scopes")
        mine, answer = _me(client, narrow)
        expect(
            mine.get("scopes") == ["runs:read"],
            "§2.4#2",
            "GET /v1/tokens/me",
            f"a token minted with ['runs:read'] lists {mine.get('scopes')}",
            answer,
        )


def test_the_list_is_metadata_and_marks_expired_tokens(client, target):
    """§2.4#3, §2.4#6: no listed row carries a value; a row past its `expires_at` says `expired: true`
    (read against the server's own `Date`), and on the mock the seeded expired token keeps its row."""
    response = client.get("/v1/tokens")
    rows = (body_of(response) or {}).get("data") or []
    now = datetime.now(UTC)
    if response.headers.get("date"):
        now = parsedate_to_datetime(response.headers["date"])
    for row in rows:
        leaked = [f for f in SECRET_FIELDS if row.get(f)]
        expect(not leaked, "§2.4#3", "GET /v1/tokens", f"token {row.get('id')} lists {leaked}", response)
        deadline = row.get("expires_at")
        if deadline:
            passed = datetime.fromisoformat(str(deadline).replace("Z", "+00:00")) <= now
            expect(
                row.get("expired") is passed,
                "§2.4#6",
                "GET /v1/tokens",
                f"token {row.get('id')} expires_at {deadline} is listed with expired={row.get('expired')!r}",
                response,
            )
    if target.control and target.tokens.get("user_id"):
        # a token of its own, expired when made: the run's BW_PAT_EXPIRED may have been revoked by an earlier
        # check or a state machine (a revoked token leaves the list, §2.4#5)
        mine = target.mint(["full"], user_id=target.tokens["user_id"], expires_at="2000-01-01", label="expired")
        response = client.get("/v1/tokens")
        expired = _own_row((body_of(response) or {}).get("data") or [], mine)
        expect(
            expired is not None and expired.get("expired") is True,
            "§2.4#6",
            "GET /v1/tokens",
            "the caller's expired token is not listed with expired: true",
            response,
        )


def test_a_revoked_token_leaves_the_list(client, target, session_cookie, mock_only):
    """§2.4#5: revoking (a browser-session DELETE) filters the token out of `GET /v1/tokens` entirely."""
    token = target.mint(["runs:read"], user_id=target.tokens["user_id"], label="contract revoked")
    ident = token_id(client, token)
    gone = client.with_token(None).delete(f"/v1/tokens/{ident}", headers=cookie_header(session_cookie))
    expect(gone.status_code in (200, 204), "spec.status", "DELETE /v1/tokens/{id}", f"{gone.status_code}", gone)
    response = client.get("/v1/tokens")
    listed = [row.get("id") for row in (body_of(response) or {}).get("data") or []]
    expect(ident not in listed, "§2.4#5", "GET /v1/tokens", f"revoked token {ident} is still listed", response)
