"""GitHub authorization (account class) and repositories (C-18, C-57)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from mock_server.engine import Ctx

from ..model import accounts
from ..model.errors import Refusal
from ..store import Account, GithubInstallation, PendingGithub
from ._common import body, caller, cfg, flag, op, store


def installation_json(inst: GithubInstallation, account: Account) -> dict[str, Any]:
    return {
        "id": inst.id,
        "account_login": inst.account_login,
        "active": account.active_installation == inst.id,
        "repositories": sorted(inst.repositories),
    }


def status_json(ctx: Ctx, account: Account) -> dict[str, Any]:
    st = store(ctx)
    return {
        "connected": bool(account.installations),
        "installations": [installation_json(st.installations[i], account) for i in account.installations],
    }


def _installation(ctx: Ctx, raw: Any) -> GithubInstallation:
    try:
        iid = int(raw)
    except (TypeError, ValueError):
        iid = -1
    inst = store(ctx).installations.get(iid)
    if inst is None:
        raise Refusal(404, "installation_not_found", f"GitHub installation {raw} was not found.")
    return inst


def _bind(ctx: Ctx, account: Account, inst: GithubInstallation) -> dict[str, Any]:
    if inst.id not in account.installations:
        account.installations.append(inst.id)
    account.active_installation = inst.id
    return {"status": "connected", "installation": installation_json(inst, account)}


def _pending(ctx: Ctx, state: str | None, account: Account | None) -> PendingGithub:
    pending = store(ctx).github_pending.get(state or "")
    if pending is None:
        raise Refusal(400, "invalid_state", "Unknown or used state; start again with connect_github.")
    if account is not None and pending.account_id != account.id:
        raise Refusal(403, "state_mismatch", "That state belongs to another account.")
    return pending


@op("connect_github")
async def connect_github(ctx: Ctx):
    st, who = store(ctx), caller(ctx)
    state = "gh_" + accounts.token_digest("github", who.account.id, str(st.seq("github_state")))
    headless = flag(ctx, "headless")
    st.github_pending[state] = PendingGithub(state=state, account_id=who.account.id, headless=headless)
    return {
        "install_url": cfg(ctx).links["install_url"] + "?" + urlencode({"state": state}),
        "state": state,
        "poll_interval": cfg(ctx).simulation["github_poll_interval"],
        "headless": headless,
    }


@op("receive_github_callback")
async def receive_github_callback(ctx: Ctx):
    """GitHub's redirect: records the approved installation against the pending state."""
    b = body(ctx)
    pending = _pending(ctx, b.get("state"), None)
    inst = _installation(ctx, b.get("installation_id"))
    pending.installation_id = inst.id
    return {"received": True, "state": pending.state}


@op("finish_github_connection")
async def finish_github_connection(ctx: Ctx):
    """Pending until GitHub's callback arrived; then binds the installation to the signed-in account."""
    who = caller(ctx)
    pending = _pending(ctx, body(ctx).get("state"), who.account)
    if pending.installation_id is None:
        return {"status": "pending", "poll_interval": cfg(ctx).simulation["github_poll_interval"]}
    del store(ctx).github_pending[pending.state]
    return _bind(ctx, who.account, store(ctx).installations[pending.installation_id])


@op("complete_github_callback")
async def complete_github_callback(ctx: Ctx):
    who, b = caller(ctx), body(ctx)
    pending = _pending(ctx, b.get("state"), who.account)
    inst = _installation(ctx, b.get("installation_id"))
    del store(ctx).github_pending[pending.state]
    return _bind(ctx, who.account, inst)


@op("connection_status")
async def connection_status(ctx: Ctx):
    return status_json(ctx, caller(ctx).account)


@op("activate_installation")
async def activate_installation(ctx: Ctx):
    who = caller(ctx)
    inst = _installation(ctx, ctx.path["installationID"])
    if inst.id not in who.account.installations:
        raise Refusal(404, "installation_not_found", f"GitHub installation {inst.id} is not connected to this account.")
    who.account.active_installation = inst.id
    return status_json(ctx, who.account)


def repositories(ctx: Ctx, all_accounts: bool = True) -> dict[str, tuple[GithubInstallation, list[str]]]:
    """full_name -> (installation, branches) the caller's account can see."""
    who, st = caller(ctx), store(ctx)
    ids = (
        who.account.installations
        if all_accounts
        else [i for i in who.account.installations if i == who.account.active_installation]
    )
    return {
        name: (st.installations[i], branches)
        for i in ids
        for name, branches in st.installations[i].repositories.items()
    }


def repository(ctx: Ctx, owner: str, repo: str) -> tuple[str, GithubInstallation, list[str]]:
    """The repository and its branches, checked against the connection and the key's allowlist."""
    full = f"{owner}/{repo}"
    if not caller(ctx).account.installations:
        raise Refusal(409, "github_not_connected", "Connect GitHub first (connect_github).")
    accounts.require_repo(caller(ctx), full)
    repos = repositories(ctx)
    if full not in repos:
        raise Refusal(404, "repository_not_found", f"{full} is not in a connected GitHub installation.")
    inst, branches = repos[full]
    return full, inst, branches


@op("list_repos")
async def list_repos(ctx: Ctx):
    who = caller(ctx)
    if not who.account.installations:
        raise Refusal(409, "github_not_connected", "Connect GitHub first (connect_github).")
    repos = repositories(ctx, all_accounts=flag(ctx, "all_accounts"))
    return {
        "items": [
            {"full_name": name, "default_branch": branches[0], "private": inst.private, "installation_id": inst.id}
            for name, (inst, branches) in sorted(repos.items())
            if accounts.repo_allowed(who, name)
        ]
    }


@op("list_branches")
async def list_branches(ctx: Ctx):
    full, _, branches = repository(ctx, ctx.path["owner"], ctx.path["repo"])
    return {"items": [{"name": b, "commit_sha": accounts.token_digest(full, b) + "0" * 16} for b in branches]}
