"""Load the spec, bundle it, and index its operations.

The spec is the single source of truth: the mock's routes, request validation,
scopes, clamps, `If-Match` enforcement and documented error codes are all read
from here, once, at start-up. Nothing per request walks the spec.

Bundling (see `spec/README.md`): the root `spec/openapi.yaml` and every fragment
in `spec/paths/` are merged, then the cross-cutting conventions are expanded into
each operation (standard headers, `Idempotency-Key`, shared error responses).
"""

from __future__ import annotations

import copy
import functools
import re
import sys
from pathlib import Path
from typing import Any

import yaml

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
METHODS = ("get", "put", "post", "delete", "patch")
MUTATING = {"post", "put", "patch", "delete"}
SPEC_URI = "urn:benchwright:spec"

_REASONS = {
    "400": "Bad request",
    "401": "Unauthenticated",
    "402": "Payment required",
    "403": "Forbidden",
    "404": "Not found",
    "409": "Conflict",
    "412": "Precondition failed",
    "429": "Too many requests",
    "500": "Server error",
    "501": "Not implemented on this deploy",
    "502": "Upstream failure",
    "503": "Temporarily unavailable",
}


class SpecError(ValueError):
    """The spec files are inconsistent (duplicate names, bad extensions...)."""


def _read_yaml(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise SpecError(f"{path.name}: not a mapping")
    return data


def fragment_files(spec_dir: Path = SPEC_DIR) -> list[Path]:
    return sorted((spec_dir / "paths").glob("*.yaml"))


def merge_fragments(spec_dir: Path = SPEC_DIR) -> dict[str, Any]:
    """Root document plus every fragment, without convention expansion."""
    doc = _read_yaml(spec_dir / "openapi.yaml")
    doc.setdefault("paths", {})
    components = doc.setdefault("components", {})
    origin: dict[tuple[str, str], str] = {}
    for section, items in components.items():
        for name in items or {}:
            origin[(section, name)] = "openapi.yaml"
    for path in fragment_files(spec_dir):
        frag = _read_yaml(path)
        unknown = set(frag) - {"paths", "components"}
        if unknown:
            raise SpecError(f"{path.name}: unexpected top-level keys {sorted(unknown)}")
        for route, item in (frag.get("paths") or {}).items():
            if route in doc["paths"]:
                raise SpecError(f"{path.name}: path {route} already defined in {origin[('paths', route)]}")
            doc["paths"][route] = item
            origin[("paths", route)] = path.name
        for section, items in (frag.get("components") or {}).items():
            target = components.setdefault(section, {})
            for name, value in (items or {}).items():
                if name in target:
                    raise SpecError(
                        f"{path.name}: components/{section}/{name} already defined in {origin[(section, name)]}"
                    )
                target[name] = value
                origin[(section, name)] = path.name
    return doc


def _header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def _scoped(operation: dict[str, Any]) -> bool:
    if any(alt.get("pat") for alt in operation.get("security") or []):
        return True
    return _session_only(operation)


def _session_only(operation: dict[str, Any]) -> bool:
    alternatives = operation.get("security") or []
    return bool(alternatives) and all(set(alt) == {"session"} for alt in alternatives)


def _shared_errors(method: str, path_item: dict[str, Any], operation: dict[str, Any]) -> dict[str, list[str]]:
    params = list(path_item.get("parameters") or []) + list(operation.get("parameters") or [])
    shared: dict[str, list[str]] = {
        "401": ["auth_required", "token_expired"],
        "429": ["rate_limited"],
    }
    if params or "requestBody" in operation or method in MUTATING:
        shared["400"] = ["invalid_argument"]
    if _scoped(operation):
        shared["403"] = ["scope_insufficient"]
    if any(_param_in(p) == "path" for p in params):
        shared["404"] = ["not_found"]
    if method in MUTATING:
        shared["409"] = ["idempotency_conflict"]
    if operation.get("x-if-match") == "enforced":
        shared["412"] = ["precondition_failed"]
    return shared


def _param_in(param: dict[str, Any]) -> str | None:
    return param.get("in") if "$ref" not in param else _REF_PARAM_IN.get(param["$ref"])


_REF_PARAM_IN: dict[str, str] = {}


def error_codes(operation: dict[str, Any]) -> dict[str, list[str]]:
    """Documented error codes by status, after expansion (read from the bundle)."""
    return operation.get("x-error-codes", {})


# Structured fields a code always carries (§2.2, §2.4, §4.7).
_CODE_FIELDS = {
    "scope_insufficient": ["required_scope"],
    "token_expired": ["expired_at"],
    "delete_blocked": ["id", "deleted", "halt_reason", "sandboxes_killed"],
}


def _error_response(status: str, codes: list[str], legacy: bool, session_only: bool = False) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if status == "429":
        headers["Retry-After"] = _header_ref("RetryAfter")
    if status == "412" and "precondition_failed" in codes:
        headers["ETag"] = {
            "description": "On `precondition_failed`, the resource's current ETag (§3.8).",
            "schema": {"$ref": "#/components/schemas/WeakETag"},
        }
    if legacy:
        content = {"application/json": {"schema": {"$ref": "#/components/schemas/LegacyError"}}}
        description = f"{_REASONS.get(status, 'Error')} (legacy body, §3.9): {', '.join(codes)}"
    else:
        parts: list[dict[str, Any]] = [
            {"$ref": "#/components/schemas/Problem"},
            {"properties": {"code": {"enum": sorted(set(codes))}}},
        ]
        for code in sorted(set(codes)):
            fields = _CODE_FIELDS.get(code)
            if fields and not (code == "scope_insufficient" and session_only):
                then = {"required": fields, "properties": {name: {} for name in fields}}
                parts.append({"if": {"properties": {"code": {"const": code}}}, "then": then})
        schema = {"allOf": parts}
        content = {"application/problem+json": {"schema": schema}}
        description = f"{_REASONS.get(status, 'Error')}: {', '.join(sorted(set(codes)))}"
    response: dict[str, Any] = {"description": description, "content": content}
    if headers:
        response["headers"] = headers
    return response


def expand(doc: dict[str, Any]) -> dict[str, Any]:
    """Expand the conventions of `spec/README.md` into every operation."""
    doc = copy.deepcopy(doc)
    params = doc["components"].get("parameters", {})
    _REF_PARAM_IN.clear()
    for name, param in params.items():
        _REF_PARAM_IN[f"#/components/parameters/{name}"] = param.get("in")
    for path_item in doc["paths"].values():
        for method in METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            _expand_operation(method, path_item, operation)
    return doc


def _expand_operation(method: str, path_item: dict[str, Any], operation: dict[str, Any]) -> None:
    parameters = operation.setdefault("parameters", [])
    if method in MUTATING:
        parameters.append({"$ref": "#/components/parameters/IdempotencyKey"})
    if operation.get("x-if-match"):
        parameters.append({"$ref": "#/components/parameters/IfMatch"})
    if not parameters:
        del operation["parameters"]
    codes: dict[str, list[str]] = {}
    for status, listed in _shared_errors(method, path_item, operation).items():
        codes.setdefault(status, []).extend(listed)
    for status, listed in (operation.get("x-errors") or {}).items():
        codes.setdefault(str(status), []).extend(listed)
    codes = {status: sorted(set(listed)) for status, listed in sorted(codes.items())}
    operation["x-error-codes"] = codes
    legacy = operation.get("x-error-format") == "legacy"
    responses = operation.setdefault("responses", {})
    for status, listed in codes.items():
        if status not in responses:
            responses[status] = _error_response(status, listed, legacy, _session_only(operation))
    for status, response in responses.items():
        if "$ref" in response:
            continue
        headers = response.setdefault("headers", {})
        headers.setdefault("X-Benchwright-Request-Id", _header_ref("RequestId"))
        headers.setdefault("X-Benchwright-Api-Version", _header_ref("ApiVersion"))
        headers.setdefault("X-RateLimit-Limit", _header_ref("RateLimitLimit"))
        headers.setdefault("X-RateLimit-Remaining", _header_ref("RateLimitRemaining"))
        headers.setdefault("X-RateLimit-Reset", _header_ref("RateLimitReset"))
        if method in MUTATING and status.startswith("2"):
            headers.setdefault("Idempotent-Replayed", _header_ref("IdempotentReplayed"))


@functools.lru_cache(maxsize=4)
def _bundle_cached(spec_dir: str) -> dict[str, Any]:
    return expand(merge_fragments(Path(spec_dir)))


def load_bundle(spec_dir: Path = SPEC_DIR) -> dict[str, Any]:
    """The bundled spec. Cached: callers must not mutate it."""
    return _bundle_cached(str(spec_dir))


def iter_operations(doc: dict[str, Any]):
    """Yield (method, path, path_item, operation) for every operation."""
    for route, path_item in doc["paths"].items():
        for method in METHODS:
            if method in path_item:
                yield method, route, path_item, path_item[method]


def path_regex(template: str, params: dict[str, dict[str, Any]] | None = None) -> re.Pattern[str]:
    """Compile a path template; a parameter matches one non-empty segment."""
    out = []
    pos = 0
    for match in re.finditer(r"\{([^}]+)\}", template):
        out.append(re.escape(template[pos : match.start()]))
        out.append(f"(?P<{match.group(1)}>[^/]+)")
        pos = match.end()
    out.append(re.escape(template[pos:]))
    return re.compile("^" + "".join(out) + "$")


def main(argv: list[str] | None = None) -> int:
    """`python -m mock_server.spec [--out FILE]`: write the bundle as JSON."""
    import json

    argv = sys.argv[1:] if argv is None else argv
    bundle = load_bundle()
    text = json.dumps(bundle, indent=2, ensure_ascii=False)
    if argv[:1] == ["--out"] and len(argv) == 2:
        Path(argv[1]).parent.mkdir(parents=True, exist_ok=True)
        Path(argv[1]).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
