"""§3.8 preconditions on every route the spec marks `x-if-match`, as the spec marks it.

The routes and their marking (`enforced` or `ignored`) come from the spec alone, and so
does the state each check writes to: the instance is created through the spec's links
(an operation whose response links to the route, or to a route under the same
resource path, passing `$response.body#/id`), with the request examples the spec
gives, names made unique. On each route:

- `If-Match: *` matches the current row (`etag.star`);
- the ETag moves on a change, so the tag read before it is stale (`etag.moves`);
- an enforced route refuses the stale tag with `412 precondition_failed` carrying the
  current ETag (`etag.if_match`); an ignored one writes anyway (`etag.ignored`).

Against a live account the creators and the writes run only as the safety policy
allows (`require`): runs spend, and account-level routes change existing state.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from contracts.benchwright.suite._support import (
    LAUNCH,
    advance,
    body_of,
    code_of,
    cookie_header,
    example_of,
    expect,
    session_only,
)
from contracts.benchwright.suite.conftest import BUNDLE, OPERATIONS, require
from contracts.runner import unique
from mock_server.datafiles import REFERENCE_DIR

MARKED = sorted((name, op["x-if-match"]) for name, (_, _, op) in OPERATIONS.items() if op.get("x-if-match"))
REFERENCE = REFERENCE_DIR / "benchwright-api.md"


def _sections_stating_if_match() -> set[str]:
    """The reference sections whose own text states how their routes treat `If-Match`."""
    out, current = set(), None
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^#{2,5}\s+(\d+[a-z]?(?:\.\d+)*)\.?\s", line)
        if heading:
            current = "§" + heading.group(1)
        elif current and "If-Match" in line:
            out.add(current)
    return out


STATING = _sections_stating_if_match()


def _own_section(operation_id: str) -> str | None:
    """The route's own section, when that section states the behaviour checked (§8.8: "enforced on
    PATCH /v1/benchmarks/{id} only"): the check covers that claim too."""
    section = str(OPERATIONS[operation_id][2].get("x-reference") or "")
    return section if section in STATING else None


# the suite's own launch body: the spec's launch examples pin drivers an ordinary account may not use (§4.2.5)
CREATE_BODIES = {"launchRun": LAUNCH}
NAMES = ("name", "slug", "label")


def _links() -> list[tuple[str, str, dict[str, str]]]:
    """(creator, linked operation, parameters) for every 2xx link of the spec."""
    out = []
    for name, (_, _, operation) in OPERATIONS.items():
        for status, response in operation.get("responses", {}).items():
            if not status.startswith("2"):
                continue
            for link in (response.get("links") or {}).values():
                out.append((name, link.get("operationId"), link.get("parameters") or {}))
    return out


LINKS = _links()


def _creator(operation_id: str) -> tuple[str, dict[str, str]] | None:
    """An operation whose answer names an instance of `operation_id`'s resource: a link to it, or
    to an operation on the same resource path (`/v1/build/subsets/{id}` for `.../{id}/recipe`)."""
    _, path, _ = OPERATIONS[operation_id]
    needed = set(re.findall(r"\{([^}]+)\}", path))
    for creator, linked, parameters in LINKS:
        if linked not in OPERATIONS or creator == operation_id:
            continue
        linked_path = OPERATIONS[linked][1]
        addresses = linked == operation_id or path.startswith(linked_path + "/")
        if addresses and needed <= set(parameters) and all(parameters[k] == "$response.body#/id" for k in needed):
            return creator, {k: parameters[k] for k in needed}
    return None


