"""Balance and top-ups (§10): the wallet, its ledger, spend controls, Checkout.

Every figure is read from the ledger (`model/ledger.py`): the balance is the
sum of the account's rows, and "spend" is its debits (rows with a negative
delta), so `month_spent` (§10.1), the usage trend (§10.6), the export (§10.7)
and the statement (§10.8) are the same rows bucketed different ways. The
wallet is the payer's (§2.5): a team member reads the owner's.

Stripe is simulated. `createTopup` and `changeSubscription` answer a hosted
Checkout `url` ending in the session id (`cs_test_…`); the payment lands when
the mock is told so: `mark_topup_paid` (the `POST /__mock/topups/{id}/pay`
control route) and `complete_checkout` (`POST /__mock/checkout/{id}/complete`).
"""

from __future__ import annotations

import csv
import html
import io
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from mock_server.benchwright.model import ledger
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.accounts import payer
from mock_server.benchwright.model.rows import BillingControls, CheckoutSession, LedgerRow, Subscription, TopUp
from mock_server.benchwright.resources import handler
from mock_server.benchwright.spec_data import tiers
from mock_server.benchwright.store import Store, User
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.policies.text import comma_items
from mock_server.state.clock import rfc3339
from mock_server.state.ids import hex_token, uuid4

CURRENCY = "USD"
CHECKOUT_BASE = "https://checkout.stripe.com/c/pay/"
ANNUAL = {"year", "yearly", "annual"}
TREND_MONTHS = 6
DEFAULT_CONTROLS = {
    "monthly_cap_cents": None,
    "auto_refill": {"enabled": False, "amount_cents": 2500, "threshold_cents": 500},
    "alert": {"enabled": True, "at_cap_pct": 80},
}
TRANSACTION_COLUMNS = [
    "id",
    "created_at",
    "kind",
    "delta_cents",
    "balance_after_cents",
    "currency",
    "reference_type",
    "reference_id",
    "note",
]
RUN_COLUMNS = [
    "run_id",
    "user_id",
    "created_at",
    "finished_at",
    "status",
    "benchmark_name",
    "model",
    "harness",
    "billed_cents",
    "billed_usd",
]
SEED_NOTES = {"inference_usage": "Cloud inference, 41k tokens", "operator_usage": "Operator machine, 2h"}


# -- money and months ----------------------------------------------------------


