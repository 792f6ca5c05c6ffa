"""Settings (§11): per-account key/value settings behind an allowlist.

"The allowed keys are constrained to prevent the write route from becoming a
database write primitive." The allowlist, and what each key accepts, is the
spec's `SettingValues` schema (one property per key), so `GET
/v1/settings:schema`, the write checks and the documentation cannot disagree.

Rows (`Setting`) live in `store.settings` keyed by (account owner id, key). "A team member reads the **owner's**
settings ... run defaults follow the wallet the runs bill to", and writes them.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from mock_server.benchwright.model import accounts
from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import Setting
from mock_server.benchwright.resources import handler
from mock_server.engine import Ctx, Reply
from mock_server.policies.problems import invalid


def value_schemas(ctx: Ctx) -> dict[str, Any]:
    return ctx.api.spec["components"]["schemas"]["SettingValues"]["properties"]


def allowed_key(ctx: Ctx) -> str:
    """ "PUT or DELETE against a key outside that list returns `400 invalid_argument`.\""""
    key = ctx.path["key"]
    if key not in value_schemas(ctx):
        raise invalid(f"'{key}' is not a setting; GET /v1/settings:schema lists the keys", field="key")
    return key


def check_value(ctx: Ctx, key: str, value: Any) -> None:
    """ "Keys that feed a launch or a pod boot are validated on write, so a bad value
    fails here rather than on every future run.\""""
    validator = jsonschema_rs.validator_for(value_schemas(ctx)[key])
    for error in validator.iter_errors(value):
        raise invalid(f"value: {error.message} (setting '{key}')", field="value")


def _rows(ctx: Ctx) -> tuple[str, dict[tuple[str, str], Setting]]:
    return ctx.store.account_of(ctx.user).id, ctx.store.settings


@handler("listSettings")
async def list_settings(ctx: Ctx) -> Reply:
    owner_id, rows = _rows(ctx)
    entry = schema(ctx.api.spec, "SettingEntry")
    data = {key: present(row, entry) for (account_id, key), row in rows.items() if account_id == owner_id}
    return Reply({"data": data, "meta": {"payer": accounts.payer(ctx.store, ctx.user)}})


@handler("putSetting")
async def put_setting(ctx: Ctx) -> Reply:
    key = allowed_key(ctx)
    value = ctx.body["value"]
    check_value(ctx, key, value)
    require_writer(ctx.store, ctx.user)
    owner_id, rows = _rows(ctx)
    row = rows[(owner_id, key)] = Setting(value=value, updated_at=ctx.store.clock.now())
    return Reply({"key": key, **present(row, schema(ctx.api.spec, "SettingEntry"))})


@handler("deleteSetting")
async def delete_setting(ctx: Ctx) -> Reply:
    """Removing a setting puts the key back to its default."""
    key = allowed_key(ctx)
    require_writer(ctx.store, ctx.user)
    owner_id, rows = _rows(ctx)
    rows.pop((owner_id, key), None)
    return Reply(status=204)


@handler("getSettingsSchema")
async def get_settings_schema(ctx: Ctx) -> Reply:
    """ "The flat allowlist of key names. Read it rather than hardcoding the list.\""""
    return Reply({"keys": list(value_schemas(ctx))})
