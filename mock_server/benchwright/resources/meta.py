"""The bundled OpenAPI document (Appendix B) and the caller's rate-limit
counters (§13).

"Read + write quotas are per **account** (not per token ...). Team members count
against the team owner's bucket", and "for team members the counters are the
team's shared bucket, not a private shadow": the counters are read from the
same limiter, for the same account, as the `X-RateLimit-*` headers.
"""

from __future__ import annotations

from mock_server.benchwright.ratelimit import limiter
from mock_server.benchwright.resources import handler
from mock_server.engine import Ctx, Reply
from mock_server.policies.ratelimit import Quota


@handler("getOpenApi")
async def get_openapi(ctx: Ctx) -> Reply:
    return Reply(raw=ctx.api.spec_json, media_type="application/json")


def _counter(quota: Quota) -> dict[str, int]:
    return {
        "limit": quota.limit,
        "count": quota.count,
        "remaining": quota.remaining,
        "reset_seconds": quota.reset_seconds,
        "window_seconds": quota.window_seconds,
    }


@handler("getRateLimits")
async def get_rate_limits(ctx: Ctx) -> Reply:
    account = ctx.store.account_of(ctx.user)
    rate = limiter(ctx.api)
    now = ctx.store.clock.now().timestamp()
    return Reply(
        {
            "user_id": ctx.user.id,
            "read": _counter(rate.quota(account.id, account.tier, "read", now)),
            "write": _counter(rate.quota(account.id, account.tier, "write", now)),
        }
    )
