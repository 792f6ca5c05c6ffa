"""Benchwright's rate-limit step (§13): per paying account, by tier.

The bucket belongs to the account that pays (the team owner for members), so
every PAT of an account and every team member share it. Only authenticated
requests count, and only they carry the `X-RateLimit-*` headers. GET and HEAD
are reads, everything else writes. Bands come from the spec's `x-tiers`, with
any admin-raised ceilings on top."""

from __future__ import annotations

from typing import Any

from ..policies.ratelimit import RateLimiter
from .spec_data import tiers, window_seconds


class TierRateLimit:
    def __init__(self, api: Any) -> None:
        self.api = api
        self.limiter = RateLimiter(tiers(api), window_seconds(api))

    def hit(self, principal: Any, method: str) -> dict[bytes, bytes]:
        user = getattr(principal, "user", None)
        if user is None:
            return {}
        store = self.api.store
        account = store.account_of(user)
        return self.limiter.hit(
            account.id,
            account.tier,
            "read" if method in ("GET", "HEAD") else "write",
            store.clock.now().timestamp(),
            account.quota_overrides,
        )

    def reset(self) -> None:
        self.limiter.windows.clear()


class AccountLimiter:
    """The limiter as the counters read it (`GET /v1/users/me/rate-limits`): an account's
    quota includes its admin-raised ceilings, as the `X-RateLimit-*` headers' does."""

    def __init__(self, api: Any) -> None:
        self.api = api
        self.limiter: RateLimiter = api.rate_limit.limiter

    def band(self, tier: str, overrides: dict[str, int] | None = None) -> dict[str, int]:
        return self.limiter.band(tier, overrides)

    def quota(self, account_id: str, tier: str, kind: str, now: float, overrides: dict[str, int] | None = None):
        if overrides is None:
            account = self.api.store.users.get(account_id)
            overrides = account.quota_overrides if account is not None else None
        return self.limiter.quota(account_id, tier, kind, now, overrides)


def limiter(api: Any) -> AccountLimiter:
    return AccountLimiter(api)
