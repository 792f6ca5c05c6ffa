"""The spec's own invariants, and its agreement with the reference.

The reference (docs/reference/benchwright-api.md, the version this spec was
written against) is parsed mechanically: every `METHOD /v1/...` route it names
must be an operation, and its JSON examples of the main objects must match the
schemas field for field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mock_server.apis import bundle as api_bundle
from mock_server.engine.compile import Compiler, compile_operations, resolve
from mock_server.engine.routing import Router
from mock_server.engine.spec import METHODS, MUTATING, SpecError, iter_operations, merge_fragments

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference" / "benchwright-api.md"

# Routes the reference names only to say they do not exist (§12a, §8.7, §8.8).
ABSENT = {("DELETE", "/v1/operators/{x}"), ("GET", "/v1/impls/{x}/code")}


@pytest.fixture(scope="module")
def bundle() -> dict[str, Any]:
    return api_bundle("benchwright")


def _reference_routes() -> set[tuple[str, str]]:
    text = REFERENCE.read_text(encoding="utf-8")
    found: set[tuple[str, str]] = set()
    prose = re.findall(r"(GET|POST|PUT|PATCH|DELETE) +`?(?:\{\{site\}\})?(/v1/[^\s`?\"]*)", text)
    table = re.findall(r"^\| *(GET|POST|PUT|PATCH|DELETE) *\| *`(/v1/[^`]*)`", text, flags=re.M)
    for method, path in prose + table:
        if "…" in path:  # an example with an elided id (`/v1/benchmarks/bm_01J…/subsets`)
            continue
        path = path.rstrip(":").rstrip(",")
        # the capture dropped `<placeholders>`: `/v1/runs//fork` and `/v1/runs/`
        path = re.sub(r"/(?=/)", "/{x}", path)
        path = re.sub(r"/$", "/{x}", path) if path.count("/") > 2 else path
        path = re.sub(r"/top_$", "/{x}", path)
        path = re.sub(r"\{[^}]+\}", "{x}", path)
        found.add((method, path))
    return found


def _spec_routes(bundle: dict[str, Any]) -> set[tuple[str, str]]:
    return {(m.upper(), re.sub(r"\{[^}]+\}", "{x}", p)) for m, p, _, _ in iter_operations(bundle)}


def test_every_reference_route_is_an_operation(bundle):
    """Appendix B: the reference is the authoritative list of what /v1 serves."""
    reference = _reference_routes()
    spec = _spec_routes(bundle)
    missing = sorted((reference - ABSENT) - spec)
    assert not missing, f"reference routes missing from the spec: {missing}"


def test_routes_the_reference_says_do_not_exist_stay_out(bundle):
    """§12a (no DELETE /v1/operators/{id}), §8.7 (no impl code), §8.8 (no authoring DELETEs)."""
    spec = _spec_routes(bundle)
    assert not (ABSENT & spec)
    for path in ("/v1/benchmarks/{x}", "/v1/subsets/{x}", "/v1/impls/{x}"):
        assert ("DELETE", path) not in spec


def test_spec_has_exactly_the_documented_operations(bundle):
    """116 documented method+path pairs: nothing invented, nothing dropped."""
    assert len(_spec_routes(bundle)) == 116
    assert _spec_routes(bundle) == (_reference_routes() - ABSENT)


def test_every_operation_is_complete(bundle):
    tags = {tag["name"] for tag in bundle["tags"]}
    seen: set[str] = set()
    for method, path, _, op in iter_operations(bundle):
        where = f"{method.upper()} {path}"
        assert op.get("operationId"), where
        assert op["operationId"] not in seen, f"duplicate operationId {op['operationId']}"
        seen.add(op["operationId"])
        assert len(op.get("tags", [])) == 1 and op["tags"][0] in tags, where
        assert op.get("security"), f"{where}: no security requirement"
        assert re.match(r"^(§\d+[a-z]?(\.\d+)*|Appendix B)", str(op.get("x-reference", ""))), where
        codes = op.get("x-error-codes") or {}
        assert codes, f"{where}: no documented error set"
        for status, listed in codes.items():
            assert re.fullmatch(r"[45]\d\d", status), where
            assert all(re.fullmatch(r"[a-z][a-z0-9_]*", c) for c in listed), where
        assert any(s.startswith("2") or s == "302" for s in op["responses"]), f"{where}: no success response"


def test_security_schemes_and_scopes_are_known(bundle):
    """§2.2: each operation's scopes come from the documented scope list."""
    scopes = set(bundle["components"]["schemas"]["Scope"]["enum"])
    assert len(scopes) == 13
    for method, path, _, op in iter_operations(bundle):
        for alternative in op["security"]:
            assert set(alternative) <= {"pat", "session"}, path
            for scope in alternative.get("pat", []):
                assert scope in scopes, f"{method} {path}: unknown scope {scope}"


