"""Secrets and their rules (§9.1–§9.5).

"Secret values never surface — there is no masked preview and no last-used
timestamp on responses": the store keeps only `value_sha256`. A team shares its
owner's vault (§2.5): every call works on the account owner's secrets, reads
carry `meta.payer`, and a read-only member's writes are `403 team_readonly`.

State (rows in `model/rows.py`, which the fixtures write and the launch preflight
reads): `store.secrets` (`Secret`), `store.secret_rules` (`SecretRule`) and
`store.cloud_inference` (`CloudInference`, by account id). An account listed there is enrolled in Cloud inference, where
  `OPENROUTER_API_KEY` "is platform-managed" (`409 cloud_managed`, §9.2). The
  reference gives no API to enroll; the mock enrolls with `enroll_cloud_inference`.

Every rule, inline or added alone, auto-allows its host in host policy (§9.2,
§9.5); deleting a secret or a rule withdraws that `auto_from_secret` entry unless
another rule still covers the host (§9.4, `host_policy.withdraw_from_secret`).
"""

from __future__ import annotations

import re
from typing import Any

from mock_server.benchwright.model import accounts
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import CloudInference, Secret, SecretRule
from mock_server.benchwright.resources import handler
from mock_server.benchwright.resources.host_policy import allow_from_secret, normalize_host, withdraw_from_secret
from mock_server.benchwright.store import Store, new_id, sha256
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import Problem, invalid, not_found

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CLOUD_MANAGED_NAME = "OPENROUTER_API_KEY"
RULE_FIELDS = ("host_pattern", "inject_kind", "inject_target")


def enroll_cloud_inference(store: Store, account_id: str) -> None:
    store.cloud_inference[account_id] = CloudInference(account_id=account_id, enrolled_at=store.clock.now())


def _vault_owner(ctx: Ctx) -> str:
    return ctx.store.account_of(ctx.user).id


def _secrets_of(store: Store, owner_id: str) -> list[Secret]:
    rows = [row for row in store.secrets.values() if row.user_id == owner_id]
    return sorted(rows, key=lambda row: (row.created_at, row.name))


def _rules_of(store: Store, secret_id: str) -> list[SecretRule]:
    rows = [row for row in store.secret_rules.values() if row.secret_id == secret_id]
    return sorted(rows, key=lambda row: (row.created_at, row.id))


def _owned_secret(ctx: Ctx) -> Secret:
    secret = ctx.store.secrets.get(ctx.path["id"])
    if secret is None or secret.user_id != _vault_owner(ctx):
        raise not_found("Secret")
    return secret


def _secret_json(ctx: Ctx, secret: Secret) -> dict[str, Any]:
    rule_schema = schema(ctx.api.spec, "SecretRule")
    body = present(secret, schema(ctx.api.spec, "Secret"))
    body["rules"] = [present(rule, rule_schema) for rule in _rules_of(ctx.store, secret.id)]
    return body


def _check_identifier(name: str, injections: list[str]) -> None:
    """§9.2: "an injected secret becomes an environment variable under its own name",
    so with injections the name must be an identifier rather than be quietly renamed."""
    if injections and not IDENTIFIER.match(name):
        raise invalid(
            f"name '{name}' is not a valid environment-variable identifier (^[A-Za-z_][A-Za-z0-9_]*$), "
            "which a secret with injections needs",
            field="name",
        )


def _check_name_free(ctx: Ctx, owner_id: str, name: str, exclude_id: str | None = None) -> None:
    """§9.2's two conflicts, in its order."""
    if any(s.name == name and s.id != exclude_id for s in _secrets_of(ctx.store, owner_id)):
        raise Problem(409, "name_conflict", f"A secret named {name} already exists.")
    if name == CLOUD_MANAGED_NAME and owner_id in ctx.store.cloud_inference:
        raise Problem(
            409, "cloud_managed", f"{name} is platform-managed while the account is enrolled in Cloud inference."
        )


def _add_rule(store: Store, owner_id: str, secret_id: str, host_pattern: str, kind: str, target: str) -> SecretRule:
    rule = SecretRule(
        id=new_id(),
        secret_id=secret_id,
        host_pattern=host_pattern,
        inject_kind=kind,
        inject_target=target,
        created_at=store.clock.now(),
    )
    store.secret_rules[rule.id] = rule
    allow_from_secret(store, owner_id, host_pattern)
    return rule


def _withdraw(store: Store, owner_id: str, removed: list[SecretRule]) -> None:
    """Withdraw what the removed rules auto-allowed; hosts other rules still need stay."""
    removed_ids = {rule.id for rule in removed}
    secret_ids = {secret.id for secret in _secrets_of(store, owner_id)}
    still_ruled = {
        rule.host_pattern
        for rule in store.secret_rules.values()
        if rule.secret_id in secret_ids and rule.id not in removed_ids
    }
    withdraw_from_secret(store, owner_id, {rule.host_pattern for rule in removed}, still_ruled)


