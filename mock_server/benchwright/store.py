"""The mock's in-memory state: accounts and credentials, and one table per
resource. Everything lives here so `POST /__mock/reset` is a single swap, and
nothing lives in Starlette's lifespan (schemathesis' ASGI transport may run
start-up per request).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mock_server.state.clock import SimClock

TOKEN_PREFIX = "bw_live_pat_"


def new_id() -> str:
    return str(uuid.uuid4())


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class User:
    id: str
    email: str
    tier: str = "growth"
    admin: bool = False
    team_id: str | None = None
    created_at: datetime | None = None
    # admin-raised ceilings (§13: "Admin can raise per-account concurrency and read ceilings")
    quota_overrides: dict[str, int] = field(default_factory=dict)

    @property
    def role(self) -> str:
        return "admin" if self.admin else "user"


@dataclass
class Token:
    id: str
    user_id: str
    label: str
    scopes: list[str]
    hash: str
    prefix: str
    last4: str
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None
    expires_at: datetime | None = None
    spend_cap_cents: int | None = None
    cap_period: str | None = None

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at


def mint_secret() -> str:
    return TOKEN_PREFIX + secrets.token_hex(20)


@dataclass
class Store:
    clock: SimClock
    users: dict[str, User] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    token_ids_by_hash: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)
    default_user_id: str = ""
    # resource tables, keyed by id; each resource module owns its rows' shape
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)

    def table(self, name: str) -> dict[str, Any]:
        return self.tables.setdefault(name, {})

    # -- accounts -------------------------------------------------------
    def add_user(self, email: str | None = None, **fields: Any) -> User:
        user_id = fields.pop("id", None) or new_id()
        user = User(
            id=user_id, email=email or f"user-{user_id[:8]}@example.test", created_at=self.clock.now(), **fields
        )
        self.users[user.id] = user
        return user

    def add_token(
        self,
        user_id: str,
        scopes: list[str],
        label: str = "",
        expires_at: datetime | None = None,
        *,
        secret: str | None = None,
        token_id: str | None = None,
        **fields: Any,
    ) -> tuple[Token, str]:
        """Create a token; returns it and its secret (shown once, §2.1). Fixtures
        pass a fixed `secret` and `token_id`."""
        secret = secret or mint_secret()
        token = Token(
            id=token_id or new_id(),
            user_id=user_id,
            label=label,
            scopes=list(scopes),
            hash=sha256(secret),
            prefix=secret[: len(TOKEN_PREFIX) + 4],
            last4=secret[-4:],
            created_at=self.clock.now(),
            expires_at=expires_at,
            **fields,
        )
        self.tokens[token.id] = token
        self.token_ids_by_hash[token.hash] = token.id
        return token, secret

    def rotate_token(self, token: Token) -> str:
        """Overwrite the stored hash in place (§2.1): the old value stops working."""
        secret = mint_secret()
        self.token_ids_by_hash.pop(token.hash, None)
        token.hash = sha256(secret)
        token.prefix = secret[: len(TOKEN_PREFIX) + 4]
        token.last4 = secret[-4:]
        self.token_ids_by_hash[token.hash] = token.id
        return secret

    def token_for_secret(self, secret: str) -> Token | None:
        token_id = self.token_ids_by_hash.get(sha256(secret))
        return self.tokens.get(token_id) if token_id else None

    def add_session(self, user_id: str) -> str:
        cookie = "sess_" + secrets.token_urlsafe(24)
        self.sessions[cookie] = user_id
        return cookie

    def account_of(self, user: User) -> User:
        """The wallet and quota owner: the team owner for members (§2.5, §13)."""
        if user.team_id:
            team = self.table("teams").get(user.team_id)
            if team is not None:
                owner = self.users.get(team["owner_id"])
                if owner is not None:
                    return owner
        return user
