"""The BenchGen spec's own invariants: documented paths exactly, declared errors, valid examples."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jsonschema_rs
import pytest

from mock_server.engine.profile import SPEC_ROOT
from mock_server.engine.spec import iter_operations, merge_fragments

DOC = merge_fragments(SPEC_ROOT / "benchgen")
OPS = {op["operationId"]: (method, path, op) for method, path, _, op in iter_operations(DOC)}
PACKAGE = Path(__file__).resolve().parents[2] / "mock_server" / "benchgen"
ERROR_SCHEMAS = {"Error", "PermissionDenied", "InsufficientCredits", "Throttled"}


def _resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        target = DOC
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def test_the_six_documented_operations_at_their_printed_paths():
    """Reference "API reference" and "What you can run": the paths exactly, trailing slashes included (B.1)."""
    assert sorted((m.upper(), p) for m, p, _ in OPS.values()) == sorted([
        ("GET", "/api/competitions/public/"),
        ("POST", "/api/competitions/{id}/register/"),
        ("POST", "/models/api/queue_benchmark_run"),
        ("GET", "/api/submissions/{submission_id}/run_status/"),
        ("GET", "/api/submissions/{submission_id}/item_results/"),
        ("GET", "/api/user_llm_models/"),
    ])  # fmt: skip
    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "benchgen-api.md").read_text()
    for _, path, _ in OPS.values():
        printed = re.sub(r"\{[^}]+\}", "{", path)
        assert any(re.sub(r"\{[^}]+\}", "{", p) == printed for p in re.findall(r"/[\w/{}]+", text)), path


@pytest.mark.parametrize("operation_id", sorted(OPS))
def test_every_error_status_is_declared_and_uses_the_error_schema(operation_id):
    """Project convention: x-errors by status; each status has a response whose schema is the DRF error."""
    _, path, op = OPS[operation_id]
    declared = op["x-errors"]
    assert "400" in declared and "invalid" in declared["400"]
    if op["security"] != [{}, {"token": []}]:
        assert set(declared["401"]) == {"not_authenticated", "authentication_failed"}
        assert declared["403"] == ["permission_denied"]
    if "{" in path:
        assert "not_found" in declared["404"]
    for status in declared:
        response = _resolve(op["responses"][status])
        schema = response["content"]["application/json"]["schema"]
        assert schema["$ref"].rsplit("/", 1)[1] in ERROR_SCHEMAS, (operation_id, status)
    assert {s for s in op["responses"] if s[0] in "45"} == set(declared)


def test_every_code_the_package_raises_is_declared_somewhere():
    """Codes raised in the model, auth and resources appear in some operation's x-errors (spec is the source)."""
    declared = {code for _, _, op in OPS.values() for codes in op["x-errors"].values() for code in codes}
    raised: set[str] = set()
    for source in [*PACKAGE.glob("model/*.py"), *PACKAGE.glob("resources/*.py"), PACKAGE / "auth.py"]:
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("DomainError", "Problem", "_refuse"):
                codes = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                codes += [k.value.value for k in node.keywords if k.arg == "code" and isinstance(k.value, ast.Constant)]
                raised.update(c for c in codes if re.fullmatch(r"[a-z_]+", c))
    raised.discard("conflict")  # the control surface's own refusal (finishing a finished run)
    raised.discard("invalid")  # DomainError("invalid") is raised only by control-surface inputs; declared anyway
    assert raised, "found no raised codes: the scan is broken"
    assert raised <= declared, raised - declared


def test_scopes_are_the_documented_two_and_every_operation_names_known_ones():
    """B-45: benchmark:read and benchmark:run; B-05: only the listing admits anonymous callers."""
    assert set(DOC["x-scopes"]["scopes"]) == {"benchmark:read", "benchmark:run"}
    for operation_id, (_, _, op) in OPS.items():
        for alternative in op["security"]:
            for scopes in alternative.values():
                assert set(scopes) <= set(DOC["x-scopes"]["scopes"])
        assert ({} in op["security"]) == (operation_id == "listPublicCompetitions")


def test_examples_validate_against_their_schemas():
    """Every example in the spec is valid for its schema (request and response)."""
    checked = 0
    for _, _, op in OPS.values():
        bodies = [op.get("requestBody", {}), *op["responses"].values()]
        for holder in bodies:
            holder = _resolve(holder)
            for media in (holder.get("content") or {}).values():
                examples = [media["example"]] if "example" in media else []
                examples += [e["value"] for e in (media.get("examples") or {}).values()]
                validator = jsonschema_rs.validator_for(
                    {**media["schema"], "components": DOC["components"]}, validate_formats=True
                )
                for example in examples:
                    assert validator.is_valid(example), example
                    checked += 1
    assert checked >= 10
