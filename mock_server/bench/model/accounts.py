"""Accounts, credentials, plans and the evaluation allowance (C-17–C-22, C-47, C-49, C-54–C-57)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..store import Account, Credential, Store, User, Workspace
from .config import Config
from .errors import Refusal

ACCOUNT_KINDS = ("oauth", "session")


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling: the credential row and its account and user."""

    credential: Credential
    account: Account
    user: User

    @property
    def kind(self) -> str:
        return self.credential.kind

    @property
    def account_authority(self) -> bool:
        return self.credential.kind in ACCOUNT_KINDS


def token_digest(*parts: str) -> str:
    """A fixed, reproducible token tail (no randomness: tokens are the same on every start)."""
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:24]


def mint(
    store: Store,
    cfg: Config,
    *,
    kind: str,
    account_id: str,
    user_id: str,
    now: datetime,
    name: str = "",
    sdk: bool = False,
    **extra: Any,
) -> Credential:
    """A new credential of `kind` for the account, with a deterministic token; `sdk`: an API key spelt for the
    tracing client (the spec's `sdk_key_prefix`, which `bench_sdk.Bench` requires)."""
    n = store.seq("credential")
    label = {"api_key": "key", "oauth": "oauth", "session": "session"}[kind]
    prefix = cfg.environment["sdk_key_prefix"] if sdk and kind == "api_key" else cfg.environment["credential_prefix"]
    token = f"{prefix}{label}_{token_digest(kind, account_id, str(n))}"
    ttl = {"oauth": cfg.oauth_ttl, "session": cfg.session_ttl}.get(kind)
    cred = Credential(
        id=f"cred_{n}",
        token=token,
        kind=kind,
        account_id=account_id,
        user_id=user_id,
        name=name,
        created_at=now,
        expires_at=now + timedelta(seconds=ttl) if ttl else None,
        **extra,
    )
    store.credentials[cred.id] = cred
    store.tokens[token] = cred.id
    return cred


def new_account(
    store: Store, *, plan: str, now: datetime, email: str | None = None, name: str | None = None
) -> Account:
    """An account with its one user (personal accounts; workspaces group them)."""
    n = store.seq("account")
    account = Account(id=f"acct_{n}", plan=plan)
    store.accounts[account.id] = account
    user = User(
        id=f"usr_{n}",
        email=email or f"user{n}@example.test",
        name=name or f"User {n}",
        account_id=account.id,
    )
    store.users[user.id] = user
    return account


def user_of(store: Store, account_id: str) -> User:
    return next(u for u in store.users.values() if u.account_id == account_id)


def workspace_of(store: Store, user_id: str) -> Workspace | None:
    return next((w for w in store.workspaces.values() if user_id in w.members), None)


def tenant_of(store: Store, caller: Caller) -> str:
    """Whose resources the caller sees: its workspace's, or its own account's."""
    ws = workspace_of(store, caller.user.id)
    return ws.id if ws else caller.account.id


def billing_account(store: Store, caller: Caller) -> Account:
    """The account whose plan and evaluation balance the caller uses (the workspace billing holder's)."""
    ws = workspace_of(store, caller.user.id)
    if ws:
        holder = store.users[ws.billing_holder]
        return store.accounts[holder.account_id]
    return caller.account


def period_key(now: datetime) -> str:
    return f"{now.year:04d}-{now.month:02d}"


def period_bounds(now: datetime) -> tuple[datetime, datetime]:
    start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return start, end


def allowance(cfg: Config, account: Account, now: datetime) -> dict[str, Any]:
    limit = (
        account.limit_override
        if account.limit_override is not None
        else cfg.plan(account.plan)["evaluations_per_month"]
    )
    used = account.usage.get(period_key(now), 0)
    start, end = period_bounds(now)
    return {
        "plan": account.plan,
        "limit": limit,
        "used": used,
        "remaining": None if limit is None else max(0, limit - used),
        "period_start": start,
        "period_end": end,
    }


def next_plan(cfg: Config, plan_id: str, needs: str | None = None) -> str | None:
    """The first plan after `plan_id` (optionally: the first that has the entitlement `needs`)."""
    order = cfg.plan_order
    for candidate in order[order.index(plan_id) + 1 :]:
        if needs is None or cfg.plan(candidate).get(needs):
            return candidate
    return None