def test_token_mutation_is_session_only(bundle):
    """§2.4: create, spend-cap patch, rotate and delete refuse PATs."""
    ops = {op["operationId"]: op for _, _, _, op in iter_operations(bundle)}
    for name in ("createToken", "patchToken", "rotateToken", "revokeToken"):
        assert ops[name]["security"] == [{"session": []}], name


def test_anonymous_access_only_where_documented(bundle):
    """§2.2, §8: registry reads and the read surface of public/unlisted runs."""
    for method, path, _, op in iter_operations(bundle):
        anonymous = {} in op["security"]
        if anonymous:
            assert method == "get", path
            assert path.startswith(("/v1/registry/", "/v1/runs/{id}", "/v1/openapi.json")), path


def _walk(node: Any, trail: str = "#"):
    if isinstance(node, dict):
        yield trail, node
        for key, value in node.items():
            yield from _walk(value, f"{trail}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{trail}/{index}")


def test_every_ref_resolves(bundle):
    for trail, node in _walk(bundle):
        if isinstance(node.get("$ref"), str):
            assert node["$ref"].startswith("#/"), f"{trail}: external ref after bundling"
            resolve(bundle, node)


def test_clamps_are_well_formed_and_never_maximums(bundle):
    """§3.4: a clamp is silent, so the schema must not also reject above it."""
    found = 0
    for trail, node in _walk(bundle):
        if "x-clamp" not in node:
            continue
        found += 1
        clamp = node["x-clamp"]
        schema = resolve(bundle, node.get("schema", {}))
        assert set(clamp) <= {"default", "min", "max"} and "max" in clamp, trail
        assert isinstance(clamp["max"], int | float), trail
        if "default" in clamp:
            assert clamp.get("min", clamp["default"]) <= clamp["default"] <= clamp["max"], trail
            assert schema.get("default") in (None, clamp["default"]), trail
        assert "maximum" not in schema and "exclusiveMaximum" not in schema, f"{trail}: clamp is also a maximum"
        if "min" in clamp:
            assert "minimum" not in schema and "exclusiveMinimum" not in schema, f"{trail}: clamp is also a minimum"
    assert found >= 6


def test_documented_clamps(bundle):
    """§3.4 lists 50/100, §5.1 500/1000, §8.1 200, §10.4 500, §12a 50/500 and wait 50."""
    ops = {op.operation_id: op for op in compile_operations(bundle)}
    assert ops["listRuns"].clamp_of("limit") == {"default": 50, "max": 100}
    assert ops["listRunEvents"].clamp_of("limit") == {"default": 500, "max": 1000}
    assert ops["listRegistryBenchmarks"].clamp_of("limit")["max"] == 200
    assert ops["listTransactions"].clamp_of("limit")["max"] == 500
    assert ops["getOperatorMessages"].clamp_of("limit") == {"default": 50, "max": 500}
    assert ops["getOperatorMessages"].clamp_of("wait")["max"] == 50


def test_if_match_marking(bundle):
    """§3.8/§8.8: enforced on runs, benchmarks and both build-subset PATCHes; ignored elsewhere."""
    marked = {op["operationId"]: op.get("x-if-match") for _, _, _, op in iter_operations(bundle)}
    enforced = {name for name, mode in marked.items() if mode == "enforced"}
    assert enforced == {"patchRun", "patchBenchmark", "patchBuildSubsetRecipe", "patchBuildSubsetTasks"}
    for name in ("patchSubset", "patchImpl", "patchToken", "patchSecret"):
        assert marked[name] == "ignored", name


def test_mutations_take_idempotency_keys(bundle):
    """§3.7: every POST/PUT/PATCH/DELETE accepts Idempotency-Key and may 409."""
    for method, path, _, op in iter_operations(bundle):
        if method in MUTATING:
            refs = [p.get("$ref") for p in op.get("parameters", [])]
            assert "#/components/parameters/IdempotencyKey" in refs, path
            assert "idempotency_conflict" in op["x-error-codes"]["409"], path


