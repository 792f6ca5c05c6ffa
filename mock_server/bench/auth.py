"""Bench auth classes (C-17–C-22): `public`, `credential` (API key, OAuth credential or session) and
`account` (OAuth credential or session; an API key is refused with 403 account_authorization_required).

The security schemes of the spec name the credential kinds: `api_key`, `oauth_account`, `session`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mock_server.engine import ANONYMOUS, Principal, Problem

SCHEME = {"api_key": "api_key", "oauth": "oauth_account", "session": "session"}


@dataclass(slots=True)
class BenchPrincipal(Principal):
    account_id: str | None = None
    refusal: tuple[str, str] | None = None  # (code, message) of a bearer that is not a usable credential


def _bearer(request: Any) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else ""


class BenchAuth:
    def authenticate(self, request: Any, api: Any) -> Principal:
        token = _bearer(request)
        if token is None:
            return ANONYMOUS
        store = api.store
        env = store.config.environment
        cred_id = store.tokens.get(token)
        if cred_id is None:
            if token in store.authkit:
                return BenchPrincipal(
                    kind="invalid",
                    refusal=(
                        "invalid_credential",
                        "An AuthKit token is not a Bench credential; exchange it with exchange_oauth_token.",
                    ),
                )
            if any(token.startswith(p) for p in env["other_prefixes"]):
                return BenchPrincipal(
                    kind="invalid",
                    refusal=(
                        "wrong_environment",
                        f"This credential belongs to another environment; this is {env['name']}.",
                    ),
                )
            return BenchPrincipal(
                kind="invalid", refusal=("invalid_credential", "The bearer token is not a Bench credential.")
            )
        cred = store.credentials[cred_id]
        if cred.revoked:
            return BenchPrincipal(
                kind="invalid", credential_id=cred.id, refusal=("credential_revoked", "This credential was revoked.")
            )
        if cred.expires_at is not None and cred.expires_at <= api.clock.now():
            return BenchPrincipal(
                kind="invalid", refusal=("invalid_credential", "This credential has expired; authenticate again.")
            )
        return BenchPrincipal(kind=cred.kind, subject=cred.user_id, credential_id=cred.id, account_id=cred.account_id)

    def authorize(self, op: Any, principal: Principal, api: Any) -> None:
        """Public operations ignore credentials; the others need one whose kind the spec's security lists."""
        if op.security.anonymous:
            return
        if principal.kind == "anonymous":
            raise Problem(401, "unauthorized", "Provide a Bench credential or authenticate through MCP OAuth.")
        if principal.kind == "invalid":
            code, message = principal.refusal  # type: ignore[attr-defined,misc]
            raise Problem(401, code, message)
        if not op.security.accepts(SCHEME[principal.kind]):
            raise Problem(
                403,
                "account_authorization_required",
                "This operation needs Bench OAuth account authorization or a session; "
                "a scoped API key is insufficient.",
            )
