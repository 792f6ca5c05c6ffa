"""API keys (account class: an API key can never mint a credential, C-19)."""

from __future__ import annotations

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import Credential
from ._common import body, caller, cfg, now, op, store, trimmed, unpaged


def key_json(cred: Credential) -> dict:
    return {
        "id": cred.id,
        "name": cred.name,
        "prefix": cred.token[: len(cred.token) - 20] + "…",
        "setup": cred.setup,
        "revoked": cred.revoked,
        "max_evaluations_per_month": cred.max_evaluations_per_month,
        "org_read": cred.org_read,
        "repo_allowlist": cred.repo_allowlist,
        "created_at": cred.created_at,
    }


@op("create_api_key")
async def create_api_key(ctx: Ctx):
    """Returns the plaintext once; list_api_keys never shows it again."""
    b, who = body(ctx), caller(ctx)
    name = trimmed(b.get("name"))
    if not name:
        raise Refusal(400, "name_required", "Give the key a name.")
    cap = b.get("max_evaluations_per_month")
    if cap is not None and cap < 0:
        raise Refusal(400, "invalid_cap", "max_evaluations_per_month is 0 or more.")
    cred = accounts.mint(
        store(ctx),
        cfg(ctx),
        kind="api_key",
        account_id=who.account.id,
        user_id=who.user.id,
        now=now(ctx),
        name=name,
        max_evaluations_per_month=cap,
        org_read=bool(b.get("org_read")),
        repo_allowlist=b.get("repo_allowlist"),
    )
    return Reply({"api_key": key_json(cred), "key": cred.token}, 201)


@op("get_setup_key")
async def get_setup_key(ctx: Ctx):
    """The account's reusable setup key; a revoked one is replaced only with replace_revoked=true."""
    who, st = caller(ctx), store(ctx)
    current = st.credentials.get(who.account.setup_key_id or "")
    if current is not None and current.revoked:
        if not body(ctx).get("replace_revoked"):
            raise Refusal(
                409, "setup_key_revoked", "The setup key was revoked; pass replace_revoked=true to replace it."
            )
        current = None
    if current is None:
        current = accounts.mint(
            st,
            cfg(ctx),
            kind="api_key",
            account_id=who.account.id,
            user_id=who.user.id,
            now=now(ctx),
            name="SDK setup",
            setup=True,
        )
        who.account.setup_key_id = current.id
    return {"api_key": key_json(current), "key": current.token}


@op("list_api_keys")
async def list_api_keys(ctx: Ctx):
    who = caller(ctx)
    keys = [c for c in store(ctx).credentials.values() if c.kind == "api_key" and c.account_id == who.account.id]
    return unpaged(ctx, [key_json(c) for c in keys])


@op("revoke_api_key")
async def revoke_api_key(ctx: Ctx):
    """The key is refused with 401 credential_revoked from its next request on."""
    who = caller(ctx)
    cred = store(ctx).credentials.get(ctx.path["id"])
    if cred is None or cred.kind != "api_key" or cred.account_id != who.account.id:
        raise Refusal(404, "api_key_not_found", f"API key {ctx.path['id']} was not found.")
    cred.revoked = True
    return {"api_key": key_json(cred)}