def plan_limit(cfg: Config, account: Account, message: str, required_plan: str | None, **fields: Any) -> Refusal:
    """402 plan_limit with the four documented fields (C-54); payment is the developer's choice (C-55)."""
    target = cfg.plan(required_plan) if required_plan else None
    return Refusal(
        402,
        "plan_limit",
        message,
        pricing_url=cfg.links["pricing_url"],
        upgrade_url=cfg.links["upgrade_url"] + (f"?plan={required_plan}" if required_plan else ""),
        billing_url=cfg.links["billing_url"],
        payment_confirmation_required=bool(target and target.get("self_serve")),
        required_plan=required_plan,
        current_plan=account.plan,
        **fields,
    )


def require_plan(cfg: Config, account: Account, plans: list[str], what: str) -> None:
    """Plan-limited operations (`x-plan-required` in the spec)."""
    if account.plan not in plans:
        raise plan_limit(
            cfg, account, f"{what} requires the {' or '.join(p.capitalize() for p in plans)} plan.", plans[0]
        )


def model_selection(cfg: Config, account: Account) -> bool:
    return bool(cfg.plan(account.plan).get("model_selection"))


def require_model_selection(cfg: Config, account: Account, what: str) -> None:
    if not model_selection(cfg, account):
        raise plan_limit(
            cfg,
            account,
            f"{what} requires the model-selection entitlement.",
            next_plan(cfg, account.plan, "model_selection"),
        )


def spend(store: Store, cfg: Config, caller: Caller, now: datetime, count: int = 1) -> None:
    """Consume `count` evaluations (C-49). Key cap first (C-56: manage_key_url, no upgrade fields), then the plan."""
    if count <= 0:
        return
    key = period_key(now)
    cred = caller.credential
    if cred.kind == "api_key" and cred.max_evaluations_per_month is not None:
        used = cred.evaluations.get(key, 0)
        if used + count > cred.max_evaluations_per_month:
            raise Refusal(
                403,
                "api_key_cap_reached",
                f"This API key may start {cred.max_evaluations_per_month} evaluations a month; "
                "raise its cap to continue.",
                manage_key_url=cfg.links["manage_key_url"],
                limit=cred.max_evaluations_per_month,
            )
    account = billing_account(store, caller)
    state = allowance(cfg, account, now)
    if state["remaining"] is not None and state["remaining"] < count:
        raise plan_limit(
            cfg,
            account,
            "The evaluation allowance for this period is used up.",
            next_plan(cfg, account.plan),
            limit=state["limit"],
        )
    account.usage[key] = account.usage.get(key, 0) + count
    if cred.kind == "api_key":
        cred.evaluations[key] = cred.evaluations.get(key, 0) + count


def repo_allowed(caller: Caller, repo_full_name: str) -> bool:
    allow = caller.credential.repo_allowlist
    return allow is None or caller.credential.kind != "api_key" or repo_full_name in allow


def require_repo(caller: Caller, repo_full_name: str) -> None:
    """C-57: a repository outside the key's allowlist."""
    if not repo_allowed(caller, repo_full_name):
        raise Refusal(403, "repository_not_allowed", f"This credential may not use the repository {repo_full_name}.")


def capabilities(store: Store, cfg: Config, caller: Caller, now: datetime, origin: str) -> dict[str, Any]:
    account = billing_account(store, caller)
    cred = caller.credential
    links = {k: cfg.links[k] for k in ("pricing_url", "upgrade_url", "billing_url", "manage_key_url")}
    links["operations_url"] = origin + "/api/headless/operations"
    links["allowance_url"] = origin + "/api/evaluation-allowance"
    limits = None
    if cred.kind == "api_key":
        limits = {
            "max_evaluations_per_month": cred.max_evaluations_per_month,
            "evaluations_this_month": cred.evaluations.get(period_key(now), 0),
        }
    allow = cred.repo_allowlist if cred.kind == "api_key" else None
    return {
        "credential": {
            "kind": cred.kind,
            "id": cred.id,
            "account_authority": caller.account_authority,
            "can_mint_credentials": caller.account_authority,
        },
        "plan": {"id": account.plan, "name": cfg.plan(account.plan)["name"]},
        "model_selection": {"entitled": model_selection(cfg, account), "providers": list(account.model_providers)},
        "repository_scope": {"all_repositories": allow is None, "repositories": list(allow or [])},
        "api_key_limits": limits,
        "links": links,
    }
