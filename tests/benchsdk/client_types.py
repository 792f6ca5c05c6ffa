"""The published client's types (`client_types.json`, read from @benchsdk/api at the commit it
records) and the two things the tests do with them: parse the data's notation, and read an
answer the way the client's type declares it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "client_types.json").read_text())
TYPES: dict[str, dict[str, Any]] = DATA["types"]
PRIMITIVES = {"string", "number", "boolean", "object", "unknown"}


def parse(expr: Any) -> tuple[str, bool, Any]:
    """(kind, nullable, detail): kind is a primitive, 'enum' (detail: the values), 'array' (detail:
    the item expression), 'ref' (detail: a type name) or 'inline' (detail: the fields)."""
    if isinstance(expr, dict):
        return "inline", False, expr
    nullable = expr.endswith("|null")
    core = expr.removesuffix("|null")
    if core.startswith("'"):
        return "enum", nullable, re.findall(r"'([^']*)'", core)
    if core.endswith("[]"):
        return "array", nullable, core[:-2]
    if core in PRIMITIVES:
        return core, nullable, None
    assert core in TYPES, f"unknown type {core!r}"
    return "ref", nullable, core


def fields_of(expr: Any) -> dict[str, Any]:
    kind, _, detail = parse(expr)
    return detail if kind == "inline" else TYPES[detail]


JSON_TYPES = {
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
}


def read_as(expr: Any, value: Any, where: str = "$") -> Any:
    """`value` read as the client's type `expr` reads it: every field the type requires is there,
    each declared field has the declared JSON type (null only where the type allows it), and the
    answer is what remains once the members the type does not declare are dropped."""
    kind, nullable, detail = parse(expr)
    if value is None:
        assert nullable or kind == "unknown", f"{where} is null; the client's type is {expr}"
        return None
    if kind == "unknown":
        return value
    if kind == "enum":
        assert value in detail, f"{where} = {value!r} is not one of {detail}"
        return value
    if kind == "array":
        assert isinstance(value, list), f"{where} is not an array"
        return [read_as(detail, item, f"{where}[{i}]") for i, item in enumerate(value)]
    if kind in ("ref", "inline"):
        assert isinstance(value, dict), f"{where} is not an object"
        out = {}
        for key, sub in fields_of(expr).items():
            name = key.removesuffix("?")
            if name not in value:
                assert key.endswith("?"), f"{where}.{name} is missing; the client's type requires it"
                continue
            out[name] = read_as(sub, value[name], f"{where}.{name}")
        return out
    ok = JSON_TYPES[kind]
    assert isinstance(value, ok) and (kind == "boolean" or not isinstance(value, bool)), (
        f"{where} = {value!r} is not a {kind}"
    )
    return value
