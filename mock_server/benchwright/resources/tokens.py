"""Personal access tokens (§2.1, §2.4): identity, list, mint, cap, rotate, revoke.

"Token **mutation** (create, spend-cap patch, rotate, delete) is
browser-session-only": the spec marks those operations `session` only, so the
engine answers a PAT with `403 scope_insufficient` before any handler here runs.
"The secret is never echoed on list responses. The full secret is returned
exactly once, in the `token` field of the create response and the rotate
response."
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mock_server.benchwright.model import accounts, ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.expiry import parse_expiry
from mock_server.benchwright.resources import handler
from mock_server.benchwright.spec_data import all_scopes
from mock_server.benchwright.store import Store, Token
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import invalid, not_found
from mock_server.state.clock import rfc3339

DEFAULT_CAP_PERIOD = "month"


# -- spend ----------------------------------------------------------------------


def period_start(now: datetime, period: str) -> datetime | None:
    """Start of the current `day` or `month` (UTC); `lifetime` has none."""
    now = now.astimezone(UTC)
    if period == "day":
        return now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return None


def spent_cents(store: Store, token: Token, period: str) -> int:
    """What runs launched with this token spent in the current `period`: the
    ledger's run debits for those runs, dated inside the window (§2.4)."""
    runs = {run.id for run in pipeline.runs(store).values() if run.token_id == token.id}
    start = period_start(store.clock.now(), period)
    return sum(
        -row.delta_cents
        for row in ledger.rows(store).values()
        if row.reference_type == "run" and row.reference_id in runs and (start is None or row.created_at >= start)
    )


def spend_period(token: Token) -> str:
    return token.cap_period or DEFAULT_CAP_PERIOD


# -- representation ---------------------------------------------------------------


def token_row(store: Store, token: Token) -> dict[str, Any]:
    period = spend_period(token)
    return {
        "id": token.id,
        "label": token.label,
        "scopes": list(token.scopes),
        "prefix": token.prefix,
        "last4": token.last4,
        "created_at": rfc3339(token.created_at),
        "last_used_at": rfc3339(token.last_used_at) if token.last_used_at else None,
        "spend_cap_cents": token.spend_cap_cents,
        "cap_period": token.cap_period,
        "spent_cents_period": spent_cents(store, token, period),
        "spend_period": period,
        "expires_at": rfc3339(token.expires_at) if token.expires_at else None,
        "expired": token.expired(store.clock.now()),
    }


def own_token(ctx: Ctx) -> Token:
    """One of the caller's live tokens; a revoked or foreign one is `404`."""
    token = ctx.store.tokens.get(ctx.path["id"])
    if token is None or token.user_id != ctx.user.id or token.revoked_at is not None:
        raise not_found("Token")
    return token


def _expiry(raw: str | None, now: datetime) -> datetime | None:
    """ "The value must be in the future: to retire a token now, revoke it." """
    if raw is None:
        return None
    deadline = parse_expiry(raw)
    if deadline <= now:
        raise invalid(
            f"expires_at: {rfc3339(deadline)} is not in the future; to retire a token now, revoke it",
            field="expires_at",
        )
    return deadline


def _cap(body: dict[str, Any], cap: int | None, period: str | None) -> tuple[int | None, str | None]:
    """The (cap, period) a body asks for over the current ones. A period belongs
    to a cap (default `month`), so a period without a cap is refused."""
    cap = body.get("spend_cap_cents", cap)
    if cap is None:
        if "cap_period" in body:
            raise invalid("cap_period: needs a spend cap; send spend_cap_cents with it", field="cap_period")
        return None, None
    return cap, body.get("cap_period") or period or DEFAULT_CAP_PERIOD


# -- handlers ---------------------------------------------------------------------


@handler("getTokenMe")
async def get_token_me(ctx: Ctx) -> Reply:
    """Auth type, user id, email, role, full-access flag and the scope list (§2.4);
    a browser session is full-access, so it holds every scope (§2.2)."""
    principal = ctx.principal
    scopes = principal.token.scopes if principal.token is not None else all_scopes(ctx.api)
    return Reply(
        {
            "auth_type": principal.kind,
            "user_id": ctx.user.id,
            "email": ctx.user.email,
            "role": ctx.user.role,
            "full_access": principal.full_access,
            "scopes": list(scopes),
        }
    )


@handler("listTokens")
async def list_tokens(ctx: Ctx) -> Reply:
    """The caller's tokens, metadata only; "revoked tokens are filtered out of the
    list entirely", expired ones stay with `expired: true` (§2.4)."""
    store = ctx.store
    mine = [t for t in store.tokens.values() if t.user_id == ctx.user.id and t.revoked_at is None]
    mine.sort(key=lambda t: (t.created_at, t.id))
    return Reply({"data": [token_row(store, t) for t in mine], "meta": {"payer": accounts.payer(store, ctx.user)}})


@handler("createToken")
async def create_token(ctx: Ctx) -> Reply:
    """Scopes are checked against the known list by the spec's `Scope` enum, which
    also refuses wildcards (§2.2). The cap period defaults to `month`."""
    body = ctx.body
    store = ctx.store
    expires_at = _expiry(body.get("expires_at"), store.clock.now())
    cap, period = _cap(body, None, None)
    token, secret = store.add_token(
        ctx.user.id,
        list(dict.fromkeys(body["scopes"])),
        label=body["label"],
        expires_at=expires_at,
        spend_cap_cents=cap,
        cap_period=period,
    )
    return Reply({**token_row(store, token), "token": secret}, status=201)


@handler("patchToken")
async def patch_token(ctx: Ctx) -> Reply:
    """ "`{"spend_cap_cents": null}` clears both the cap and its period";
    `{"expires_at": null}` clears the deadline; fields left out are unchanged."""
    token = own_token(ctx)
    body = ctx.body
    cap, period = _cap(body, token.spend_cap_cents, token.cap_period)
    if "expires_at" in body:
        token.expires_at = _expiry(body["expires_at"], ctx.store.clock.now())
    token.spend_cap_cents, token.cap_period = cap, period
    return Reply(token_row(ctx.store, token))


@handler("rotateToken")
async def rotate_token(ctx: Ctx) -> Reply:
    """ "It replaces the *secret*, not the *grant*": id, label, scopes, cap and
    expiry ride through, so an expired token rotates to a value that still does
    not authenticate, and the response says `expired: true` (§2.4)."""
    token = own_token(ctx)
    secret = ctx.store.rotate_token(token)
    return Reply({**token_row(ctx.store, token), "token": secret})


@handler("revokeToken")
async def revoke_token(ctx: Ctx) -> Reply:
    """Soft delete: `revoked_at` is stamped for audit; the next request with the
    token gets `401 auth_required` (§2.1, §2.4)."""
    token = own_token(ctx)
    token.revoked_at = ctx.store.clock.now()
    return Reply(status=204)


@handler("getTokenSpending")
async def get_token_spending(ctx: Ctx) -> Reply:
    """ "The same number the list response carries inline as `spent_cents_period`"
    (§2.4): without `period`, the token's own `spend_period`."""
    token = own_token(ctx)
    period = ctx.query.get("period") or spend_period(token)
    return Reply(
        {
            "token_id": token.id,
            "period": period,
            "spent_cents": spent_cents(ctx.store, token, period),
            "spend_cap_cents": token.spend_cap_cents,
            "cap_period": token.cap_period,
        }
    )
