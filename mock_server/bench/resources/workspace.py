"""Workspace and membership (membership changes are account class, C-18)."""

from __future__ import annotations

import re

from mock_server.engine import Ctx, Reply

from ..model import accounts
from ..model.errors import Refusal
from ..store import Workspace
from ._common import body, caller, now, op, store, trimmed

ROLES = ("admin", "member")
EMAIL = re.compile(r"[^@ \t\n\r\f\v]+@[^@ \t\n\r\f\v]+\.[^@ \t\n\r\f\v]+")  # the spec's pattern, blanks trimmed


def workspace_json(ctx: Ctx, ws: Workspace | None) -> dict:
    if ws is None:
        return {"workspace": None}
    users = store(ctx).users
    return {
        "workspace": {
            "id": ws.id,
            "name": ws.name,
            "billing_holder": ws.billing_holder,
            "members": [{"user_id": u, "email": users[u].email, "role": r} for u, r in ws.members.items()],
            "invites": [
                {k: v for k, v in inv.items() if k != "token"} | {"token": inv["token"]} for inv in ws.invites.values()
            ],
        }
    }


def _mine(ctx: Ctx, admin: bool = True) -> Workspace:
    who = caller(ctx)
    ws = accounts.workspace_of(store(ctx), who.user.id)
    if ws is None:
        raise Refusal(404, "workspace_not_found", "You are not in a workspace.")
    if admin and ws.members[who.user.id] != "admin":
        raise Refusal(403, "workspace_admin_required", "Only a workspace admin may do this.")
    return ws


def _name(ctx: Ctx) -> str:
    name = trimmed(body(ctx).get("name"))
    if not name:
        raise Refusal(400, "name_required", "A workspace needs a name.")
    return name


@op("get_workspace")
async def get_workspace(ctx: Ctx):
    return workspace_json(ctx, accounts.workspace_of(store(ctx), caller(ctx).user.id))


@op("create_workspace")
async def create_workspace(ctx: Ctx):
    """The caller becomes its admin and billing holder; existing systems stay with the personal account."""
    who, st = caller(ctx), store(ctx)
    name = _name(ctx)
    if accounts.workspace_of(st, who.user.id):
        raise Refusal(409, "already_in_workspace", "You are already in a workspace.")
    ws = Workspace(
        id=f"ws_{st.seq('workspace')}", name=name, members={who.user.id: "admin"}, billing_holder=who.user.id
    )
    st.workspaces[ws.id] = ws
    return Reply(workspace_json(ctx, ws), 201)


@op("rename_workspace")
async def rename_workspace(ctx: Ctx):
    ws = _mine(ctx)
    ws.name = _name(ctx)
    return workspace_json(ctx, ws)


@op("invite_workspace_member")
async def invite_workspace_member(ctx: Ctx):
    ws, b, st = _mine(ctx), body(ctx), store(ctx)
    email = trimmed(b.get("email")).lower()
    if not EMAIL.fullmatch(email):
        raise Refusal(400, "invalid_email", "Give the invitee's email address.")
    role = b.get("role") or "member"
    if role not in ROLES:
        raise Refusal(400, "invalid_role", f"role is one of {', '.join(ROLES)}.")
    if any(st.users[u].email == email for u in ws.members):
        raise Refusal(409, "already_member", f"{email} is already a member.")
    token = "inv_" + accounts.token_digest("invite", ws.id, email, str(st.seq("invite")))
    invite = {"token": token, "email": email, "role": role, "created_at": now(ctx)}
    ws.invites[token] = invite
    return Reply({"invite": invite}, 201)


@op("accept_workspace_invite")
async def accept_workspace_invite(ctx: Ctx):
    who, st = caller(ctx), store(ctx)
    token = body(ctx).get("token") or ""
    ws = next((w for w in st.workspaces.values() if token in w.invites), None)
    if ws is None:
        raise Refusal(404, "invite_not_found", "That invite does not exist or was used.")
    invite = ws.invites[token]
    if invite["email"] != who.user.email.lower():
        raise Refusal(403, "invite_email_mismatch", "The invite was sent to another email address.")
    if accounts.workspace_of(st, who.user.id):
        raise Refusal(409, "already_in_workspace", "Leave your current workspace first.")
    ws.members[who.user.id] = invite["role"]
    del ws.invites[token]
    return workspace_json(ctx, ws)


def _member(ws: Workspace, user_id: str) -> str:
    if user_id not in ws.members:
        raise Refusal(404, "member_not_found", f"{user_id} is not a member.")
    return user_id


def _admins(ws: Workspace) -> int:
    return sum(1 for r in ws.members.values() if r == "admin")


@op("set_workspace_member_role")
async def set_workspace_member_role(ctx: Ctx):
    ws = _mine(ctx)
    role = body(ctx).get("role")
    if role not in ROLES:
        raise Refusal(400, "invalid_role", f"role is one of {', '.join(ROLES)}.")
    uid = _member(ws, ctx.path["userID"])
    if ws.members[uid] == "admin" and role != "admin" and _admins(ws) == 1:
        raise Refusal(409, "last_admin", "A workspace keeps at least one admin.")
    ws.members[uid] = role
    return workspace_json(ctx, ws)


@op("remove_workspace_member")
async def remove_workspace_member(ctx: Ctx):
    ws = _mine(ctx)
    uid = _member(ws, ctx.path["userID"])
    if ws.members[uid] == "admin" and _admins(ws) == 1:
        raise Refusal(409, "last_admin", "A workspace keeps at least one admin.")
    if ws.billing_holder == uid:
        raise Refusal(409, "billing_holder", "Move the billing to another admin first.")
    del ws.members[uid]
    return workspace_json(ctx, ws)


@op("set_workspace_billing_holder")
async def set_workspace_billing_holder(ctx: Ctx):
    """Whose plan and evaluation balance every member uses."""
    ws = _mine(ctx)
    uid = _member(ws, body(ctx).get("user_id") or "")
    if ws.members[uid] != "admin":
        raise Refusal(409, "billing_holder_must_be_admin", "The billing holder is an admin.")
    ws.billing_holder = uid
    return workspace_json(ctx, ws)
