"""Load one API's spec and bundle it.

The spec is the single source of truth: the mock's routes, request validation,
scopes, clamps, preconditions and documented error codes are all read from it,
once, at start-up. Nothing per request walks the spec.

Bundling: the root `spec/<api>/openapi.yaml` and every fragment in
`spec/<api>/paths/` are merged; then the API's profile may expand its
cross-cutting conventions into every operation (Benchwright adds its standard
headers and shared error responses this way, see `spec/benchwright/README.md`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..datafiles import SPEC_ROOT as SPEC_ROOT  # where spec/<api>/ lives (a checkout or an installed wheel)

METHODS = ("get", "put", "post", "delete", "patch")
MUTATING = {"post", "put", "patch", "delete"}
SPEC_URI = "urn:harness:spec"

Expander = Callable[[dict[str, Any]], dict[str, Any]]


class SpecError(ValueError):
    """The spec files are inconsistent (duplicate names, bad extensions...)."""


def _read_yaml(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise SpecError(f"{path.name}: not a mapping")
    return data


def fragment_files(spec_dir: Path) -> list[Path]:
    return sorted((spec_dir / "paths").glob("*.yaml"))


def merge_fragments(spec_dir: Path) -> dict[str, Any]:
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


@functools.lru_cache(maxsize=16)
def _bundle_cached(spec_dir: str, expand: Expander | None) -> dict[str, Any]:
    merged = merge_fragments(Path(spec_dir))
    return expand(merged) if expand else merged


def load_bundle(spec_dir: Path, expand: Expander | None = None) -> dict[str, Any]:
    """The bundled spec. Cached: callers must not mutate it."""
    return _bundle_cached(str(spec_dir), expand)


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


def _whole_parameter(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}") and segment.count("{") == 1


def shadowed(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """(method, template) of operations a literal sibling path can shadow: `DELETE
    /v1/host-policy/{id}` with `id=default` reaches `/v1/host-policy/default`, which has no
    DELETE, so the router answers `405 method_not_allowed` (the most literal template decides).
    Profiles document that 405 on exactly these operations."""
    templates = {path: {m for m in METHODS if m in item} for path, item in doc["paths"].items()}
    split = {path: path.split("/") for path in templates}
    found: set[tuple[str, str]] = set()
    for path, methods in templates.items():
        parts = split[path]
        if "{" not in path:
            continue
        for other, other_methods in templates.items():
            theirs = split[other]
            if other == path or len(theirs) != len(parts):
                continue
            covers = all(a == b or (_whole_parameter(a) and "{" not in b) for a, b in zip(parts, theirs, strict=True))
            if covers:
                found.update((method, path) for method in methods - other_methods)
    return found


def write_bundle(bundle: dict[str, Any], out: Path | None) -> None:
    text = json.dumps(bundle, indent=2, ensure_ascii=False)
    if out is None:
        print(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")
