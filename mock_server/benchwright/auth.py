"""Authentication and scope enforcement (§2.0–§2.4).

Who is calling: a PAT (`Authorization: Bearer`), a browser session (cookie
`bw_session`, full access, §2.2) or nobody. What they may call: the operation's
security requirement in the spec, nothing else.

- A PAT of ours that is expired short-circuits with `401 token_expired`, even if
  a session cookie would have worked; a revoked one is `401 auth_required`
  (§2.4). A bearer string that was never a token of ours is not a credential and
  falls through to the cookie, then to anonymous.
- `last_used_at` is bumped on every authenticated request (§2.1).
- A PAT lacking the scope gets `403 scope_insufficient` with `required_scope`;
  on a session-only operation the explanation is in `title` and the bare
  operation name in `detail` (§2.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from ..engine import Principal as BasePrincipal
from ..engine.compile import Operation
from ..policies.problems import Problem
from ..state.clock import rfc3339
from .store import Store, Token, User

SESSION_COOKIE = "bw_session"


@dataclass(slots=True)
class Principal(BasePrincipal):
    """`kind`: "pat" | "session" | "anonymous"."""

    user: User | None = None
    token: Token | None = None

    def __post_init__(self) -> None:
        self.subject = self.user.id if self.user else None
        self.credential_id = self.token.id if self.token else None

    @property
    def authenticated(self) -> bool:
        return self.user is not None

    @property
    def full_access(self) -> bool:
        return self.kind == "session"

    @property
    def cache_key(self) -> str:
        """Idempotency scope (§3.7): the token for PATs, the user for sessions. A PAT's
        scope includes its current hash, so "rotating a PAT invalidates any outstanding
        keys tied to it" although the id rides through the rotation."""
        if self.token is not None:
            return f"token:{self.token.id}:{self.token.hash}"
        return "user:" + (self.user.id if self.user else "anonymous")


ANONYMOUS = Principal(kind="anonymous")


def _bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def authenticate(store: Store, authorization: str | None, cookie: str | None) -> Principal:
    secret = _bearer(authorization)
    if secret is not None:
        token = store.token_for_secret(secret)
        if token is not None:
            now = store.clock.now()
            if token.revoked_at is not None:
                raise Problem(401, "auth_required", "This token has been revoked.")
            if token.expired(now):
                assert token.expires_at is not None
                raise Problem(
                    401,
                    "token_expired",
                    f"This token expired on {token.expires_at.date().isoformat()}. It has not been revoked, "
                    "so extending its expiry in the web app brings it back.",
                    title="API token expired",
                    expired_at=rfc3339(token.expires_at),
                )
            user = store.users.get(token.user_id)
            if user is not None:
                token.last_used_at = now
                return Principal(kind="pat", user=user, token=token)
    if cookie:
        user_id = store.sessions.get(cookie)
        user = store.users.get(user_id) if user_id else None
        if user is not None:
            return Principal(kind="session", user=user)
    return ANONYMOUS


def scope_granted(held: list[str], needed: str) -> bool:
    """Exact scopes, and stored wildcards (`runs:*`) which are still honoured (§2.2)."""
    if needed in held:
        return True
    family = needed.split(":", 1)[0]
    return f"{family}:*" in held or "*" in held


def authorize(op: Operation, principal: Principal) -> None:
    security = op.security
    pat_scopes = security.scopes("pat")
    session = security.accepts("session")
    if security.anonymous and not session and pat_scopes is None:
        return  # open to anyone (the spec document itself)
    if principal.kind == "anonymous":
        if security.anonymous:
            return
        raise Problem(401, "auth_required", "Send 'Authorization: Bearer <token>'.")
    if principal.kind == "session":
        if session:
            return
        raise Problem(403, "forbidden", "This operation is not available to browser sessions.")
    if pat_scopes is None:
        raise Problem(
            403,
            "scope_insufficient",
            op.operation_id,
            title="This operation requires a browser session: tokens cannot mint or change tokens (§2.4)",
        )
    assert principal.token is not None
    for scope in pat_scopes:
        if not scope_granted(principal.token.scopes, scope):
            raise Problem(
                403,
                "scope_insufficient",
                f"This token lacks the '{scope}' scope that {op.operation_id} needs.",
                required_scope=scope,
            )


class BenchwrightAuth:
    """The profile's auth: a PAT bearer, else the `bw_session` cookie, else anonymous."""

    def authenticate(self, request: Request, api: Any) -> Principal:
        headers = request.headers
        cookie = request.cookies.get(SESSION_COOKIE) if "cookie" in headers else None
        return authenticate(api.store, headers.get("authorization"), cookie)

    def authorize(self, op: Operation, principal: Principal, api: Any) -> None:
        authorize(op, principal)
