"""Platform tokens: hashed at rest, scoped, revocable with a propagation window.

The rule (Security & control, B-48): a token revoked at simulated time T is still
accepted while ``now < T + propagation_seconds`` and refused from
``T + propagation_seconds`` on. The spec fixes ``propagation_seconds`` (60).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from mock_server.state.ids import hex_token

from .rows import Token


def secret_sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret(prefix: str) -> str:
    """A fresh secret: the prefix and 40 hex characters (160 bits)."""
    return prefix + hex_token(40)


def is_live(token: Token, now: datetime, propagation_seconds: float) -> bool:
    """Whether the token is still accepted at `now`."""
    if token.revoked_at is None:
        return True
    return now < token.revoked_at + timedelta(seconds=propagation_seconds)


def missing_scopes(granted: tuple[str, ...], required: tuple[str, ...]) -> list[str]:
    """The required scopes the token lacks. No scope implies another (B-43)."""
    return [scope for scope in required if scope not in granted]
