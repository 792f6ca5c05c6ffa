"""Users, their wallets and teams, as the control surface and seeds create them."""

from __future__ import annotations

from typing import Any

from mock_server.benchwright.model import ledger
from mock_server.benchwright.model.rows import Team
from mock_server.benchwright.store import Store, User, new_id
from mock_server.policies.problems import Problem
from mock_server.state.clock import rfc3339


def create_user(
    store: Store,
    *,
    email: str | None = None,
    tier: str = "growth",
    admin: bool = False,
    balance_cents: int = 10_000,
    team_owner_id: str | None = None,
    user_id: str | None = None,
) -> User:
    user = store.add_user(email, tier=tier, admin=admin, **({"id": user_id} if user_id else {}))
    if balance_cents:
        ledger.post(store, user.id, "support_credit", balance_cents, note="mock opening balance")
    if team_owner_id:
        owner = store.users.get(team_owner_id)
        if owner is None:
            raise Problem(404, "not_found", f"No user {team_owner_id} to join.")
        team = ensure_team(store, owner)
        join_team(store, team, user)
    return user


def ensure_team(store: Store, owner: User) -> Team:
    if owner.team_id:
        return store.teams[owner.team_id]
    team = Team(
        id=new_id(),
        name=f"{owner.email.split('@')[0]}'s team",
        owner_id=owner.id,
        member_ids=[owner.id],
        created_at=store.clock.now(),
    )
    store.teams[team.id] = team
    owner.team_id = team.id
    return team


def join_team(store: Store, team: Team, user: User) -> None:
    if user.id not in team.member_ids:
        team.member_ids.append(user.id)
    user.team_id = team.id


def require_writer(store: Store, user: User) -> None:
    """The general team-write guard (§2.5): a read-only member gets `403 team_readonly`."""
    if user.team_id:
        team = store.teams.get(user.team_id)
        if team and user.id in team.readonly_ids:
            raise Problem(403, "team_readonly", "Your team role is read-only.")


def payer(store: Store, user: User) -> dict[str, Any]:
    """Whose wallet a call bills to (§2.5)."""
    account = store.account_of(user)
    return {
        "user_id": account.id,
        "email": account.email,
        "team_id": user.team_id,
        "is_team_owner": bool(user.team_id) and account.id == user.id,
    }


def describe_user(store: Store, user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "email": user.email,
        "tier": user.tier,
        "admin": user.admin,
        "team_id": user.team_id,
        "balance_cents": ledger.balance_cents(store, store.account_of(user).id),
        "quota_overrides": user.quota_overrides,
        "created_at": rfc3339(user.created_at) if user.created_at else None,
    }
