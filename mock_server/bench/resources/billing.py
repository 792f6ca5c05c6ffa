"""Plans, payment method, invoices and the subscription (plans are spec data, `x-plans`)."""

from __future__ import annotations

from urllib.parse import urlencode

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import Account, Invoice, Subscription
from ._common import body, caller, cfg, now, op, store


def _plans(ctx: Ctx) -> list[dict]:
    c = cfg(ctx)
    return [
        {
            "id": p,
            **{
                k: c.plan(p)[k]
                for k in (
                    "name",
                    "price_id",
                    "monthly_price_usd",
                    "evaluations_per_month",
                    "model_selection",
                    "self_serve",
                )
            },
        }
        for p in c.plan_order
    ]


def _billing(ctx: Ctx) -> Account:
    """The account billed for the caller; in a workspace only an admin may change it."""
    who, st = caller(ctx), store(ctx)
    ws = accounts.workspace_of(st, who.user.id)
    if ws and ws.members[who.user.id] != "admin":
        raise Refusal(403, "billing_admin_required", "Organization billing requires a workspace admin.")
    return accounts.billing_account(st, who)


def subscription_json(ctx: Ctx, account: Account) -> dict:
    sub = account.subscription
    _, end = accounts.period_bounds(now(ctx))
    return {
        "subscription": {
            "plan": account.plan,
            "price_id": sub.price_id if sub else None,
            "status": sub.status if sub else "none",
            "cancel_at_period_end": bool(sub and sub.cancel_at_period_end),
            "current_period_end": end,
        }
    }


def _price(ctx: Ctx, price_id: str | None) -> str:
    plan = cfg(ctx).price_plan(price_id or "")
    if plan is None:
        raise Refusal(400, "unknown_price", "Unknown price_id; see list_plans.")
    if not cfg(ctx).plan(plan)["self_serve"]:
        raise Refusal(409, "contact_sales", f"The {cfg(ctx).plan(plan)['name']} plan is arranged with sales.")
    return plan


@op("list_plans")
async def list_plans(ctx: Ctx):
    return {"items": _plans(ctx)}


@op("get_payment_method")
async def get_payment_method(ctx: Ctx):
    return {"payment_method": accounts.billing_account(store(ctx), caller(ctx)).payment_method}


@op("list_invoices")
async def list_invoices(ctx: Ctx):
    account = accounts.billing_account(store(ctx), caller(ctx))
    return {
        "items": [
            {"id": i.id, "amount_usd": i.amount_usd, "status": i.status, "plan": i.plan, "created_at": i.created_at}
            for i in account.invoices
        ]
    }


@op("create_checkout")
async def create_checkout(ctx: Ctx):
    """A payment link only: nothing changes until the user pays (C-55)."""
    account, b = _billing(ctx), body(ctx)
    plan = _price(ctx, b.get("price_id"))
    if plan == account.plan:
        raise Refusal(409, "already_on_plan", f"The account is already on {plan}.")
    path = b.get("return_path") or "/settings/billing"
    if not path.startswith("/") or path.startswith("//"):
        raise Refusal(400, "invalid_return_path", "return_path is a path on the Bench app, starting with a single /.")
    sid = f"cs_{store(ctx).seq('checkout')}"
    store(ctx).checkouts[sid] = {"account_id": account.id, "price_id": b["price_id"], "return_path": path}
    url = f"{cfg(ctx).links['checkout_base_url']}/{sid}?" + urlencode({"return_path": path})
    return Reply({"checkout": {"id": sid, "url": url, "price_id": b["price_id"]}}, 201)


@op("change_plan")
async def change_plan(ctx: Ctx):
    """Bills immediately with the payment method on file; the allowance follows the new plan."""
    account, b = _billing(ctx), body(ctx)
    plan = _price(ctx, b.get("price_id"))
    if plan == account.plan:
        raise Refusal(409, "already_on_plan", f"The account is already on {plan}.")
    if account.payment_method is None:
        raise Refusal(
            402,
            "payment_method_required",
            "Add a payment method (create_checkout) before changing plan.",
            billing_url=cfg(ctx).links["billing_url"],
        )
    account.plan = plan
    account.subscription = Subscription(price_id=b["price_id"])
    price = cfg(ctx).plan(plan)["monthly_price_usd"] or 0
    account.invoices.append(
        Invoice(
            id=f"in_{store(ctx).seq('invoice')}", amount_usd=float(price), status="paid", plan=plan, created_at=now(ctx)
        )
    )
    return subscription_json(ctx, account)


@op("get_billing_portal")
async def get_billing_portal(ctx: Ctx):
    account = _billing(ctx)
    query = {"account": account.id}
    if ctx.raw_query.get("price_id"):
        if cfg(ctx).price_plan(ctx.raw_query["price_id"]) is None:
            raise Refusal(400, "unknown_price", "Unknown price_id; see list_plans.")
        query["upgrade_to"] = ctx.raw_query["price_id"]
    return {"url": f"{cfg(ctx).links['portal_base_url']}?" + urlencode(query)}


@op("cancel_subscription")
async def cancel_subscription(ctx: Ctx):
    account = _billing(ctx)
    if account.subscription is None:
        raise Refusal(409, "no_subscription", "There is no paid subscription to cancel.")
    if account.subscription.cancel_at_period_end:
        raise Refusal(409, "already_canceling", "Renewal is already canceled.")
    account.subscription.cancel_at_period_end = True
    return subscription_json(ctx, account)


@op("reactivate_subscription")
async def reactivate_subscription(ctx: Ctx):
    account = _billing(ctx)
    if account.subscription is None:
        raise Refusal(409, "no_subscription", "There is no paid subscription to reactivate.")
    if not account.subscription.cancel_at_period_end:
        raise Refusal(409, "not_canceling", "Renewal is not canceled.")
    account.subscription.cancel_at_period_end = False
    return subscription_json(ctx, account)
