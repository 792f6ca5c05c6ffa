"""Public authentication operations and the signed-in user (C-17–C-22, C-66)."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlencode

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import PendingLogin, User
from ._common import body, caller, cfg, now, op, spec_op, store, trimmed


def _session(ctx: Ctx, user: User) -> dict:
    cred = accounts.mint(
        store(ctx), cfg(ctx), kind="session", account_id=user.account_id, user_id=user.id, now=now(ctx)
    )
    return {"session_token": cred.token, "expires_at": cred.expires_at, "user": user_json(user)}


def user_json(user: User) -> dict:
    return {
        "id": user.id,
        "email": user.email,
        "name": user.name,
        "email_verified": user.email_verified,
        "onboarded": user.onboarded,
        "onboarding_generation": user.onboarding_generation,
    }


def _verified_or_pending(ctx: Ctx, user: User) -> dict:
    if not user.email_verified:
        token = "pending_" + accounts.token_digest("pending", user.id, str(store(ctx).seq("pending")))
        store(ctx).pending_verifications[token] = user.id
        raise Refusal(
            403,
            "email_verification_required",
            "Verify the email address with the code that was sent, then call verify_email.",
            pending_authentication_token=token,
        )
    return _session(ctx, user)


@op("get_login_url")
async def get_login_url(ctx: Ctx):
    provider = ctx.raw_query.get("provider") or cfg(ctx).login_providers[0]
    if provider not in cfg(ctx).login_providers:
        raise Refusal(400, "unknown_provider", f"provider is one of {', '.join(cfg(ctx).login_providers)}.")
    st = store(ctx)
    state = "state_" + accounts.token_digest("login", str(st.seq("login")))
    challenge = ctx.raw_query.get("challenge")
    st.logins[state] = PendingLogin(state=state, provider=provider, challenge=challenge, created_at=now(ctx))
    query = {
        "provider": provider,
        "state": state,
        **({"code_challenge": challenge, "code_challenge_method": "S256"} if challenge else {}),
    }
    return {"url": cfg(ctx).links["login_url"] + "?" + urlencode(query), "state": state, "provider": provider}


@op("complete_login")
async def complete_login(ctx: Ctx):
    """The state must come from get_login_url; with a challenge, the verifier must match it (S256)."""
    b, st = body(ctx), store(ctx)
    pending = st.logins.get(b.get("state") or "")
    if pending is None:
        raise Refusal(400, "invalid_state", "Unknown or used login state; start again with get_login_url.")
    if pending.challenge:
        digest = hashlib.sha256((b.get("verifier") or "").encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != pending.challenge:
            raise Refusal(400, "invalid_verifier", "The PKCE verifier does not match the challenge.")
    user_id = st.login_codes.get(b.get("code") or "")
    if user_id is None:
        raise Refusal(400, "invalid_code", "The identity provider's code is not valid.")
    del st.logins[pending.state]
    return _verified_or_pending(ctx, st.users[user_id])


@op("login_with_password")
async def login_with_password(ctx: Ctx):
    b, st = body(ctx), store(ctx)
    user = next((u for u in st.users.values() if u.email == (b.get("email") or "").lower()), None)
    if user is None or user.password is None or user.password != b.get("password"):
        raise Refusal(401, "invalid_login", "Email or password is wrong.")
    return _verified_or_pending(ctx, user)


@op("verify_email")
async def verify_email(ctx: Ctx):
    b, st = body(ctx), store(ctx)
    user_id = st.pending_verifications.get(b.get("pending_authentication_token") or "")
    if user_id is None:
        raise Refusal(400, "invalid_pending_token", "Unknown pending authentication token; log in again.")
    if st.verification_codes.get(user_id) != b.get("code"):
        raise Refusal(400, "invalid_code", "The verification code is not valid.")
    user = st.users[user_id]
    user.email_verified = True
    del st.pending_verifications[b["pending_authentication_token"]]
    return _session(ctx, user)


@op("logout")
async def logout(ctx: Ctx):
    """Revokes the session that sent the request, if any (the clients send no credential to public operations)."""
    cred_id = ctx.principal.credential_id
    cred = store(ctx).credentials.get(cred_id) if cred_id else None
    if cred is not None and cred.kind == "session":
        cred.revoked = True
        return {"logged_out": True}
    return {"logged_out": False}


@op("exchange_oauth_token")
async def exchange_oauth_token(ctx: Ctx):
    """C-20: an AuthKit token with the configured MCP resource audience becomes a Bench OAuth account credential."""
    st, c = store(ctx), cfg(ctx)
    token = st.authkit.get(body(ctx)["token"])
    if token is None:
        raise Refusal(401, "invalid_token", "Not an AuthKit token this deployment issued.")
    if token.audience != c.audience:
        raise Refusal(
            401, "invalid_audience", f"The token's audience must be {c.audience}.", expected_audience=c.audience
        )
    if token.expires_at <= now(ctx):
        raise Refusal(401, "token_expired", "The AuthKit token has expired; obtain a new one.")
    user = st.users[token.user_id]
    cred = accounts.mint(st, c, kind="oauth", account_id=user.account_id, user_id=user.id, now=now(ctx), name="mcp")
    return Reply(
        {
            "credential": cred.token,
            "token_type": "bearer",
            "expires_at": cred.expires_at,
            "account_id": user.account_id,
        },
        201,
    )


def whoami_json(ctx: Ctx) -> dict:
    who = caller(ctx)
    ws = accounts.workspace_of(store(ctx), who.user.id)
    return {
        "user": user_json(who.user),
        "account": {"id": who.account.id, "plan": accounts.billing_account(store(ctx), who).plan},
        "credential": {"kind": who.kind, "id": who.credential.id},
        "workspace": {"id": ws.id, "name": ws.name, "role": ws.members[who.user.id]} if ws else None,
    }


@op("whoami")
async def whoami(ctx: Ctx):
    return whoami_json(ctx)


@op("complete_onboarding")
async def complete_onboarding(ctx: Ctx):
    """A stale generation (not the one whoami reports) is rejected."""
    user = caller(ctx).user
    if body(ctx).get("generation") != user.onboarding_generation:
        raise Refusal(
            409,
            "stale_generation",
            f"Use onboarding_generation {user.onboarding_generation} from whoami.",
            current_generation=user.onboarding_generation,
        )
    user.onboarded = True
    user.onboarding_generation += 1
    return whoami_json(ctx)


@op("update_profile")
async def update_profile(ctx: Ctx):
    name = body(ctx).get("name")
    if name is not None:
        if not trimmed(name) or len(name) > 200:
            raise Refusal(400, "invalid_name", "A name has 1 to 200 characters.")
        caller(ctx).user.name = trimmed(name)
    return whoami_json(ctx)


@op("set_model_providers")
async def set_model_providers(ctx: Ctx):
    """C-66: Growth or Enterprise only (`x-plan-required`); Free and Builder get the plan-limit error."""
    who = caller(ctx)
    account = accounts.billing_account(store(ctx), who)
    accounts.require_plan(cfg(ctx), account, spec_op(ctx)["x-plan-required"], "Choosing model providers")
    providers = body(ctx).get("providers") or []
    unknown = [p for p in providers if p not in cfg(ctx).providers]
    if unknown:
        raise Refusal(400, "unknown_provider", f"Unknown providers: {', '.join(unknown)}.")
    account.model_providers = list(dict.fromkeys(providers))
    return {"providers": account.model_providers}
