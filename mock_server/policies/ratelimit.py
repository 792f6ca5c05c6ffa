"""Per-account read/write quotas by tier (§13).

Fixed windows on the simulated clock. The bucket belongs to the account that
pays (the team owner for members), so every PAT of an account and every team
member share it. Only authenticated requests count, and only they carry the
`X-RateLimit-*` headers. Tier bands come from the spec's `x-tiers`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mock_server.policies.problems import Problem


@dataclass(slots=True)
class Window:
    start: float
    reads: int = 0
    writes: int = 0


@dataclass(slots=True)
class Quota:
    limit: int
    count: int
    remaining: int
    reset_epoch: int
    reset_seconds: int
    window_seconds: int

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_epoch),
        }


class RateLimiter:
    def __init__(self, tiers: dict[str, dict[str, int]], window_seconds: int = 60) -> None:
        self.tiers = tiers
        self.window_seconds = window_seconds
        self.windows: dict[str, Window] = {}

    def _window(self, account_id: str, now: float) -> Window:
        start = math.floor(now / self.window_seconds) * self.window_seconds
        window = self.windows.get(account_id)
        if window is None or window.start != start:
            window = self.windows[account_id] = Window(start)
        return window

    def band(self, tier: str, overrides: dict[str, int] | None = None) -> dict[str, int]:
        """The tier's bands (`x-tiers`), with any admin-raised ceilings on top."""
        band = self.tiers.get(tier) or self.tiers["free"]
        return {**band, **overrides} if overrides else band

    def quota(
        self,
        account_id: str,
        tier: str,
        kind: str,
        now: float,
        overrides: dict[str, int] | None = None,
        window: Window | None = None,
    ) -> Quota:
        window = window or self._window(account_id, now)
        limit = self._limit(tier, kind, overrides)
        count = window.reads if kind == "read" else window.writes
        reset = window.start + self.window_seconds
        return Quota(
            limit=limit,
            count=count,
            remaining=max(0, limit - count),
            reset_epoch=int(reset),
            reset_seconds=max(0, math.ceil(reset - now)),
            window_seconds=self.window_seconds,
        )

    def _limit(self, tier: str, kind: str, overrides: dict[str, int] | None) -> int:
        name = "read_rpm" if kind == "read" else "write_rpm"
        if overrides and name in overrides:
            return overrides[name]
        return (self.tiers.get(tier) or self.tiers["free"])[name]

    def hit(
        self, account_id: str, tier: str, kind: str, now: float, overrides: dict[str, int] | None = None
    ) -> dict[bytes, bytes]:
        """Count one request and answer its `X-RateLimit-*` headers (raw, for the pipeline),
        or raise `429 rate_limited` with `Retry-After`."""
        window = self._window(account_id, now)
        limit = self._limit(tier, kind, overrides)
        count = window.reads if kind == "read" else window.writes
        if count >= limit:
            quota = self.quota(account_id, tier, kind, now, overrides, window)
            headers = quota.headers()
            headers["Retry-After"] = str(max(1, quota.reset_seconds))
            raise Problem(
                429,
                "rate_limited",
                f"{kind.capitalize()} quota of {quota.limit}/min for this account is used up; "
                f"retry in {max(1, quota.reset_seconds)} s.",
                headers=headers,
            )
        if kind == "read":
            window.reads = count + 1
        else:
            window.writes = count + 1
        return {
            b"x-ratelimit-limit": b"%d" % limit,
            b"x-ratelimit-remaining": b"%d" % (limit - count - 1),
            b"x-ratelimit-reset": b"%d" % int(window.start + self.window_seconds),
        }
