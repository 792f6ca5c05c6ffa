"""`BenchwrightControl`: Benchwright's own `/__mock` routes (`mock_server/benchwright/control.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .control import MockControl, Token


@dataclass(frozen=True)
class User:
    id: str
    email: str
    tier: str
    balance_cents: int
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Session:
    """A browser session (§2.2): send `cookie` as the `cookie_name` cookie (`bw_session`)."""

    user_id: str
    cookie_name: str
    cookie: str


class BenchwrightControl(MockControl):
    def create_user(
        self,
        *,
        email: str | None = None,
        tier: str | None = None,
        balance_cents: int | None = None,
        admin: bool | None = None,
        team_owner_id: str | None = None,
        quota_overrides: dict[str, int] | None = None,
        cloud_inference: bool | None = None,
    ) -> User:
        """A new account (tier growth and $100 unless told; `quota_overrides` are §13's raised ceilings)."""
        fields = {
            "email": email,
            "tier": tier,
            "balance_cents": balance_cents,
            "admin": admin,
            "team_owner_id": team_owner_id,
            "quota_overrides": quota_overrides,
            "cloud_inference": cloud_inference,
        }
        body = self.call("POST", "/users", fields)
        return User(body["id"], body["email"], body["tier"], body["balance_cents"], body)

    def mint_token(
        self,
        scopes: Sequence[str] = ("full",),
        *,
        user_id: str | None = None,
        label: str | None = None,
        expires_at: str | None = None,
    ) -> Token:
        """A personal access token (§2.4) of `user_id` (the seeded default user unless told)."""
        body = self.call(
            "POST", "/tokens", {"scopes": list(scopes), "user_id": user_id, "label": label, "expires_at": expires_at}
        )
        return Token(body["id"], body["token"], "pat", body)

    def create_session(self, user_id: str | None = None) -> Session:
        body = self.call("POST", "/sessions", {"user_id": user_id})
        return Session(body["user_id"], body["cookie_name"], body["cookie"])

    def finish_run(self, run_id: str, status: str = "ok", score: float | None = None) -> dict[str, Any]:
        """End a run now, emitting what a real finish emits; the run as `GET /v1/runs/{id}` shows it."""
        return self.call("POST", f"/runs/{run_id}/finish", {"status": status, "score": score})

    def pay_topup(self, topup_id: str) -> dict[str, Any]:
        """A top-up (`top_…`, or the checkout `cs_…` of its URL) paid: the ledger and balance move."""
        return self.call("POST", f"/topups/{topup_id}/pay")

    def complete_checkout(self, checkout_id: str) -> dict[str, Any]:
        """A subscription checkout completed, so `verify-subscription` applies the tier."""
        return self.call("POST", f"/checkout/{checkout_id}/complete")

    def kill_operator_chat(self, operator_id: str, death_log: str | None = None) -> dict[str, Any]:
        return self.call("POST", f"/operators/{operator_id}/kill-chat", {"death_log": death_log})
