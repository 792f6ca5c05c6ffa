"""Pages that stay far below the clients' 16 MB ceiling (C-58)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from .errors import Refusal


def parse_int(raw: str | None, name: str, default: int, minimum: int = 0) -> int:
    """Query values are strings in the catalog; an unparsable or negative one is a clear 400."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Refusal(400, "invalid_page", f"{name} must be an integer.") from None
    if value < minimum:
        raise Refusal(400, "invalid_page", f"{name} must be at least {minimum}.")
    return value


def page(items: Sequence[dict[str, Any]], offset: int, limit: int, max_bytes: int) -> dict[str, Any]:
    """`{items, next_offset, total}`: at most `limit` items, stopping once `max_bytes` of JSON is reached."""
    out: list[dict[str, Any]] = []
    size = 0
    index = offset
    while index < len(items) and len(out) < limit:
        item_size = len(orjson.dumps(items[index]))
        if out and size + item_size > max_bytes:
            break
        out.append(items[index])
        size += item_size
        index += 1
    return {"items": out, "next_offset": index if index < len(items) else None, "total": len(items)}


def bounded(items: Sequence[dict[str, Any]], max_items: int, max_bytes: int) -> tuple[list[dict[str, Any]], bool]:
    """The first items of an unpaged list within the item and byte budgets, and whether it was cut."""
    got = page(items, 0, max_items, max_bytes)
    return got["items"], got["next_offset"] is not None
