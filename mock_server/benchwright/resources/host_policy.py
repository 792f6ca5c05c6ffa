"""Host policy (§9.6) and the blocked-host log (§9.7).

Host policy is the account's allow/block list for outbound HTTP from the
pipeline. "`default_mode` is `allow`. The list is not an allowlist that
everything else falls outside of: by default a run may reach any host, and the
entries refine that." A team shares its owner's policy, as it shares the vault
(§2.5); a read-only member's writes are `403 team_readonly`.

State:

- `store.host_policy`: entry id -> `HostPolicyEntry`. One
  entry per (account, host pattern): a POST and a secret rule both *upsert* it.
  A POST makes the entry yours (`source=user`), so it survives the deletion of
  a secret whose rule also allowed that host (§9.4). A rule's upsert sets
  `mode=allow` and records `auto_from_secret` only when it creates the entry.
- `store.host_policy_default`: account id -> `allow` | `block`.
- `store.blocked_hosts`: (run id, host, source) -> `BlockedHost`. `home` rows come
  from a local-egress machine's denials (§9a.3); `proxy` rows from the platform
  proxy. The mock's pipeline does not simulate the proxy, so `proxy` rows exist
  only as seeded (`seed_blocked_hosts`).

Host patterns and hosts are compared lower-cased and trimmed.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import BlockedHost, HostPolicyEntry
from mock_server.benchwright.model.runs import readable_run
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import Store, new_id
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import invalid, not_found

STARTER_PACK = ("github.com", "raw.githubusercontent.com", "pypi.org", "files.pythonhosted.org", "huggingface.co")
DEFAULT_MODE = "allow"


def normalize_host(raw: str, field: str) -> str:
    host = raw.strip().lower()
    if not host:
        raise invalid(f"{field}: must not be blank", field=field)
    return host


def _account_id(ctx: Ctx) -> str:
    return ctx.store.account_of(ctx.user).id


def _entries(store: Store, account_id: str) -> list[HostPolicyEntry]:
    rows = [row for row in store.host_policy.values() if row.account_id == account_id]
    return sorted(rows, key=lambda row: (row.created_at, row.id))


def _entry_for(store: Store, account_id: str, host_pattern: str) -> HostPolicyEntry | None:
    return next((row for row in _entries(store, account_id) if row.host_pattern == host_pattern), None)


def _insert(store: Store, account_id: str, host_pattern: str, mode: str, source: str) -> HostPolicyEntry:
    row = HostPolicyEntry(
        id=new_id(),
        account_id=account_id,
        host_pattern=host_pattern,
        mode=mode,
        source=source,
        created_at=store.clock.now(),
    )
    store.host_policy[row.id] = row
    return row


def allow_from_secret(store: Store, account_id: str, host_pattern: str) -> None:
    """§9.2: a rule "upserts `user_host_policy(mode=allow)` for that host, so the
    proxy doesn't block it"."""
    entry = _entry_for(store, account_id, host_pattern)
    if entry is None:
        _insert(store, account_id, host_pattern, "allow", "auto_from_secret")
    else:
        entry.mode = "allow"


def withdraw_from_secret(store: Store, account_id: str, host_patterns: set[str], still_ruled: set[str]) -> None:
    """§9.4: withdraw the `auto_from_secret` entries a credential's rules added, "so
    removing a credential does not leave its hosts allowed". A `user` or
    `starter_pack` entry survives, and so does a host another rule still needs."""
    table = store.host_policy
    for entry in _entries(store, account_id):
        pattern = entry.host_pattern
        if entry.source == "auto_from_secret" and pattern in host_patterns and pattern not in still_ruled:
            table.pop(entry.id, None)


@handler("getHostPolicy")
async def get_host_policy(ctx: Ctx) -> Reply:
    """§9.6: read `default_mode` before interpreting the list."""
    account_id = _account_id(ctx)
    entry_schema = schema(ctx.api.spec, "HostPolicyEntry")
    return Reply(
        {
            "data": [present(row, entry_schema) for row in _entries(ctx.store, account_id)],
            "default_mode": ctx.store.host_policy_default.get(account_id, DEFAULT_MODE),
        }
    )


@handler("addHostPolicyEntry")
async def add_host_policy_entry(ctx: Ctx) -> Reply:
    """§9.6: `mode` is `allow` or `block`; the reply is `201 {"ok": true}`."""
    require_writer(ctx.store, ctx.user)
    host_pattern = normalize_host(ctx.body["host_pattern"], "host_pattern")
    account_id = _account_id(ctx)
    entry = _entry_for(ctx.store, account_id, host_pattern)
    if entry is None:
        _insert(ctx.store, account_id, host_pattern, ctx.body["mode"], "user")
    else:
        entry.mode, entry.source = ctx.body["mode"], "user"
    return Reply({"ok": True}, status=201)


