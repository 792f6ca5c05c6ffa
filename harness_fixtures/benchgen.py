"""`BenchgenControl`: BenchGen's own `/__mock` routes (`mock_server/benchgen/control.py`), standing in
for what the reference does in the web app: users and their credits, tokens, competitions, approvals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .control import MockControl, Token


@dataclass(frozen=True)
class User:
    id: int
    credits: int


class BenchgenControl(MockControl):
    def create_user(self, credits: int | None = None) -> User:
        """A new user (100 credits unless told)."""
        body = self.call("POST", "/users", {"credits": credits})
        return User(body["id"], body["credits"])

    def mint_token(self, scopes: Sequence[str], *, user_id: int | None = None) -> Token:
        """A token with `scopes` (the spec's, e.g. `benchmark:read`, `benchmark:run`) of `user_id`
        (the seeded demo user unless told)."""
        body = self.call("POST", "/tokens", {"scopes": list(scopes), "user_id": user_id})
        return Token(body["id"], body["token"], "token", body)

    def revoke_token(self, token_id: int) -> None:
        """Revoked now: it still works for the 60 s the reference allows, then it is 401."""
        self.call("DELETE", f"/tokens/{token_id}")

    def create_competition(self, name: str, *, auto_approve: bool | None = None, published: bool | None = None) -> int:
        """A competition (published and auto-approving unless told); its id."""
        return self.call("POST", "/competitions", {"name": name, "auto_approve": auto_approve, "published": published})[
            "id"
        ]

    def approve_participant(self, competition_id: int, user_id: int) -> dict[str, Any]:
        return self.call("POST", f"/competitions/{competition_id}/participants/{user_id}/approve")

    def finish_submission(self, run_id: int, *, score: float | None = None, error: str | None = None) -> dict[str, Any]:
        """End a queued run now, with a score (0 to 1) or an error; the run's status view."""
        return self.call("POST", f"/submissions/{run_id}/finish", {"score": score, "error": error})
