"""The operation index: every spec operation compiled once at start-up.

For each operation this holds what the engine needs per request, precomputed:
the path regex, the parameters with their coercers, compiled validators and
clamps (`x-clamp`), the body validator, the security alternatives (scopes,
anonymous access, session-only), the `If-Match` mode and the documented error
codes. Handlers never look at the spec themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs

from .http.problems import invalid
from .spec import MUTATING, SPEC_URI, iter_operations, path_regex


def resolve(doc: dict[str, Any], node: Any) -> Any:
    """Follow internal `$ref`s until a concrete node."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 16:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"external $ref {ref!r} in the bundle")
        target: Any = doc
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
        seen += 1
    return node


def _absolutize(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _absolutize(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            out["$ref"] = SPEC_URI + ref
        return out
    if isinstance(node, list):
        return [_absolutize(v) for v in node]
    return node


class Compiler:
    """Compiles schemas of one bundle into validators, sharing one registry."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.registry = jsonschema_rs.Registry([(SPEC_URI, _absolutize(doc))])

    def validator(self, schema: dict[str, Any]) -> Any:
        return jsonschema_rs.validator_for(_absolutize(schema), registry=self.registry, validate_formats=True)


def _first_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return kind or "string"


def _coercer(schema: dict[str, Any]) -> Callable[[str], Any]:
    kind = _first_type(schema)
    if kind == "integer":
        return _to_int
    if kind == "number":
        return _to_number
    if kind == "boolean":
        return _to_bool
    if kind == "array":
        return lambda raw: [part for part in raw.split(",") if part != ""]
    return str


def _to_int(raw: str) -> Any:
    """An integer within 64 bits; anything else stays a string for the validator to name."""
    try:
        value = int(raw, 10)
    except ValueError:
        return raw
    return value if -(2**63) <= value < 2**63 else raw


def _to_number(raw: str) -> Any:
    try:
        value = float(raw)
    except ValueError:
        return raw
    return value if value == value and value not in (float("inf"), float("-inf")) else raw


def _to_bool(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    return raw


@dataclass(slots=True)
class Param:
    name: str
    location: str
    required: bool
    coerce: Callable[[str], Any]
    validator: Any
    clamp: dict[str, Any] | None
    default: Any


@dataclass(slots=True)
class Security:
    anonymous: bool
    session: bool
    pat_scopes: tuple[str, ...] | None  # None: PATs are refused (session-only)


@dataclass(slots=True)
class Operation:
    operation_id: str
    method: str
    template: str
    regex: re.Pattern[str]
    specificity: tuple[int, int]
    tag: str
    reference: str
    security: Security
    params: list[Param]
    body_validator: Any | None
    body_required: bool
    if_match: str | None
    legacy_errors: bool
    error_codes: dict[str, list[str]]
    sse: bool
    mutating: bool
    raw: dict[str, Any] = field(repr=False)

    def clamp_of(self, name: str) -> dict[str, Any] | None:
        for param in self.params:
            if param.name == name:
                return param.clamp
        return None


def _security(operation: dict[str, Any]) -> Security:
    alternatives = operation.get("security") or []
    anonymous = any(alt == {} for alt in alternatives)
    session = any("session" in alt for alt in alternatives)
    pat = [tuple(alt["pat"]) for alt in alternatives if "pat" in alt]
    return Security(anonymous=anonymous, session=session, pat_scopes=pat[0] if pat else None)


def _json_schema(operation: dict[str, Any], doc: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    body = resolve(doc, operation.get("requestBody"))
    if not body:
        return None, False
    media = (body.get("content") or {}).get("application/json")
    if media is None:
        return None, bool(body.get("required"))
    return media.get("schema") or {}, bool(body.get("required"))


def compile_operations(doc: dict[str, Any]) -> list[Operation]:
    compiler = Compiler(doc)
    operations: list[Operation] = []
    for method, template, path_item, operation in iter_operations(doc):
        params: list[Param] = []
        raw_params = list(path_item.get("parameters") or []) + list(operation.get("parameters") or [])
        for raw in raw_params:
            param = resolve(doc, raw)
            schema = resolve(doc, param.get("schema") or {})
            params.append(
                Param(
                    name=param["name"],
                    location=param["in"],
                    required=bool(param.get("required")),
                    coerce=_coercer(schema),
                    validator=compiler.validator(param.get("schema") or {}),
                    clamp=param.get("x-clamp"),
                    default=schema.get("default"),
                )
            )
        body_schema, body_required = _json_schema(operation, doc)
        literal = re.sub(r"\{[^}]+\}", "", template)
        operations.append(
            Operation(
                operation_id=operation["operationId"],
                method=method.upper(),
                template=template,
                regex=path_regex(template),
                specificity=(len(literal), -template.count("{")),
                tag=(operation.get("tags") or [""])[0],
                reference=str(operation.get("x-reference", "")),
                security=_security(operation),
                params=params,
                body_validator=compiler.validator(body_schema) if body_schema is not None else None,
                body_required=body_required,
                if_match=operation.get("x-if-match"),
                legacy_errors=operation.get("x-error-format") == "legacy",
                error_codes=operation.get("x-error-codes", {}),
                sse=any(
                    "text/event-stream" in (resolve(doc, resp).get("content") or {})
                    for resp in operation.get("responses", {}).values()
                ),
                mutating=method in MUTATING,
                raw=operation,
            )
        )
    return operations


class Router:
    """Matches (method, path) to an operation; the most literal template wins
    (`/v1/teams/me/invites` before `/v1/teams/{id}/invites`; ids may contain
    colons, so `/v1/tokens/{id}:rotate` is tried before `/v1/tokens/{id}`)."""

    def __init__(self, operations: list[Operation]) -> None:
        self.by_id = {op.operation_id: op for op in operations}
        ordered = sorted(operations, key=lambda op: op.specificity, reverse=True)
        self._buckets: dict[tuple[str, int], list[Operation]] = {}
        for op in ordered:
            self._buckets.setdefault(_bucket(op.template), []).append(op)

    def match(self, method: str, path: str) -> tuple[Operation | None, dict[str, str], list[str]]:
        """(operation, path params, allowed methods when only the path matched).

        As in OpenAPI, the most specific matching path template decides: `PATCH
        /v1/tokens/me` is a 405 on `/v1/tokens/me`, not a PATCH of token "me"."""
        template: str | None = None
        allowed: list[str] = []
        for op in self._buckets.get(_bucket(path), ()):
            if template is not None and op.template != template:
                continue
            found = op.regex.match(path)
            if found is None:
                continue
            template = op.template
            if op.method == method:
                return op, found.groupdict(), []
            allowed.append(op.method)
        return None, {}, allowed


def _bucket(path: str) -> tuple[str, int]:
    """Resource and depth: `/v1/runs/{id}` and `/v1/runs:phase-stats` share `runs`;
    a path can only match templates with as many segments."""
    parts = path.split("/")
    head = parts[2] if len(parts) > 2 else ""
    return head.split(":", 1)[0], len(parts)


def validate_value(param: Param, value: Any) -> None:
    if not param.validator.is_valid(value):
        error = next(iter(param.validator.iter_errors(value)))
        raise invalid(f"{param.location} parameter '{param.name}': {error.message}", field=param.name)


def validate_body(op: Operation, body: Any) -> None:
    if op.body_validator is None or op.body_validator.is_valid(body):
        return
    error = next(iter(op.body_validator.iter_errors(body)))
    where = "/".join(str(p) for p in error.instance_path)
    name = f"body.{where.replace('/', '.')}" if where else "body"
    raise invalid(f"{name}: {error.message}", field=name)