class Instances:
    """Creates, through the spec's links and examples, the state a route writes to."""

    def __init__(self, client, target, policy, session_cookie) -> None:
        self.client, self.target, self.policy, self.session = client, target, policy, session_cookie
        self.paths: dict[str, str] = {}
        self.origins: dict[str, tuple[str, str]] = {}  # path -> (creator, id) of an instance not yet populated

    def send(self, operation_id: str, method: str, url: str, **kw: Any):
        _, _, operation = OPERATIONS[operation_id]
        if session_only(operation):
            if self.session is None:
                pytest.skip(f"{operation_id} needs a browser session (mock targets only)")
            return self.client.with_token(None).request(
                method, url, headers={**kw.pop("headers", {}), **cookie_header(self.session)}, **kw
            )
        return self.client.request(method, url, **kw)

    def path_of(self, operation_id: str) -> str:
        """`operation_id`'s path with its parameters naming an instance the suite created."""
        if operation_id in self.paths:
            return self.paths[operation_id]
        _, path, _ = OPERATIONS[operation_id]
        if "{" in path:
            found = _creator(operation_id)
            if found is None:
                pytest.fail(f"the spec links no operation that creates what {operation_id} writes to")
            creator, parameters = found
            ident = self.create(creator)
            path = re.sub(r"\{([^}]+)\}", lambda m: ident if m.group(1) in parameters else m.group(0), path)
            self.origins[path] = (creator, ident)
        self.paths[operation_id] = path
        return path

    def populate(self, path: str) -> bool:
        """Give an instance the children its creator's links create (a benchmark's subset, for
        the routes that address a benchmark by its live subset); False when there are none."""
        if path not in self.origins:
            return False
        creator, ident = self.origins.pop(path)
        made = False
        for source, linked, parameters in LINKS:
            method, child_path, child = OPERATIONS.get(linked, ("", "", {}))
            creates = method == "POST" and "201" in (child.get("responses") or {})  # a create, not an action
            if source != creator or not creates or "$response.body#/id" not in parameters.values():
                continue
            names = {k for k, v in parameters.items() if v == "$response.body#/id"}
            url = re.sub(
                r"\{([^}]+)\}", lambda m, names=names: ident if m.group(1) in names else m.group(0), child_path
            )
            if "{" in url:
                continue
            require(self.policy, linked)
            response = self.send(linked, "POST", url, json=self.unique(example_of(OPERATIONS[linked][2]) or {}))
            made = made or 200 <= response.status_code < 300
        return made

    def create(self, creator: str) -> str:
        require(self.policy, creator)
        method, _, operation = OPERATIONS[creator]
        body = self.unique(CREATE_BODIES.get(creator) or example_of(operation) or {})
        response = self.send(creator, method, self.path_of(creator), json=body)
        ident = (body_of(response) or {}).get("id")
        expect(
            200 <= response.status_code < 300 and isinstance(ident, str),
            "spec.status",
            f"{method} {OPERATIONS[creator][1]}",
            f"creating the instance answered {response.status_code} {code_of(response)}",
            response,
        )
        return ident

    def unique(self, body: Any) -> Any:
        """The example, with names made unique and ids of other resources replaced by ones the suite made."""
        if not isinstance(body, dict):
            return body
        suffix = unique.hex(8)
        out = dict(body)
        for key, value in body.items():
            if key in NAMES and isinstance(value, str):
                out[key] = value + ("_" + suffix.upper() if value.isupper() else "-" + suffix)
            elif isinstance(value, str) and re.fullmatch(r"[a-z]+_\S+:[0-9a-f]{12}", value):
                owner = next((n for n, (_, p, _) in OPERATIONS.items() if p == f"/v1/{key}s/{{id}}"), None)
                if owner is not None:
                    out[key] = self.path_of(owner).rsplit("/", 1)[-1]
        return out


def _tag(instances: Instances, operation_id: str, path: str, response) -> str | None:
    """The current ETag: the write's own, else the resource's GET that serves one (`x-etag`)."""
    if response is not None and response.headers.get("ETag"):
        return response.headers["ETag"]
    for name, (method, get_path, operation) in OPERATIONS.items():
        if method == "GET" and operation.get("x-etag"):
            concrete = re.sub(r"\{[^}]+\}", "([^/]+)", get_path)
            if re.fullmatch(concrete, path) or re.match(concrete + "/", path):
                ident = (re.match(concrete, path) or re.fullmatch(concrete, path)).group(1)
                read = instances.send(name, "GET", get_path.replace("{id}", ident))
                return read.headers.get("ETag")
    return None


DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _schema(node: Any) -> dict[str, Any]:
    """A schema with its `$ref` resolved; a composition (`allOf`, `oneOf`, `anyOf`) lends its
    first branch that constrains values (an enum, a format, properties)."""
    while isinstance(node, dict) and "$ref" in node:
        node = BUNDLE["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    if not isinstance(node, dict):
        return {}
    for combined in ("allOf", "oneOf", "anyOf"):
        for branch in node.get(combined) or []:
            branch = _schema(branch)
            if any(k in branch for k in ("enum", "const", "format", "pattern", "properties")):
                return {**node, **branch}
    return node


def vary(value: Any, schema: Any, n: int, key: str = "", in_array: bool = False) -> Any:
    """The spec's example, changed by `n`: another enum value, a suffixed string, a larger
    integer; ids, dates and constants kept. Objects inside arrays get the optional
    properties the example leaves out (a new sample needs them all)."""
    schema = _schema(schema)
    if "const" in schema or isinstance(value, bool) or value is None:
        return value
    if "enum" in schema:
        options = [v for v in schema["enum"] if v is not None]
        start = options.index(value) if value in options else 0
        return options[(start + n) % len(options)]
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        out = {k: vary(v, properties.get(k), n, k) for k, v in value.items()}
        if in_array:
            for name, prop in properties.items():
                if name not in out and _schema(prop).get("type") in (None, "string"):
                    out[name] = f"contract {n}"
        return out
    if isinstance(value, list):
        return [vary(v, schema.get("items"), n, key, in_array=True) for v in value]
    if isinstance(value, int):
        return value + n
    if isinstance(value, str) and not (
        key == "id" or key.endswith("_id") or DATE.match(value) or "format" in schema or "pattern" in schema
    ):
        return f"{value} {n}"
    return value


class Writer:
    """Writes of one route, each a change: the spec's example varied, the whole body or one
    field of it (the first form the route accepts is kept)."""

    def __init__(self, instances: Instances, operation_id: str, path: str) -> None:
        self.instances, self.operation_id, self.path = instances, operation_id, path
        self.method, _, operation = OPERATIONS[operation_id]
        self.schema = _schema(
            ((operation.get("requestBody") or {}).get("content", {}).get("application/json") or {}).get("schema")
        )
        example = example_of(operation) or {}
        self.forms = [None] + (list(example) if isinstance(example, dict) and len(example) > 1 else [])
        self.example = example
        self.form: str | None = None
        self.n = 0

    def body(self, form: str | None) -> Any:
        example = self.example if form is None else {form: self.example[form]}
        return vary(example, self.schema, self.n)

    def write(self, if_match: str):
        self.n += 1
        if self.form is not None or self.n > 1:
            return self.send(self.body(self.form), if_match)
        response = None
        for form in self.forms:
            response = self.send(self.body(form), if_match)
            if response.status_code == 404 and self.instances.populate(self.path):
                response = self.send(self.body(form), if_match)
            if 200 <= response.status_code < 300 or response.status_code == 412:
                self.form = form
                return response
        return response

    def send(self, body: Any, if_match: str):
        return self.instances.send(self.operation_id, self.method, self.path, json=body, headers={"If-Match": if_match})


@pytest.fixture(scope="module")
def instances(client, target, policy, session_cookie):
    return Instances(client, target, policy, session_cookie)


@pytest.mark.parametrize(("operation_id", "marking"), MARKED, ids=[f"{name}-{marking}" for name, marking in MARKED])
def test_if_match_as_the_spec_marks_it(instances, target, operation_id, marking, record_property):
    """§3.8: `*` matches; the ETag moves on a change; a stale tag is refused (enforced) or ignored."""
    require(instances.policy, operation_id)
    if _own_section(operation_id):
        record_property("covers", _own_section(operation_id))
    method, template, _ = OPERATIONS[operation_id]
    label = f"{method} {template}"
    path = instances.path_of(operation_id)
    if target.control:
        advance(target, 600)  # runs the suite launched are finished, so their visibility may change
    writer = Writer(instances, operation_id, path)
    star = writer.write("*")
    expect(
        200 <= star.status_code < 300,
        "etag.star",
        label,
        f"If-Match: * answered {star.status_code} {code_of(star)}",
        star,
    )
    before = _tag(instances, operation_id, path, star)
    ident = path.rstrip("/").rsplit("/", 1)[-1]
    again = writer.write(before or f'W/"{ident}:1"')
    if marking == "enforced" or before is not None:
        expect(
            200 <= again.status_code < 300,
            "etag.if_match",
            label,
            f"the current ETag was refused: {again.status_code} {code_of(again)}",
            again,
        )
        current = _tag(instances, operation_id, path, again)
        expect(
            current is not None and current != before,
            "etag.moves",
            label,
            f"the ETag did not move on a change ({before!r} -> {current!r})",
            again,
        )
    stale = writer.write(before or f'W/"{ident}:1"')
    if marking == "enforced":
        expect(
            stale.status_code == 412 and code_of(stale) == "precondition_failed",
            "etag.if_match",
            label,
            f"a stale If-Match answered {stale.status_code} {code_of(stale)}, not 412 precondition_failed",
            stale,
        )
        expect(
            stale.headers.get("ETag") == current,
            "§3.8#6",
            label,
            f"the 412 carries ETag {stale.headers.get('ETag')!r}, not the current {current!r}",
            stale,
        )
    else:
        expect(
            200 <= stale.status_code < 300,
            "etag.ignored",
            label,
            f"a stale If-Match on a route that ignores it answered {stale.status_code} {code_of(stale)}",
            stale,
        )