def test_legacy_error_surfaces(bundle):
    """§3.9: the operators surface and the legacy billing handlers answer {"error": ...}."""
    for _, path, _, op in iter_operations(bundle):
        legacy = op.get("x-error-format") == "legacy"
        if path.startswith("/v1/operators"):
            assert legacy, path
        if path in ("/v1/billing/topups", "/v1/billing/subscription"):
            assert legacy, path


def test_sse_operations(bundle):
    """§5.2, §12a: exactly two streams, text/event-stream with a data schema."""
    streams = []
    for _, path, _, op in iter_operations(bundle):
        media = op["responses"].get("200", {}).get("content", {})
        if "text/event-stream" in media:
            streams.append(path)
            assert op.get("x-sse"), path
    assert sorted(streams) == ["/v1/operators/{id}/events", "/v1/runs/{id}/events:stream"]


def test_creating_operations_link_onwards(bundle):
    """Stateful tests chain calls through OpenAPI links."""
    ops = {op["operationId"]: op for _, _, _, op in iter_operations(bundle)}
    for name in (
        "launchRun",
        "createToken",
        "createSecret",
        "createBenchmark",
        "createSubset",
        "createImpl",
        "createOperator",
    ):
        links = {}
        for status, response in ops[name]["responses"].items():
            if status.startswith("2"):
                links.update(resolve(bundle, response).get("links") or {})
        assert links, f"{name} has no links"
        for link in links.values():
            assert link["operationId"] in ops, link


def test_every_example_validates(bundle):
    compiler = Compiler(bundle)
    checked = 0
    for trail, node in _walk(bundle["paths"]):
        schema = node.get("schema")
        if not isinstance(schema, dict):
            continue
        examples = []
        if "example" in node:
            examples.append(node["example"])
        for example in (node.get("examples") or {}).values():
            example = resolve(bundle, example)
            if "value" in example:
                examples.append(example["value"])
        if not examples:
            continue
        validator = compiler.validator(schema)
        for example in examples:
            if isinstance(example, str) and resolve(bundle, schema).get("type") != "string":
                continue
            errors = [e.message for e in validator.iter_errors(example)]
            assert not errors, f"{trail}: {errors[:3]}"
            checked += 1
    assert checked >= 50


def test_duplicate_definitions_are_refused(tmp_path):
    """Fragments merge; a name defined twice is an error, not an override."""
    (tmp_path / "paths").mkdir()
    (tmp_path / "openapi.yaml").write_text((ROOT / "spec" / "benchwright" / "openapi.yaml").read_text())
    (tmp_path / "paths" / "a.yaml").write_text("components:\n  schemas:\n    Money: {type: object}\n")
    with pytest.raises(SpecError, match="Money"):
        merge_fragments(tmp_path)


def test_router_prefers_literal_segments(bundle):
    router = Router(compile_operations(bundle))
    assert router.match("POST", "/v1/teams/me/invites")[0].operation_id == "inviteToMyTeam"
    op, params, _ = router.match("POST", "/v1/tokens/3f1c:rotate")
    assert op.operation_id == "rotateToken" and params == {"id": "3f1c"}
    op, params, _ = router.match("GET", "/v1/registry/subsets/sub_bm_x:7281bbc31736/leaderboard")
    assert op.operation_id == "getRegistrySubsetLeaderboard" and params["id"] == "sub_bm_x:7281bbc31736"
    assert router.match("GET", "/v1/runs:phase-stats")[0].operation_id == "getRunPhaseStats"
    assert router.match("PUT", "/v1/runs")[2] == ["GET", "POST"] or set(router.match("PUT", "/v1/runs")[2]) == {
        "GET",
        "POST",
    }


# -- field for field against the reference's JSON examples --------------------------

_EXAMPLES = [
    # (section heading prefix, which json block in it, path into the block, schema)
    ("### 4.1 The Run object", 0, [], "Run"),
    ("### 7.1 GET /v1/runs/{id}/tasks", 0, ["data", 0], "TaskRow"),
    ("### 7.1 GET /v1/runs/{id}/tasks", 0, ["summary"], "TaskSummary"),
    ("### 6.1 GET /v1/runs/{id}/artifacts", 0, ["data", 0], "ArtifactRow"),
    ("### 10.1 GET /v1/billing/balance", 0, [], "Balance"),
    ("### 2.4 Token lifecycle", 0, ["data", 0], "TokenRow"),
    ("### 9.1 GET /v1/secrets", 0, ["data", 0], "Secret"),
    ("#### Reading messages", 0, [], "OperatorMessages"),
]


