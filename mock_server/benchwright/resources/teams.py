"""Teams (§2.5): a shared workspace whose members see each other's runs and
bill to the owner's wallet.

Team rows (`Team`) live in `store.teams` (made by `model/accounts.py`); invites
(`TeamInvite`) in `store.team_invites`. Only the owner sends and revokes invites (they add spenders to the
owner's wallet). An invite carries the role its invitee joins with: `member`,
or `readonly`, who "may read the team's resources but not change them" and gets
`403 team_readonly` on a write.
"""

from __future__ import annotations

from typing import Any

from mock_server.benchwright.model import accounts, ledger
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import Team, TeamInvite
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import Store, User, new_id
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.state.clock import rfc3339

OK = {"ok": True}


# -- state ----------------------------------------------------------------------


def invites(store: Store) -> dict[str, TeamInvite]:
    return store.team_invites


def my_team(ctx: Ctx) -> Team:
    """The caller's team; a caller with none gets `404`."""
    team = ctx.store.teams.get(ctx.user.team_id) if ctx.user.team_id else None
    if team is None:
        raise not_found("Team")
    return team


def managed_team(ctx: Ctx, team: Team) -> Team:
    """The team if the caller may manage it: its owner. A read-only member meets the
    general `403 team_readonly` guard; anyone else gets `403 forbidden` (§2.5)."""
    user = ctx.user
    if user.id == team.owner_id:
        return team
    if user.team_id == team.id:
        require_writer(ctx.store, user)
    raise Problem(403, "forbidden", "Only the team's owner can manage its invites and membership.")


def _role(team: Team, user_id: str) -> str:
    if user_id == team.owner_id:
        return "owner"
    return "readonly" if user_id in team.readonly_ids else "member"


def _leave(store: Store, team: Team, user: User) -> None:
    team.member_ids = [m for m in team.member_ids if m != user.id]
    team.readonly_ids = [m for m in team.readonly_ids if m != user.id]
    team.joined_at.pop(user.id, None)
    user.team_id = None


# -- representation ---------------------------------------------------------------


def member_json(store: Store, team: Team, user_id: str) -> dict[str, Any]:
    user = store.users.get(user_id)
    joined = team.created_at if user_id == team.owner_id else team.joined_at.get(user_id)
    row: dict[str, Any] = {"user_id": user_id, "email": user.email if user else None, "role": _role(team, user_id)}
    if joined is not None:
        row["joined_at"] = rfc3339(joined)
    return row


# -- handlers ---------------------------------------------------------------------


@handler("getMyTeam")
async def get_my_team(ctx: Ctx) -> Reply:
    """`{team, members, invites, balance, is_owner}`; `team` is `null` when the
    caller has no team, and `balance` is then their own wallet (§2.5)."""
    store = ctx.store
    user = ctx.user
    team = store.teams.get(user.team_id) if user.team_id else None
    pending = [i for i in invites(store).values() if team and i.team_id == team.id and i.status == "pending"]
    pending.sort(key=lambda i: i.created_at)
    account = store.account_of(user)
    return Reply(
        {
            "team": present(team, schema(ctx.api.spec, "Team")) if team else None,
            "members": [member_json(store, team, m) for m in team.member_ids] if team else [],
            "invites": [present(i, schema(ctx.api.spec, "TeamInvite")) for i in pending],
            "balance": {"amount_cents": ledger.balance_cents(store, account.id), "currency": "USD"},
            "is_owner": bool(team) and team.owner_id == user.id,
        }
    )


@handler("createTeam")
async def create_team(ctx: Ctx) -> Reply:
    """ "You cannot create a team while you already belong to one": `409 already_on_team`."""
    user = ctx.user
    if user.team_id:
        raise Problem(409, "already_on_team", "You already belong to a team; leave it (or dissolve it) first.")
    team = accounts.ensure_team(ctx.store, user)
    name = (ctx.body or {}).get("name")
    if name:
        team.name = name
    return Reply(present(team, schema(ctx.api.spec, "Team")), status=201)