@handler("deleteHostPolicyEntry")
async def delete_host_policy_entry(ctx: Ctx) -> Reply:
    require_writer(ctx.store, ctx.user)
    table = ctx.store.host_policy
    entry = table.get(ctx.path["id"])
    if entry is None or entry.account_id != _account_id(ctx):
        raise not_found("Host-policy entry")
    del table[entry.id]
    return Reply(status=204)


@handler("applyHostPolicyStarterPack")
async def apply_starter_pack(ctx: Ctx) -> Reply:
    """§9.6: adds "the five hosts almost every run wants". `added` counts the hosts
    that had no entry yet, so a second call adds 0; an entry you already have
    (even a `block`) is left as it is."""
    require_writer(ctx.store, ctx.user)
    account_id = _account_id(ctx)
    added = 0
    for host in STARTER_PACK:
        if _entry_for(ctx.store, account_id, host) is None:
            _insert(ctx.store, account_id, host, "allow", "starter_pack")
            added += 1
    return Reply({"ok": True, "added": added})


@handler("setHostPolicyDefault")
async def set_host_policy_default(ctx: Ctx) -> Reply:
    """§9.6: flip the posture for hosts no entry matches."""
    require_writer(ctx.store, ctx.user)
    ctx.store.host_policy_default[_account_id(ctx)] = ctx.body["mode"]
    return Reply({"ok": True})


# -- blocked-host log (§9.7) ------------------------------------------------------


def record_blocked(store: Store, run: Run, host: str, count: int, source: str, at: datetime) -> None:
    """Add `count` sightings of `host` to the run's blocked-hosts card."""
    table = store.blocked_hosts
    key = (run.id, host, source)
    row = table.get(key)
    if row is None:
        table[key] = BlockedHost(
            account_id=store.account_of(store.users[run.user_id]).id,
            run_id=run.id,
            host=host,
            seen_count=count,
            first_seen=at,
            last_seen=at,
            source=source,
        )
    else:
        row.seen_count += count
        row.last_seen = max(row.last_seen, at)


def _recent_first(rows: list[BlockedHost]) -> list[BlockedHost]:
    return sorted(rows, key=lambda row: (-row.last_seen.timestamp(), row.host, row.source))


@handler("listRunBlockedHosts")
async def list_run_blocked_hosts(ctx: Ctx) -> Reply:
    """§9.7: part of the run, so it needs `runs:read` and follows the run's visibility."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    rows = [row for row in ctx.store.blocked_hosts.values() if row.run_id == run.id]
    blocked = schema(ctx.api.spec, "BlockedHost")
    return Reply({"data": [present(row, blocked) for row in _recent_first(rows)]})


@handler("listBlockedHosts")
async def list_blocked_hosts(ctx: Ctx) -> Reply:
    """§9.7: the account-wide, vault-shaped read: one row per (host, source) across
    the account's runs, counts summed, most recently seen first."""
    account_id = _account_id(ctx)
    merged: dict[tuple[str, str], BlockedHost] = {}
    for row in ctx.store.blocked_hosts.values():
        if row.account_id != account_id:
            continue
        key = (row.host, row.source)
        seen = merged.get(key)
        if seen is None:
            merged[key] = dataclasses.replace(row)
        else:
            seen.seen_count += row.seen_count
            seen.first_seen = min(seen.first_seen, row.first_seen)
            seen.last_seen = max(seen.last_seen, row.last_seen)
    blocked = schema(ctx.api.spec, "BlockedHost")
    return Reply({"data": [present(row, blocked) for row in _recent_first(list(merged.values()))]})


@handler("clearBlockedHost")
async def clear_blocked_host(ctx: Ctx) -> Reply:
    """§9.7: clears the log rows for one host, "used after allowing a host so it
    stops appearing in the recently-blocked list"."""
    require_writer(ctx.store, ctx.user)
    host = normalize_host(ctx.query["host"], "host")
    account_id = _account_id(ctx)
    table = ctx.store.blocked_hosts
    for key in [k for k, row in table.items() if row.account_id == account_id and row.host == host]:
        del table[key]
    return Reply(status=204)


SEEDED_BLOCKS = (  # (host, seen_count, first seen and last seen, seconds after the run started)
    ("files.pythonhosted.org", 12, 6.0, 41.5),
    ("api.wandb.ai", 3, 9.2, 30.8),
)


def seed_blocked_hosts(store: Store, run_id: str) -> None:
    """Seed fixture: what the proxy refused during the given (seeded) run. Idempotent."""
    run = pipeline.get_run(store, run_id)
    if run is None:
        return
    start = run.started_at or run.created_at
    for host, count, first, last in SEEDED_BLOCKS:
        store.blocked_hosts.pop((run.id, host, "proxy"), None)
        record_blocked(store, run, host, count - 1, "proxy", start + timedelta(seconds=first))
        record_blocked(store, run, host, 1, "proxy", start + timedelta(seconds=last))
