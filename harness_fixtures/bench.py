"""`BenchControl`: the Bench platform mock's own `/__mock` routes (`mock_server/bench/control.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .control import MockControl, Token


@dataclass(frozen=True)
class Account:
    id: str
    plan: str


class BenchControl(MockControl):
    def create_account(self, plan: str | None = None, *, allowance: int | None = None) -> Account:
        """A new account on `plan` (free unless told); `allowance`: the evaluations it may start this period."""
        body = self.call("POST", "/accounts", {"plan": plan, "allowance": allowance})
        return Account(body["id"], body["plan"])

    def mint_token(self, kind: str = "api_key", *, account_id: str | None = None) -> Token:
        """A credential of `kind` (`api_key`, `sdk_key`, `oauth` or `session`) of `account_id` (`acct_growth`,
        which owns the seeded system 123, unless told). `sdk_key` is an API key spelt `bench_sk_dev_...`, the
        form the tracing client `bench_sdk.Bench` accepts."""
        body = self.call("POST", "/tokens", {"kind": kind, "account_id": account_id})
        return Token(body["id"], body["token"], body["kind"], body)

    def finish_evaluation(self, run_id: int, status: str = "completed") -> dict[str, Any]:
        """End a queued or running evaluation now (`completed` or `failed`); the run."""
        return self.call("POST", f"/evaluations/{run_id}/finish", {"status": status})["run"]