def money(cents: int | float | Decimal) -> dict[str, Any]:
    """Whole cents, rounded HALF_UP (§3.3, §10.1)."""
    whole = int(Decimal(str(cents)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return {"amount_cents": whole, "currency": CURRENCY}


def _month_key(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _account_rows(store: Store, account_id: str) -> list[LedgerRow]:
    """The account's ledger rows, oldest first (insertion order breaks ties)."""
    found = [row for row in ledger.rows(store).values() if row.account_id == account_id]
    return [row for _, row in sorted(enumerate(found), key=lambda pair: (pair[1].created_at, pair[0]))]


def spend_by_month(store: Store, account_id: str) -> dict[str, int]:
    """Debits (negative deltas) per calendar month, as positive cents."""
    months: dict[str, int] = {}
    for row in _account_rows(store, account_id):
        if row.delta_cents < 0:
            key = _month_key(row.created_at)
            months[key] = months.get(key, 0) - row.delta_cents
    return months


# -- controls, top-ups, subscriptions ------------------------------------------------


def _controls(store: Store, account: User) -> BillingControls:
    row = store.billing_controls.get(account.id)
    if row is None:
        row = BillingControls(
            account_id=account.id,
            monthly_cap_cents=DEFAULT_CONTROLS["monthly_cap_cents"],
            auto_refill=dict(DEFAULT_CONTROLS["auto_refill"]),
            alert=dict(DEFAULT_CONTROLS["alert"]),
            updated_at=account.created_at or store.clock.now(),
        )
        store.billing_controls[account.id] = row
    return row


def topups(store: Store) -> dict[str, TopUp]:
    return store.topups


def topup_json(row: TopUp) -> dict[str, Any]:
    return {
        "id": "top_" + row.id,
        "status": row.status,
        "amount": money(row.amount_cents),
        "stripe_payment_intent_id": row.stripe_payment_intent_id,
        "created_at": rfc3339(row.created_at),
    }


def _checkout_id() -> str:
    return "cs_test_" + hex_token(24)


def _next_period_end(start: datetime, interval: str) -> datetime:
    months = 12 if interval == "year" else 1
    year, month = _shift_month(start.year, start.month, months)
    return datetime(year, month, 1, tzinfo=UTC)


def subscription(store: Store, user: User) -> Subscription | None:
    """The user's paid subscription, or None on `free` (§10.9).

    Periods roll over lazily against the simulated clock: a subscription set to
    cancel ends at its period end and the tier drops to `free`; otherwise it renews."""
    table = store.subscriptions
    row = table.get(user.id)
    if row is None:
        if user.tier == "free":
            return None
        row = Subscription(
            user_id=user.id,
            tier=user.tier,
            interval="month",
            status="active",
            cancel_at_period_end=False,
            current_period_end=_next_period_end(store.clock.now(), "month"),
        )
        table[user.id] = row
    now = store.clock.now()
    while now >= row.current_period_end:
        if row.cancel_at_period_end:
            user.tier = "free"
            table.pop(user.id, None)
            return None
        row.current_period_end = _next_period_end(row.current_period_end, row.interval)
    return row


def _subscription_json(row: Subscription | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "tier": row.tier,
        "interval": row.interval,
        "status": row.status,
        "cancel_at_period_end": row.cancel_at_period_end,
        "current_period_end": rfc3339(row.current_period_end),
    }


# -- the balance -----------------------------------------------------------------------


def _expand(raw: str | None) -> list[str]:
    wanted = comma_items(raw)
    unknown = [name for name in wanted if name not in _EXPANDERS]
    if unknown:
        raise Problem(
            400,
            "unknown_filter_field",
            f"Unknown expand key(s) {', '.join(unknown)}; expandable: {', '.join(_EXPANDERS)}.",
        )
    return wanted


def usage_trend(store: Store, account_id: str) -> dict[str, Any]:
    """Six monthly buckets ending with the current month (§10.6)."""
    now = store.clock.now()
    spent = spend_by_month(store, account_id)
    months = []
    for back in range(TREND_MONTHS - 1, -1, -1):
        year, month = _shift_month(now.year, now.month, -back)
        key = f"{year:04d}-{month:02d}"
        bucket: dict[str, Any] = {
            "label": datetime(year, month, 1).strftime("%b"),
            "month": key,
            "cents": spent.get(key, 0),
        }
        if back == 0:
            bucket["current"] = True
        months.append(bucket)
    return {
        "current_month_cents": months[-1]["cents"],
        "previous_month_cents": months[-2]["cents"],
        "months": months,
    }


def balance_json(ctx: Ctx, expand: list[str] | None = None) -> dict[str, Any]:
    store = ctx.store
    account = store.account_of(ctx.user)
    controls = _controls(store, account)
    rows = _account_rows(store, account.id)
    cap = controls.monthly_cap_cents
    refill = controls.auto_refill
    updated = max([controls.updated_at, *(row.created_at for row in rows[-1:])])
    body: dict[str, Any] = {
        "object": "balance",
        "balance": money(ledger.balance_cents(store, account.id)),
        "month_spent": money(spend_by_month(store, account.id).get(_month_key(store.clock.now()), 0)),
        "monthly_cap": money(cap) if cap is not None else None,
        "auto_refill": {
            "enabled": refill["enabled"],
            "amount": money(refill["amount_cents"]),
            "threshold": money(refill["threshold_cents"]),
        },
        "alert": dict(controls.alert),
        "updated_at": rfc3339(updated),
        "payer": payer(store, ctx.user),
    }
    for name in expand or []:
        body[name] = _EXPANDERS[name](ctx, account)
    return body


def _expand_topups(ctx: Ctx, account: User) -> list[dict[str, Any]]:
    paid = [t for t in topups(ctx.store).values() if t.account_id == account.id and t.status == "succeeded"]
    paid.sort(key=lambda t: t.created_at, reverse=True)
    return [topup_json(t) for t in paid[:20]]


def _expand_counters(ctx: Ctx, account: User) -> dict[str, int]:
    store = ctx.store
    month = _month_key(store.clock.now())
    rows = _account_rows(store, account.id)
    billed = [r for r in pipeline.runs(store).values() if _payer_id(store, r.user_id) == account.id]
    return {
        "transactions": len(rows),
        "transactions_this_month": sum(1 for r in rows if _month_key(r.created_at) == month),
        "topups_succeeded": sum(
            1 for t in topups(store).values() if t.account_id == account.id and t.status == "succeeded"
        ),
        "runs": len(billed),
        "runs_this_month": sum(1 for r in billed if _month_key(r.created_at) == month),
    }


def _expand_tiers(ctx: Ctx, account: User) -> list[dict[str, Any]]:
    return [{"tier": name, **limits, "current": name == account.tier} for name, limits in tiers(ctx.api).items()]


def _expand_subscription(ctx: Ctx, account: User) -> dict[str, Any] | None:
    return _subscription_json(subscription(ctx.store, account))


_EXPANDERS = {
    "topups": _expand_topups,
    "usage_trend": lambda ctx, account: usage_trend(ctx.store, account.id),
    "counters": _expand_counters,
    "tiers": _expand_tiers,
    "subscription": _expand_subscription,
}


def _payer_id(store: Store, user_id: str) -> str | None:
    user = store.users.get(user_id)
    return store.account_of(user).id if user else None


@handler("getBalance")
async def get_balance(ctx: Ctx) -> Reply:
    """§10.1: the payer's wallet; `payer` is top-level here, not under `meta`."""
    return Reply(balance_json(ctx, _expand(ctx.query.get("expand"))))


@handler("patchBillingControls")
async def patch_billing_controls(ctx: Ctx) -> Reply:
    """§10.5, §2.5: only the owner sets the cap and refill; a member gets `403 forbidden_team_member`."""
    store = ctx.store
    account = store.account_of(ctx.user)
    if account.id != ctx.user.id:
        raise Problem(
            403, "forbidden_team_member", "Only the team owner can change the monthly cap, auto-refill and alerts."
        )
    body = ctx.body or {}
    controls = _controls(store, account)
    if "monthly_cap_cents" in body:
        controls.monthly_cap_cents = body["monthly_cap_cents"]
    controls.auto_refill.update(body.get("auto_refill") or {})
    controls.alert.update(body.get("alert") or {})
    controls.updated_at = store.clock.now()
    return Reply(balance_json(ctx))


@handler("getUsageTrend")
async def get_usage_trend(ctx: Ctx) -> Reply:
    """§10.6: the same debits as `month_spent`, so the current bar and the cap figure agree."""
    return Reply(usage_trend(ctx.store, ctx.store.account_of(ctx.user).id))


# -- top-ups -------------------------------------------------------------------------


@handler("createTopup")
async def create_topup(ctx: Ctx) -> Reply:
    """§10.2: a pending top-up and its hosted Checkout; the balance moves only once it is paid."""
    store = ctx.store
    row = TopUp(
        id=uuid4(),
        account_id=store.account_of(ctx.user).id,
        user_id=ctx.user.id,
        amount_cents=ctx.body["amount_cents"],
        status="pending",
        checkout_session_id=_checkout_id(),
        stripe_payment_intent_id=None,
        created_at=store.clock.now(),
    )
    topups(store)[row.id] = row
    return Reply({"url": CHECKOUT_BASE + row.checkout_session_id})


def _find_topup(store: Store, handle: str) -> TopUp | None:
    """By `top_<uuid>`, bare UUID, or the Checkout session id of its `url`."""
    if handle.startswith("cs_"):
        return next((t for t in topups(store).values() if t.checkout_session_id == handle), None)
    return topups(store).get(handle.removeprefix("top_").lower())


def mark_topup_paid(mock: Any, topup_id: str) -> dict[str, Any]:
    """The payment landed: the top-up succeeds and credits the wallet once.

    Backs `POST /__mock/topups/{id}/pay`; `topup_id` is `top_<uuid>`, the bare
    UUID, or the `cs_…` session id at the end of the Checkout `url`."""
    store = mock.store
    row = _find_topup(store, topup_id)
    if row is None:
        raise Problem(404, "not_found", f"No top-up {topup_id}.")
    if row.status != "succeeded":
        row.status = "succeeded"
        row.stripe_payment_intent_id = "pi_" + hex_token(24)
        ledger.post(
            store,
            row.account_id,
            "stripe_topup",
            row.amount_cents,
            reference_id=row.id,
            reference_type="topup",
        )
    return topup_json(row)


@handler("getTopup")
async def get_topup(ctx: Ctx) -> Reply:
    """§10.3: `top_`-prefixed or bare; anything but a succeeded top-up of yours is a `404`."""
    row = topups(ctx.store).get(ctx.path["id"].removeprefix("top_").lower())
    if row is None or row.account_id != ctx.store.account_of(ctx.user).id or row.status != "succeeded":
        raise not_found("Top-up")
    return Reply(topup_json(row))


# -- the ledger ----------------------------------------------------------------------


@handler("listTransactions")
async def list_transactions(ctx: Ctx) -> Reply:
    """§10.4: newest first, one exact `kind` (or `all`), `limit`/`offset` with a `total_estimate`.

    The `kind` allowlist is enforced by the spec's enum (anything else is
    `400 invalid_argument`); unfiltered pages carry every kind the ledger holds."""
    kind = ctx.query.get("kind")
    rows = _account_rows(ctx.store, ctx.store.account_of(ctx.user).id)[::-1]
    if kind not in (None, "all"):
        rows = [row for row in rows if row.kind == kind]
    limit, offset = ctx.query["limit"], ctx.query.get("offset") or 0
    return Reply(
        {
            "data": [ledger.transaction_json(row) for row in rows[offset : offset + limit]],
            "total_estimate": len(rows),
            "limit": limit,
            "offset": offset,
        }
    )


def _csv(header: list[str], records: list[list[Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(["" if value is None else value for value in record] for record in records)
    return out.getvalue().encode()


@handler("exportBilling")
async def export_billing(ctx: Ctx) -> Reply:
    """§10.7: RFC 4180 CSV, stable column order, oldest row first; the filename is in `Content-Disposition`."""
    store = ctx.store
    account = store.account_of(ctx.user)
    kind = ctx.query.get("type") or "transactions"
    if kind == "runs":
        runs = [r for r in pipeline.runs(store).values() if _payer_id(store, r.user_id) == account.id]
        runs.sort(key=lambda r: r.created_at)
        body = _csv(
            RUN_COLUMNS,
            [
                [
                    r.id,
                    r.user_id,
                    rfc3339(r.created_at),
                    rfc3339(r.finished_at) if r.finished_at else None,
                    r.status,
                    r.benchmark_name,
                    r.model.get("identifier"),
                    r.harness,
                    pipeline.cents_up(pipeline.billed_usd(r)),
                    f"{pipeline.billed_usd(r):.6f}",
                ]
                for r in runs
            ],
        )
    else:
        body = _csv(
            TRANSACTION_COLUMNS,
            [
                [
                    row.id,
                    rfc3339(row.created_at),
                    row.kind,
                    row.delta_cents,
                    row.balance_after_cents,
                    CURRENCY,
                    row.reference_type,
                    row.reference_id,
                    row.note,
                ]
                for row in _account_rows(store, account.id)
            ],
        )
    filename = f"benchwright-{kind}-{store.clock.now().date().isoformat()}.csv"
    return Reply(raw=body, media_type="text/csv", headers={"Content-Disposition": f'attachment; filename="{filename}"'})


# -- the statement -------------------------------------------------------------------


def _dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def statement_html(store: Store, account: User, month: str) -> str:
    """§10.8: header, period range, debits + credits table, running balance, footer."""
    year, number = int(month[:4]), int(month[5:])
    start = datetime(year, number, 1, tzinfo=UTC)
    end = datetime(*_shift_month(year, number, 1), 1, tzinfo=UTC)
    rows = _account_rows(store, account.id)
    opening = sum(r.delta_cents for r in rows if r.created_at < start)
    inside = [r for r in rows if start <= r.created_at < end]
    running = opening
    lines = []
    for row in inside:
        running += row.delta_cents
        debit = _dollars(-row.delta_cents) if row.delta_cents < 0 else ""
        credit = _dollars(row.delta_cents) if row.delta_cents >= 0 else ""
        reference = f"{row.reference_type or ''} {row.reference_id or ''}".strip()
        lines.append(
            "<tr>"
            f"<td>{html.escape(rfc3339(row.created_at)[:10])}</td>"
            f"<td>{html.escape(row.kind)}</td>"
            f"<td>{html.escape(reference)}</td>"
            f"<td>{html.escape(row.note or '')}</td>"
            f'<td class="num">{debit}</td><td class="num">{credit}</td>'
            f'<td class="num">{_dollars(running)}</td>'
            "</tr>"
        )
    debits = -sum(r.delta_cents for r in inside if r.delta_cents < 0)
    credits = sum(r.delta_cents for r in inside if r.delta_cents >= 0)
    last_day = date.fromordinal(end.toordinal() - 1)
    empty = '<tr><td colspan="7">No transactions this period.</td></tr>'
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Benchwright statement {month}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border-bottom: 1px solid #ccc; padding: 4px 8px; text-align: left; }}
.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
</style>
</head>
<body>
<header>
<h1>Benchwright statement</h1>
<p class="account">Account {html.escape(account.email)} ({account.id})</p>
</header>
<section class="period">
<p>Period: <time datetime="{start.date().isoformat()}">{start.date().isoformat()}</time>
to <time datetime="{last_day.isoformat()}">{last_day.isoformat()}</time> (UTC)</p>
<p>Opening balance: <span class="num">{_dollars(opening)}</span></p>
</section>
<table class="transactions">
<thead><tr><th>Date</th><th>Kind</th><th>Reference</th><th>Note</th>
<th class="num">Debit</th><th class="num">Credit</th><th class="num">Balance</th></tr></thead>
<tbody>
{chr(10).join(lines) or empty}
</tbody>
<tfoot><tr><th colspan="4">Totals</th><th class="num">{_dollars(debits)}</th>
<th class="num">{_dollars(credits)}</th><th class="num">{_dollars(running)}</th></tr></tfoot>
</table>
<section class="closing"><p>Closing balance: <span class="num">{_dollars(running)}</span></p></section>
<footer><p>Amounts in {CURRENCY}. Run spend is debited in whole cents as it accrues.
Questions: support@benchwright.ai</p></footer>
</body>
</html>
"""


@handler("getBillingStatement")
async def get_billing_statement(ctx: Ctx) -> Reply:
    """§10.8: `?month=YYYY-MM` (the spec's pattern refuses anything else); omitted means this month."""
    month = ctx.query.get("month") or _month_key(ctx.store.clock.now())
    if not 1 <= int(month[:4]) <= 9998:  # the period must fit the calendar, end included
        raise invalid(f"query parameter 'month': {month} is outside the calendar", field="month")
    page = statement_html(ctx.store, ctx.store.account_of(ctx.user), month)
    return Reply(raw=page.encode(), media_type="text/html")


# -- subscription --------------------------------------------------------------------


def checkout_sessions(store: Store) -> dict[str, CheckoutSession]:
    return store.checkout_sessions


@handler("changeSubscription")
async def change_subscription(ctx: Ctx) -> Reply:
    """§10.9: a paid tier answers a Checkout `url`; `free` cancels at period end (an ack, idempotent)."""
    store = ctx.store
    user = ctx.user
    tier = ctx.body["tier"]
    if tier == "free":
        current = subscription(store, user)
        if current is not None:
            current.cancel_at_period_end = True
        return Reply({"ok": True})
    session = CheckoutSession(
        id=_checkout_id(),
        user_id=user.id,
        tier=tier,
        interval="year" if str(ctx.body.get("interval", "")).lower() in ANNUAL else "month",
        status="open",
        created_at=store.clock.now(),
    )
    checkout_sessions(store)[session.id] = session
    return Reply({"url": CHECKOUT_BASE + session.id})


def complete_checkout(mock: Any, session_id: str) -> dict[str, Any]:
    """The customer paid a subscription Checkout (`POST /__mock/checkout/{id}/complete`).

    Only marks the session complete: the tier is applied by
    `verifySubscription` (or, in production, the webhook)."""
    session = checkout_sessions(mock.store).get(session_id)
    if session is None:
        raise Problem(404, "not_found", f"No checkout session {session_id}.")
    session.status = "complete"
    return {"id": session.id, "status": session.status, "tier": session.tier, "interval": session.interval}


@handler("verifySubscription")
async def verify_subscription(ctx: Ctx) -> Reply:
    """§10.10: apply a completed tier Checkout idempotently; pending says so; another user's is `403`."""
    store = ctx.store
    session = checkout_sessions(store).get(ctx.body["session_id"])
    if session is None:
        raise invalid("session_id: no such Checkout session", field="body.session_id")
    user = ctx.user
    if session.user_id != user.id:
        raise Problem(403, "forbidden", "This Checkout session belongs to another user.")
    if session.status != "complete":
        return Reply({"ok": False, "reason": "pending"})
    if not session.applied:
        user.tier = session.tier
        store.subscriptions[user.id] = Subscription(
            user_id=user.id,
            tier=session.tier,
            interval=session.interval,
            status="active",
            cancel_at_period_end=False,
            current_period_end=_next_period_end(store.clock.now(), session.interval),
        )
        session.applied = True
    return Reply({"ok": True, "tier": session.tier})


# -- fixtures ------------------------------------------------------------------------


def seed_billing(store: Store) -> None:
    """Ledger kinds outside the `kind` filter allowlist (§10.4), on the default account,
    so an unfiltered page shows rows a client cannot filter on. Idempotent."""
    account_id = store.default_user_id
    held = {(row.account_id, row.kind, row.note) for row in ledger.rows(store).values()}
    for (kind, note), cents in zip(SEED_NOTES.items(), (-37, -120), strict=True):
        if (account_id, kind, note) not in held:
            ledger.post(store, account_id, kind, cents, note=note)