@handler("listSecrets")
async def list_secrets(ctx: Ctx) -> Reply:
    """§9.1: names, rules and injections; never the values."""
    secrets = _secrets_of(ctx.store, _vault_owner(ctx))
    return Reply(
        {
            "data": [_secret_json(ctx, secret) for secret in secrets],
            "meta": {"payer": accounts.payer(ctx.store, ctx.user)},
        }
    )


@handler("createSecret")
async def create_secret(ctx: Ctx) -> Reply:
    """§9.2. "A rule sent inline here is skipped silently when any of `host_pattern`,
    `inject_kind` or `inject_target` is blank: the secret is still created, minus
    that rule." (A non-blank `inject_kind` outside the enum is refused by the spec.)"""
    require_writer(ctx.store, ctx.user)
    body = ctx.body
    injections = body.get("injections") or []
    _check_identifier(body["name"], injections)
    owner_id = _vault_owner(ctx)
    _check_name_free(ctx, owner_id, body["name"])
    now = ctx.store.clock.now()
    secret = Secret(
        id=new_id(),
        user_id=owner_id,
        name=body["name"],
        description=body.get("description"),
        value_sha256=sha256(body["value"]),
        injections=list(dict.fromkeys(injections)),
        created_at=now,
        updated_at=now,
    )
    ctx.store.secrets[secret.id] = secret
    for rule in body.get("rules") or []:
        values = [(rule.get(name) or "").strip() for name in RULE_FIELDS]
        if all(values):
            host_pattern, kind, target = values
            _add_rule(ctx.store, owner_id, secret.id, host_pattern.lower(), kind, target)
    return Reply({"id": secret.id}, status=201)


@handler("patchSecret")
async def patch_secret(ctx: Ctx) -> Reply:
    """§9.3: with `value` it rotates; "`PATCH` without a `value` field updates only the
    description / name — the stored secret is not touched." A rename is held to
    §9.2's identifier rule while the secret has injections, and to its conflicts."""
    require_writer(ctx.store, ctx.user)
    secret = _owned_secret(ctx)
    body = ctx.body
    if not {"value", "description", "name"} & body.keys():
        raise invalid("Send `value` to rotate, or `description` / `name` to relabel.")
    if "name" in body and body["name"] != secret.name:
        _check_identifier(body["name"], secret.injections)
        _check_name_free(ctx, secret.user_id, body["name"], exclude_id=secret.id)
        secret.name = body["name"]
    if "description" in body:
        secret.description = body["description"]
    if "value" in body:
        secret.value_sha256 = sha256(body["value"])
    secret.updated_at = ctx.store.clock.now()
    return Reply({"id": secret.id})


@handler("deleteSecret")
async def delete_secret(ctx: Ctx) -> Reply:
    """§9.4: cascades into the rules and withdraws the host-policy entries they added."""
    require_writer(ctx.store, ctx.user)
    secret = _owned_secret(ctx)
    store = ctx.store
    rules = _rules_of(store, secret.id)
    for rule in rules:
        del store.secret_rules[rule.id]
    del store.secrets[secret.id]
    _withdraw(store, secret.user_id, rules)
    return Reply(status=204)


@handler("createSecretRule")
async def create_secret_rule(ctx: Ctx) -> Reply:
    """§9.5: validates each field on its own; the reply is the new rule "wrapped in a
    single-element array (the database's representation is passed through verbatim)"."""
    require_writer(ctx.store, ctx.user)
    secret = _owned_secret(ctx)
    body = ctx.body
    host_pattern = normalize_host(body["host_pattern"], "host_pattern")
    target = body["inject_target"].strip()
    if not target:
        raise invalid("inject_target: must not be blank", field="inject_target")
    rule = _add_rule(ctx.store, secret.user_id, secret.id, host_pattern, body["inject_kind"], target)
    return Reply([present(rule, schema(ctx.api.spec, "SecretRule"))], status=201)


@handler("deleteSecretRule")
async def delete_secret_rule(ctx: Ctx) -> Reply:
    require_writer(ctx.store, ctx.user)
    secret = _owned_secret(ctx)
    rules = ctx.store.secret_rules
    rule = rules.get(ctx.path["rule_id"])
    if rule is None or rule.secret_id != secret.id:
        raise not_found("Secret rule")
    del rules[rule.id]
    _withdraw(ctx.store, secret.user_id, [rule])
    return Reply(status=204)
