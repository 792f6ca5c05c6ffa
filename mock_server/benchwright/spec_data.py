"""Benchwright contract values the spec holds, read once per running mock.

Tiers (`x-tiers`, §13) and the scope vocabulary (`components.schemas.Scope`,
§2.4) live in the spec; these accessors are the only way code reads them."""

from __future__ import annotations

from typing import Any


def tiers(api: Any) -> dict[str, dict[str, int]]:
    """Tier name -> {read_rpm, write_rpm, max_run_concurrency}."""
    return api.spec["x-tiers"]["tiers"]


def window_seconds(api: Any) -> int:
    return api.spec["x-tiers"]["window_seconds"]


def all_scopes(api: Any) -> list[str]:
    """Every PAT scope the spec defines (what `["full"]` expands to)."""
    return list(api.spec["components"]["schemas"]["Scope"]["enum"])
