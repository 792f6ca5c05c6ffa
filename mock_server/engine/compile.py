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

from ..policies.pagination import clamp
from ..policies.problems import Problem, invalid
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


# OpenAPI's integer formats, enforced as the ranges they name (JSON Schema treats
# `format` on numbers as an annotation only).
_INT_RANGES = {"int64": (-(2**63), 2**63 - 1), "int32": (-(2**31), 2**31 - 1)}


def _absolutize(node: Any) -> Any:
    """Make internal `$ref`s absolute (one registry per bundle) and turn integer
    formats into the bounds they name. A schema's `x-handler-checks` names keywords its
    handler checks itself, because the refusal's documented detail says more than a
    schema error can (the unknown key, the fields one may send): the engine leaves them
    to it."""
    if isinstance(node, dict):
        skip = set(node.get("x-handler-checks") or ())
        out = {k: _absolutize(v) for k, v in node.items() if k not in skip}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            out["$ref"] = SPEC_URI + ref
        bounds = _INT_RANGES.get(out.get("format")) if isinstance(out.get("format"), str) else None
        if bounds is not None:
            out.setdefault("minimum", bounds[0])
            out.setdefault("maximum", bounds[1])
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
        """Messages name the place and the rule, never the submitted value (`mask`): a 400
        must not echo a token or a password a client put in the wrong field."""
        return jsonschema_rs.validator_for(
            _absolutize(schema), registry=self.registry, validate_formats=True, mask="the value"
        )


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
        return _to_list
    return str


def _to_list(raw: str) -> list[str]:
    """A `form`, `explode: false` array: comma-separated items, each kept as sent, so `a,` is
    `["a", ""]` and the items' schema names an empty item; an empty value is no items."""
    return raw.split(",") if raw else []


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
    invalid_code: str = "invalid_argument"  # `x-invalid-code`: the code a value outside the schema gets
    single: bool = True  # one value (not an array): given twice in a query, it is refused
    absent: Any = field(init=False)  # the value a request that leaves it out gets (x-clamp default, else default)

    def __post_init__(self) -> None:
        self.absent = clamp(None, self.clamp) if self.clamp else self.default


@dataclass(slots=True)
class Security:
    """The operation's security requirement: alternatives of {scheme: scopes}.

    `{}` among the alternatives means anonymous callers are let in. What the
    pipeline asks of it on every request is worked out once, when the spec is
    compiled."""

    alternatives: tuple[dict[str, tuple[str, ...]], ...]
    anonymous: bool = field(init=False)
    open: bool = field(init=False)  # anyone, with or without a credential (e.g. the spec document)
    _first: dict[str, tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.anonymous = any(not alt for alt in self.alternatives)
        self.open = self.alternatives == () or all(not alt for alt in self.alternatives)
        first: dict[str, tuple[str, ...]] = {}
        for alt in self.alternatives:
            for scheme, scopes in alt.items():
                first.setdefault(scheme, scopes)
        self._first = first

    def accepts(self, scheme: str) -> bool:
        return scheme in self._first

    def scopes(self, scheme: str) -> tuple[str, ...] | None:
        """The scopes the first alternative naming `scheme` asks for; None if none names it."""
        return self._first.get(scheme)


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
    body_media: str | None  # "json" | "multipart" | "other" | None (no request body)
    form: Form | None
    if_match: str | None
    error_format: str | None
    error_codes: dict[str, list[str]]
    sse: bool
    mutating: bool
    raw: dict[str, Any] = field(repr=False)

    def clamp_of(self, name: str) -> dict[str, Any] | None:
        for param in self.params:
            if param.name == name:
                return param.clamp
        return None


def _security(operation: dict[str, Any], doc: dict[str, Any]) -> Security:
    alternatives = operation.get("security", doc.get("security")) or []
    return Security(tuple({scheme: tuple(scopes) for scheme, scopes in alt.items()} for alt in alternatives))


@dataclass(slots=True)
class Form:
    """A `multipart/form-data` body: its text fields (typed), its file fields."""

    validator: Any
    types: dict[str, str]
    files: frozenset[str]
    required_files: frozenset[str]


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def _request_body(operation: dict[str, Any], doc: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None, bool]:
    """(media kind, schema, required) of the operation's request body."""
    body = resolve(doc, operation.get("requestBody"))
    if not body:
        return None, None, False
    content = body.get("content") or {}
    required = bool(body.get("required"))
    for media_type, media in content.items():
        if _is_json(media_type):
            return "json", media.get("schema") or {}, required
    if "multipart/form-data" in content:
        return "multipart", content["multipart/form-data"].get("schema") or {}, required
    return "other", None, required


def _is_file(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "array":
        schema = schema.get("items") or {}
    return schema.get("format") == "binary" or "contentMediaType" in schema or "contentEncoding" in schema


def _form(schema: dict[str, Any], doc: dict[str, Any], compiler: Compiler) -> Form:
    schema = resolve(doc, schema)
    properties = {name: resolve(doc, prop) for name, prop in (schema.get("properties") or {}).items()}
    files = frozenset(name for name, prop in properties.items() if _is_file(prop))
    fields = {name: prop for name, prop in properties.items() if name not in files}
    text_schema = {
        **{k: v for k, v in schema.items() if k not in ("properties", "required")},
        "type": "object",
        "properties": fields,
        "required": [name for name in schema.get("required") or [] if name not in files],
    }
    required_files = frozenset(name for name in schema.get("required") or [] if name in files)
    types = {name: _first_type(prop) for name, prop in fields.items()}
    return Form(compiler.validator(text_schema), types, files, required_files)


def _error_codes(operation: dict[str, Any]) -> dict[str, list[str]]:
    """Documented codes by status: `x-error-codes` (after a profile's expansion) or `x-errors`."""
    codes = operation.get("x-error-codes") or operation.get("x-errors") or {}
    return {str(status): list(listed) for status, listed in codes.items()}


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
                    invalid_code=param.get("x-invalid-code", "invalid_argument"),
                    single="array" not in _types(schema),
                )
            )
        body_media, body_schema, body_required = _request_body(operation, doc)
        json_schema = body_schema if body_media == "json" else None
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
                security=_security(operation, doc),
                params=params,
                body_validator=compiler.validator(json_schema) if json_schema is not None else None,
                body_required=body_required,
                body_media=body_media,
                form=_form(body_schema or {}, doc, compiler) if body_media == "multipart" else None,
                if_match=operation.get("x-if-match"),
                error_format=operation.get("x-error-format"),
                error_codes=_error_codes(operation),
                sse=any(
                    "text/event-stream" in (resolve(doc, resp).get("content") or {})
                    for resp in operation.get("responses", {}).values()
                ),
                mutating=method in MUTATING,
                raw=operation,
            )
        )
    return operations


def validate_value(param: Param, value: Any) -> None:
    if not param.validator.is_valid(value):
        error = next(iter(param.validator.iter_errors(value)))
        detail = f"{param.location} parameter '{param.name}': {error.message}"
        raise Problem(400, param.invalid_code, detail, field=param.name)


def validate_body(op: Operation, body: Any) -> None:
    if op.body_validator is None or op.body_validator.is_valid(body):
        return
    error = next(iter(op.body_validator.iter_errors(body)))
    where = "/".join(str(p) for p in error.instance_path)
    name = f"body.{where.replace('/', '.')}" if where else "body"
    raise invalid(f"{name}: {error.message}", field=name)


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