def _invite(ctx: Ctx, team: Team) -> Reply:
    managed_team(ctx, team)
    body = ctx.body
    email = body["email"].strip()
    store = ctx.store
    if any((u.email or "").lower() == email.lower() for u in store.users.values() if u.team_id == team.id):
        raise invalid(f"email: {email} is already a member of this team", field="email")
    invite = TeamInvite(
        id=new_id(),
        team_id=team.id,
        email=email,
        role=body.get("role") or "member",
        status="pending",
        invited_by=ctx.user.id,
        created_at=store.clock.now(),
    )
    invites(store)[invite.id] = invite
    return Reply(present(invite, schema(ctx.api.spec, "TeamInvite")), status=201)


@handler("inviteToMyTeam")
async def invite_to_my_team(ctx: Ctx) -> Reply:
    return _invite(ctx, my_team(ctx))


@handler("inviteToTeam")
async def invite_to_team(ctx: Ctx) -> Reply:
    team = ctx.store.teams.get(ctx.path["id"])
    if team is None:
        raise not_found("Team")
    return _invite(ctx, team)


def _pending_invite(ctx: Ctx) -> TeamInvite:
    invite = invites(ctx.store).get(ctx.path["id"])
    if invite is None:
        raise not_found("Invite")
    return invite


@handler("acceptTeamInvite")
async def accept_team_invite(ctx: Ctx) -> Reply:
    """An invite the caller may not accept is `403 forbidden` (§2.5): it must be
    pending, addressed to the caller's email, and the caller on no team."""
    invite = _pending_invite(ctx)
    user = ctx.user
    store = ctx.store
    if invite.status != "pending":
        raise Problem(403, "forbidden", f"This invite is {invite.status}, not pending.")
    if invite.email.lower() != (user.email or "").lower():
        raise Problem(403, "forbidden", "This invite is addressed to someone else.")
    team = store.teams.get(invite.team_id)
    if team is None:
        raise Problem(403, "forbidden", "The team this invite is for no longer exists.")
    if user.team_id:
        raise Problem(403, "forbidden", "You already belong to a team; leave it before joining another.")
    accounts.join_team(store, team, user)
    team.joined_at[user.id] = store.clock.now()
    if invite.role == "readonly":
        team.readonly_ids.append(user.id)
    invite.status = "accepted"
    return Reply(OK)


@handler("revokeTeamInvite")
async def revoke_team_invite(ctx: Ctx) -> Reply:
    invite = _pending_invite(ctx)
    team = ctx.store.teams.get(invite.team_id)
    if team is None:
        raise Problem(403, "forbidden", "The team this invite is for no longer exists.")
    managed_team(ctx, team)
    if invite.status != "pending":
        raise Problem(403, "forbidden", f"This invite is {invite.status}, not pending.")
    invite.status = "revoked"
    return Reply(OK)


@handler("leaveTeam")
async def leave_team(ctx: Ctx) -> Reply:
    """ "Owners cannot `:leave` (they are the payer)"; they dissolve the team instead."""
    team = my_team(ctx)
    if team.owner_id == ctx.user.id:
        raise Problem(403, "forbidden", "The owner is the payer and cannot leave; dissolve the team with me:delete.")
    _leave(ctx.store, team, ctx.user)
    return Reply(OK)


@handler("deleteTeam")
async def delete_team(ctx: Ctx) -> Reply:
    """ "All members are removed, pending invites are cancelled, and shared runs
    revert to being private to whoever launched them": run visibility follows
    membership, so removing the members is what makes their runs private again."""
    team = managed_team(ctx, my_team(ctx))
    store = ctx.store
    for member_id in list(team.member_ids):
        member = store.users.get(member_id)
        if member is not None:
            _leave(store, team, member)
    for invite in invites(store).values():
        if invite.team_id == team.id and invite.status == "pending":
            invite.status = "cancelled"
    store.teams.pop(team.id, None)
    return Reply(OK)
