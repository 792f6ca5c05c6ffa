"""One projection for every row whose response schema only restates its fields.

"The spec decides, the code reads it": `present(row, schema)` walks the response
schema's `properties` and copies each one the row holds, datetimes as RFC 3339
(§3.6). A property the row does not hold is computed state (a secret's `rules`,
a team member's `role`), which the caller adds. The property names are read
from the bundled spec once per schema, not per request.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mock_server.state.clock import rfc3339

_MISSING = object()
_NAMES: dict[int, tuple[dict[str, Any], tuple[str, ...]]] = {}


def schema(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """A named response schema of the bundled spec (`components.schemas`)."""
    return spec["components"]["schemas"][name]


def _names(schema: dict[str, Any]) -> tuple[str, ...]:
    held = _NAMES.get(id(schema))
    if held is None or held[0] is not schema:
        held = _NAMES[id(schema)] = (schema, tuple(schema.get("properties", {})))
    return held[1]


def _value(value: Any) -> Any:
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, list):
        return list(value)
    return value


def present(row: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """The schema's properties that `row` holds, in the schema's order."""
    out: dict[str, Any] = {}
    for name in _names(schema):
        value = getattr(row, name, _MISSING)
        if value is not _MISSING:
            out[name] = _value(value)
    return out