# Required fields the reference states in prose beside an abbreviated example.
PROSE_FIELDS = {"Balance": {"payer"}}  # §10.1: "The payer block (§2.5) is top-level `payer` here"


def _json_blocks(section: str) -> list[Any]:
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index(section)
    following = re.search(r"\n#{2,4} ", text[start + len(section) :])
    body = text[start : start + len(section) + (following.start() if following else len(text))]
    blocks = re.findall(r"```json\n(.*?)```", body, flags=re.S)
    parsed = []
    for block in blocks:
        block = re.sub(r"/\*.*?\*/", "", block)
        block = re.sub(r"^\s*(GET|POST|PATCH|DELETE|PUT) [^\n]*\n", "", block)
        block = re.sub(r"^\s*\d{3}\s*\n", "", block)
        block = re.sub(r",?\s*\n\s*…\s*(?=\n)", "", block)
        block = re.sub(r",(\s*[}\]])", r"\1", block)
        parsed.append(json.loads(block))
    return parsed


def _properties(bundle: dict[str, Any], schema: Any) -> dict[str, Any]:
    schema = resolve(bundle, schema)
    props = dict(schema.get("properties") or {})
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key) or []:
            props.update(_properties(bundle, part))
    return props


def _object_of(bundle: dict[str, Any], schema: Any) -> Any:
    schema = resolve(bundle, schema)
    for part in schema.get("anyOf") or schema.get("oneOf") or []:
        part = resolve(bundle, part)
        if part.get("type") != "null":
            return part
    return schema


def _compare(bundle: dict[str, Any], example: Any, schema: Any, where: str, problems: list[str]) -> None:
    schema = _object_of(bundle, schema)
    if isinstance(example, dict) and example:
        props = _properties(bundle, schema)
        if not props and schema.get("additionalProperties") not in (None, False):
            for key, value in example.items():
                _compare(bundle, value, schema["additionalProperties"], f"{where}.{key}", problems)
            return
        if not props:
            return
        for key, value in example.items():
            if key not in props:
                problems.append(f"{where}.{key}: in the reference example, not in the schema")
                continue
            _compare(bundle, value, props[key], f"{where}.{key}", problems)
    elif isinstance(example, list) and example and isinstance(schema.get("items"), dict):
        _compare(bundle, example[0], schema["items"], f"{where}[0]", problems)


@pytest.mark.parametrize(("section", "block", "path", "schema"), _EXAMPLES, ids=[e[3] for e in _EXAMPLES])
def test_schema_matches_reference_example_field_for_field(bundle, section, block, path, schema):
    example = _json_blocks(section)[block]
    for step in path:
        example = example[step]
    problems: list[str] = []
    target = {"$ref": f"#/components/schemas/{schema}"}
    _compare(bundle, example, target, schema, problems)
    assert not problems, "\n".join(problems)
    declared = set(_properties(bundle, target))
    assert set(example) <= declared
    required = set(resolve(bundle, target).get("required") or [])
    missing_required = {key for key in required if key not in example} - PROSE_FIELDS.get(schema, set())
    # a required field the reference's own example lacks would reject the reference
    assert not missing_required, f"{schema} requires {missing_required}, absent from the reference example"


def test_methods_are_lowercase_http_verbs(bundle):
    for path_item in bundle["paths"].values():
        assert set(path_item) - {"parameters", "summary", "description"} <= set(METHODS)


def test_live_safety_marks(bundle):
    """Issue of safety (§4.2, §10.2, §10.9, §12a, §2.4): what spends money or destroys data is marked,
    so the contract suite never runs it against a live account without an opt-in."""
    marked = {op["operationId"]: op.get("x-live-safety") for _, _, _, op in iter_operations(bundle)}
    assert set(marked.values()) <= {None, "spends", "destroys", "mutates"}
    for name in (
        "launchRun",
        "forkRun",
        "createTopup",
        "changeSubscription",
        "createOperator",
        "startOperator",
        "sendOperatorMessage",
    ):
        assert marked[name] == "spends", name
    assert marked["rotateToken"] == "destroys"
    writes = {op["operationId"] for m, _, _, op in iter_operations(bundle) if m != "get"}
    unmarked = {name for name in writes if not marked[name]}
    # only creations of new private rows run unmarked (DELETEs are destroys by method)
    deletes = {op["operationId"] for m, _, _, op in iter_operations(bundle) if m == "delete"}
    assert unmarked - deletes == {"createBenchmark", "createImpl", "createRegistryRangeName"}
