"""BenchGen's authentication: one bearer platform token, scoped, hashed at rest.

- No `Authorization` header: anonymous, which only the public listing admits; elsewhere
  401 `not_authenticated` (B-05).
- `Authorization: Bearer <secret>`: looked up by the secret's SHA-256 (B-46). An unknown
  secret, another scheme, or a token revoked at T once the clock reaches
  T + `x-revocation.propagation_seconds` (60, the spec's root) is 401
  `authentication_failed` (B-48), on every operation, the public listing included, as DRF
  authenticates before it checks permissions.
- Each operation's `security` names the scopes the token needs; a missing one is 403
  `permission_denied` with `required_scopes` (B-28, B-44).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from mock_server.engine import ANONYMOUS, Principal, Problem

from .model.state import Store
from .model.tokens import is_live, missing_scopes

SCHEME = "token"
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="api"'}


@dataclass(slots=True)
class TokenPrincipal(Principal):
    """A caller holding a live platform token."""

    user_id: int = 0
    token_id: int = 0
    scopes: tuple[str, ...] = ()


def _refuse(message: str, code: str = "authentication_failed") -> Problem:
    return Problem(401, code, message, headers=dict(CHALLENGE))


def propagation_seconds(spec: dict[str, Any]) -> float:
    return float(spec["x-revocation"]["propagation_seconds"])


class BenchgenAuth:
    def authenticate(self, request: Request, api: Any) -> Principal:
        header = request.headers.get("authorization")
        if header is None:
            return ANONYMOUS
        scheme, _, secret = header.strip().partition(" ")
        if scheme.lower() != "bearer":
            raise _refuse("Invalid token header. Use Authorization: Bearer <token>.")
        secret = secret.strip()
        if not secret or " " in secret:
            raise _refuse("Invalid token header. No credentials provided.")
        store: Store = api.store
        token = store.token_for_secret(secret)
        if token is None:
            raise _refuse("Invalid token.")
        if not is_live(token, api.clock.now(), propagation_seconds(api.spec)):
            raise _refuse("Token has been revoked.")
        return TokenPrincipal(
            kind="token",
            subject=str(token.user_id),
            credential_id=str(token.id),
            user_id=token.user_id,
            token_id=token.id,
            scopes=token.scopes,
        )

    def authorize(self, op: Any, principal: Principal, api: Any) -> None:
        if op.security.anonymous:
            return
        if not isinstance(principal, TokenPrincipal):
            raise _refuse("Authentication credentials were not provided.", code="not_authenticated")
        missing = missing_scopes(principal.scopes, op.security.scopes(SCHEME) or ())
        if missing:
            raise Problem(
                403,
                "permission_denied",
                f"Token lacks scope {' '.join(missing)}.",
                required_scopes=missing,
            )
