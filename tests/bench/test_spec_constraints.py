"""The Bench spec states every constraint the mock enforces (issue item 4, docs/schemathesis.md).

Each rule of the inventory below is one refusal a Bench handler (or the engine, from the spec)
raises on request input. A rule holds a request that violates only that rule and, where the
accepting state can be built through the API, a neighbouring request that satisfies the spec.
The tests prove, per rule:

- the violating request is refused with the rule's status and code, a code the operation
  documents (`x-errors`);
- a `schema` rule's violation is invalid per the spec's own schemas (read from the bundle,
  `x-handler-checks` keywords included: they are the spec's, only enforced by the handler); a
  `refusal` rule's violation is schema-valid and its code is listed in the operation's
  `x-schema-valid-refusals` (state, or content no schema can express, docs/interpretations.md);
- the satisfying request is schema-valid and accepted (2xx).

`test_every_request_refusal_is_in_the_inventory` reads the handlers' source for their 400, 402
and 413 refusals, so a new refusal fails until it is classified here. Limits, patterns and
codes are the spec's; the requests only pick values on either side of them. Claims: C-24,
C-26–C-32, C-34–C-43, C-48, C-51, C-54, C-66 and the research proposals C.3 §7, §8, §14, §16,
§23, §28 (contracts/bench/claims.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from mock_server.bench.spec_catalog import load_spec, spec_operations

from .conftest import OAUTH, auth

SPEC = load_spec()
OPS = {op["operationId"]: (method, path, op) for method, path, op in spec_operations(SPEC)}
URI = "urn:bench-spec"
ABSENT: Any = object()
HANDLERS = Path(__file__).resolve().parents[2] / "mock_server" / "bench"


def _absolute(node: Any) -> Any:
    """The bundle with internal references made absolute; every keyword kept (no `x-handler-checks` skipping)."""
    if isinstance(node, dict):
        out = {k: _absolute(v) for k, v in node.items()}
        if isinstance(out.get("$ref"), str) and out["$ref"].startswith("#/"):
            out["$ref"] = URI + out["$ref"]
        return out
    if isinstance(node, list):
        return [_absolute(v) for v in node]
    return node


REGISTRY = jsonschema_rs.Registry([(URI, _absolute(SPEC))])


def _errors(schema: dict[str, Any], instance: Any) -> list[str]:
    validator = jsonschema_rs.validator_for(_absolute(schema), registry=REGISTRY, validate_formats=True)
    return [e.message for e in validator.iter_errors(instance)]


@dataclass(frozen=True)
class Req:
    op: str
    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = ABSENT
    form: dict[str, Any] | None = None
    files: tuple[tuple[str, str, bytes], ...] = ()  # (field, file name, bytes)
    token: str | None = OAUTH


PATH_DEFAULTS = {"id": "123", "datasetID": "ds_1", "owner": "acme", "repo": "support-bot"}


def _url(req: Req) -> str:
    template = OPS[req.op][1]
    return re.sub(r"\{([^}]+)\}", lambda m: req.path.get(m.group(1), PATH_DEFAULTS.get(m.group(1), "")), template)


def _path_values(req: Req) -> dict[str, str]:
    names = re.findall(r"\{([^}]+)\}", OPS[req.op][1])
    return {n: req.path.get(n, PATH_DEFAULTS.get(n, "")) for n in names}


def _form_instance(op: dict[str, Any], req: Req) -> dict[str, Any]:
    """The multipart form as the schema sees it: fields the spec encodes as JSON decoded, files as strings."""
    media = op["requestBody"]["content"]["multipart/form-data"]
    props = media["schema"]["properties"]
    out: dict[str, Any] = {}
    for name, value in (req.form or {}).items():
        out[name] = value
    for name in {name for name, _, _ in req.files}:
        parts = [""] * sum(1 for n, _, _ in req.files if n == name)
        # An array field holds its parts; a one-file field sent twice is a list where the schema has a string.
        out[name] = parts if props.get(name, {}).get("type") == "array" or len(parts) > 1 else ""
    return out


def schema_problems(req: Req) -> list[str]:
    """Why the request is invalid per the spec (parameters, JSON body, multipart form), or nothing."""
    _, _, op = OPS[req.op]
    values = {"path": _path_values(req), "query": req.query, "header": req.headers}
    problems: list[str] = []
    for param in op.get("parameters", []):
        value = values[param["in"]].get(param["name"])
        if value is None:
            if param.get("required"):
                problems.append(f"{param['in']} {param['name']} is required")
            continue
        problems += [f"{param['name']}: {m}" for m in _errors(param["schema"], value)]
    body = op.get("requestBody")
    if body is None:
        return problems
    content = body["content"]
    if "application/json" in content:
        if req.json is ABSENT:
            return problems + (["a body is required"] if body.get("required") else [])
        return problems + _errors(content["application/json"]["schema"], req.json)
    if req.form is None and not req.files:
        return problems + (["a body is required"] if body.get("required") else [])
    return problems + _errors(content["multipart/form-data"]["schema"], _form_instance(op, req))


def send(client, req: Req):
    method, _, op = OPS[req.op]
    headers = {**(auth(req.token) if req.token else {}), **req.headers}
    kw: dict[str, Any] = {"headers": headers, "params": req.query}
    if req.json is not ABSENT:
        kw["json"] = req.json
    if req.form is not None or req.files:
        encoding = op["requestBody"]["content"]["multipart/form-data"].get("encoding", {})
        fields = {
            k: json.dumps(v) if encoding.get(k, {}).get("contentType") == "application/json" else str(v)
            for k, v in (req.form or {}).items()
        }
        kw["content"], kw["headers"]["Content-Type"] = _multipart(fields, req.files)
    return client.request(method, _url(req), **kw)


def _multipart(fields: dict[str, str], files: tuple[tuple[str, str, bytes], ...]) -> tuple[bytes, str]:
    """A multipart/form-data body, also when it holds no file (a client would still send the form as multipart)."""
    boundary = "bench-spec-constraints"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    for name, filename, data in files:
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        )
        parts.append(head.encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str  # "schema" | "refusal"
    invalid: Req
    status: int
    code: str
    valid: Req | None  # None: the accepting state needs a value the API hands out of band
    before: tuple[Req, ...] = ()
    why: str = ""


def rule(rid: str, kind: str, invalid: Req, status: int, code: str, valid: Req | None, *before: Req, why: str = ""):
    return Rule(rid, kind, invalid, status, code, valid, before, why)


def _with(req: Req, **changes: Any) -> Req:
    return Req(**{**req.__dict__, **changes})


def _body(req: Req, **members: Any) -> Req:
    """The request with JSON body members replaced; a member set to ABSENT is left out."""
    merged = {**req.json, **members}
    return _with(req, json={k: v for k, v in merged.items() if v is not ABSENT})


def _form(req: Req, **fields: Any) -> Req:
    merged = {**(req.form or {}), **fields}
    return _with(req, form={k: v for k, v in merged.items() if v is not ABSENT})


SPEC_LIMITS = {op_id: op for op_id, (_, _, op) in OPS.items()}
CSV = b"question,expected,actual\nCan I return shoes?,approve,approve\n"
MAPPING = {"input": "question", "expected": "expected", "actual": "actual"}
NOTICE = SPEC["x-processing-notice"]

# ---- valid requests, one per operation (fixture state: docs/bench.md) ---------------------------------------
CTX_SOURCE = Req(
    "put_context_source",
    json={
        "expected_version": 3,
        "source": {
            "id": "manual-refunds",
            "kind": "user",
            "category": "rules_constraints",
            "scope": "system",
            "text": "Refund only within 30 days of purchase.",
        },
    },
)
DOC = Req(
    "upload_context_document",
    form={"category": "rules_constraints", "expected_version": 3},
    files=(("file", "policy.md", b"Refunds within 30 days."),),
)
CONNECTION = Req(
    "create_context_connection",
    json={
        "config": {
            "provider": "langfuse",
            "base_url": "https://cloud.langfuse.com",
            "project": "shop",
            "since": "2026-01-01",
        },
        "credentials": {"api_key": "lf_key"},
        "content_consent": True,
    },
)
PREVIEW = Req("preview_dataset", form={"mode": "recorded_outputs"}, files=(("file", "cases.csv", CSV),))
UPLOAD = Req(
    "upload_dataset",
    form={"mode": "recorded_outputs", "content_consent": True, "mapping": MAPPING},
    files=(("file", "cases.csv", CSV),),
)
IMPORT = Req("import_dataset_cases", json={"dataset_id": "ds_1", "component_id": 456})
REMAP = Req("remap_dataset", json={"expected_version": 1, "mapping": MAPPING, "mode": "recorded_outputs"})
CHECKOUT = Req("create_checkout", json={"price_id": "price_builder_monthly", "return_path": "/settings/billing"})
PLAN = Req(
    "runtime_eval_plan",
    json={
        "cases": [{"id": "c1", "input": "Can I refund?"}],
        "configurations": [{"id": "cfg"}],
        "budget": {"max_trials": 1},
    },
)
PLAN_PATH = {"planID": "plan_1"}
RUN = Req("runtime_eval_run", headers={"Idempotency-Key": "run-key-0001"}, json={"plan_id": "plan_1"})
RUN_PATH = {"runID": "rr_1"}
REPORT = Req(
    "publish_runtime_evaluation",
    json={"schema_version": 1, "execution_mode": "local", "cases": [], "summary": {"passed": 0}},
)
PR = Req("open_prompt_pr", json={"title": "Tighten", "changes": [{"path": "app/prompts.py", "content": "x"}]})
BENCHMARK = Req("generate_eval_benchmark", query={"branch": "main"})
REVIEW = Req("review_eval_benchmark", query={"branch": "main"}, json={"test_cases": [{"id": "gc_1"}]})
WORKSPACE = Req("create_workspace", json={"name": "Acme"})
INVITE = Req("invite_workspace_member", json={"email": "ada@example.com", "role": "member"})
ACK = Req("acknowledge_processing", json={"accepted": True, "source": "sdk", "version": NOTICE["version"]})
KEY = Req("create_api_key", json={"name": "ci"})
SYSTEM = Req("create_system", json={"name": "Refund bot"})
TRACES = Req("ingest_traces", json={"traces": [{"trace_id": "tr_new", "spans": [{"span_id": "s1", "name": "x"}]}]})
SPAN_Q = Req("evaluate_span", path={"id": "tr_seed", "spanID": "sp_1"}, json={"question": "Is it polite?"})
SETTINGS = Req(
    "set_runtime_settings",
    json={"repository": "acme/support-bot", "branch": "main", "enabled": False, "daily_limit": 1, "config": {}},
)
PRIVACY = Req("set_trace_privacy", json={"enabled": True, "fields": ["input", "llm.output_messages"]})
PROMPTS = Req("upload_prompts", form={"pasted_text": "You answer refund questions."})
START = Req(
    "start_evaluation", json={"repo_full_name": "acme/support-bot", "prompts": [{"call_site_id": "app/refunds.py:12"}]}
)
UTF8_BAD = b"\xff\xfe\xfa"


def _big(limit: int) -> bytes:
    return b"a" * (limit + 1)


RULES: list[Rule] = [
    # -- context (C-30, C-33–C-43; C.3 §7, §8) --
    rule(
        "get_system_context:version",
        "schema",
        Req("get_system_context", query={"version": "-1"}),
        400,
        "invalid_version",
        Req("get_system_context", query={"version": "1"}),
    ),
    rule(
        "list_context_sources:offset",
        "schema",
        Req("list_context_sources", query={"offset": "x"}),
        400,
        "invalid_page",
        Req("list_context_sources", query={"offset": "0"}),
    ),
    rule(
        "list_context_sources:limit",
        "schema",
        Req("list_context_sources", query={"limit": "0"}),
        400,
        "invalid_page",
        Req("list_context_sources", query={"limit": "1"}),
    ),
    rule(
        "list_test_library:kind",
        "schema",
        Req("list_test_library", query={"kind": "cases"}),
        400,
        "invalid_kind",
        Req("list_test_library", query={"kind": "case"}),
    ),
    rule(
        "list_test_library:offset",
        "schema",
        Req("list_test_library", query={"offset": "-1"}),
        400,
        "invalid_page",
        Req("list_test_library", query={"offset": "0"}),
    ),
    rule(
        "put_context_source:id-prefix",
        "schema",
        _body(CTX_SOURCE, source={**CTX_SOURCE.json["source"], "id": "refunds"}),
        400,
        "invalid_source_id",
        CTX_SOURCE,
    ),
    rule(
        "put_context_source:entry-json",
        "refusal",
        _body(CTX_SOURCE, source={**CTX_SOURCE.json["source"], "id": "manual-library-x", "text": "not JSON"}),
        400,
        "invalid_source_text",
        CTX_SOURCE,
    ),
    rule(
        "put_context_source:text-bytes",
        "refusal",
        _body(
            CTX_SOURCE,
            source={
                **CTX_SOURCE.json["source"],
                "text": "é" * (SPEC_LIMITS["put_context_source"]["x-limits"]["max_text_bytes"] // 2 + 1),
            },
        ),
        413,
        "source_too_large",
        CTX_SOURCE,
    ),
    rule("upload_context_document:category", "schema", _form(DOC, category=ABSENT), 400, "category_required", DOC),
    rule("upload_context_document:category-empty", "schema", _form(DOC, category=""), 400, "category_required", DOC),
    rule(
        "upload_context_document:expected-version",
        "schema",
        _form(DOC, expected_version=ABSENT),
        400,
        "expected_version_required",
        DOC,
    ),
    rule("upload_context_document:file", "schema", _with(DOC, files=()), 400, "invalid_argument", DOC),
    rule(
        "upload_context_document:type",
        "refusal",
        _with(DOC, files=(("file", "policy.pdf", b"%PDF"),)),
        400,
        "unsupported_document_type",
        DOC,
    ),
    rule(
        "upload_context_document:utf8",
        "refusal",
        _with(DOC, files=(("file", "policy.md", UTF8_BAD),)),
        400,
        "unreadable_document",
        DOC,
    ),
    rule(
        "upload_context_document:bytes",
        "refusal",
        _with(DOC, files=(("file", "policy.md", _big(SPEC_LIMITS["upload_context_document"]["x-max-file-bytes"])),)),
        413,
        "file_too_large",
        DOC,
    ),
    rule(
        "create_context_connection:consent",
        "schema",
        _body(CONNECTION, content_consent=False),
        400,
        "content_consent_required",
        CONNECTION,
    ),
    rule(
        "create_context_connection:credentials",
        "schema",
        _body(CONNECTION, credentials={}),
        400,
        "credentials_required",
        CONNECTION,
    ),
    rule(
        "create_context_connection:key-pair",
        "schema",
        _body(CONNECTION, credentials={"public_key": "pk"}),
        400,
        "credentials_required",
        _body(CONNECTION, credentials={"public_key": "pk", "secret_key": "sk"}),
    ),
    rule(
        "create_context_connection:https",
        "schema",
        _body(CONNECTION, config={**CONNECTION.json["config"], "base_url": "http://cloud.langfuse.com"}),
        400,
        "invalid_base_url",
        CONNECTION,
    ),
    rule(
        "create_context_connection:since",
        "schema",
        _body(CONNECTION, config={**CONNECTION.json["config"], "since": "yesterday!"}),
        400,
        "invalid_argument",
        _body(CONNECTION, config={**CONNECTION.json["config"], "since": "2026-01-01T00:00:00Z"}),
    ),
    # -- datasets (C-26–C-29, C-31; C.3 §14–§17) --
    rule("preview_dataset:file", "schema", _with(PREVIEW, files=()), 400, "invalid_argument", PREVIEW),
    rule(
        "preview_dataset:one-file",
        "schema",
        _with(PREVIEW, files=(("file", "a.csv", CSV), ("file", "b.csv", CSV))),
        400,
        "file_required",
        PREVIEW,
    ),
    rule(
        "preview_dataset:type",
        "refusal",
        _with(PREVIEW, files=(("file", "cases.pdf", CSV),)),
        400,
        "unsupported_dataset_type",
        PREVIEW,
    ),
    rule(
        "preview_dataset:utf8",
        "refusal",
        _with(PREVIEW, files=(("file", "cases.csv", UTF8_BAD),)),
        400,
        "unreadable_dataset",
        PREVIEW,
    ),
    rule(
        "preview_dataset:json-shape",
        "refusal",
        _with(PREVIEW, files=(("file", "cases.json", b'{"a": 1}'),)),
        400,
        "unreadable_dataset",
        PREVIEW,
    ),
    rule("preview_dataset:sheet", "refusal", _form(PREVIEW, sheet="Sheet9"), 400, "unknown_sheet", PREVIEW),
    rule(
        "preview_dataset:bytes",
        "refusal",
        _with(PREVIEW, files=(("file", "cases.csv", _big(SPEC_LIMITS["preview_dataset"]["x-max-file-bytes"])),)),
        413,
        "file_too_large",
        PREVIEW,
    ),
    rule(
        "upload_dataset:consent",
        "schema",
        _form(UPLOAD, content_consent=False),
        400,
        "content_consent_required",
        UPLOAD,
    ),
    rule(
        "upload_dataset:consent-missing",
        "schema",
        _form(UPLOAD, content_consent=ABSENT),
        400,
        "content_consent_required",
        UPLOAD,
    ),
    rule("upload_dataset:mapping", "schema", _form(UPLOAD, mapping={}), 400, "mapping_required", UPLOAD),
    rule("upload_dataset:mapping-missing", "schema", _form(UPLOAD, mapping=ABSENT), 400, "mapping_required", UPLOAD),
    rule(
        "upload_dataset:mapping-columns",
        "refusal",
        _form(UPLOAD, mapping={"input": "prompt"}),
        400,
        "invalid_mapping",
        UPLOAD,
    ),
    rule(
        "get_dataset:version",
        "schema",
        Req("get_dataset", query={"version": "one"}),
        400,
        "invalid_version",
        Req("get_dataset", query={"version": "1"}),
    ),
    rule(
        "remap_dataset:mapping-columns",
        "refusal",
        _body(REMAP, mapping={"input": "prompt"}),
        400,
        "invalid_mapping",
        REMAP,
    ),
    rule(
        "import_dataset_cases:dataset", "schema", _body(IMPORT, dataset_id=ABSENT), 400, "dataset_id_required", IMPORT
    ),
    rule(
        "import_dataset_cases:dataset-empty", "schema", _body(IMPORT, dataset_id=""), 400, "dataset_id_required", IMPORT
    ),
    rule(
        "import_dataset_cases:component",
        "schema",
        _body(IMPORT, component_id=ABSENT),
        400,
        "component_id_required",
        IMPORT,
    ),
    # -- billing (C-54, C-55) --
    rule(
        "create_checkout:return-path",
        "schema",
        _body(CHECKOUT, return_path="//elsewhere.example"),
        400,
        "invalid_return_path",
        CHECKOUT,
    ),
    rule(
        "create_checkout:relative-path",
        "schema",
        _body(CHECKOUT, return_path="settings"),
        400,
        "invalid_return_path",
        _body(CHECKOUT, return_path=""),
    ),
    rule("create_checkout:price", "refusal", _body(CHECKOUT, price_id="price_unknown"), 400, "unknown_price", CHECKOUT),
    rule(
        "change_plan:price",
        "refusal",
        Req("change_plan", json={"price_id": "price_unknown"}),
        400,
        "unknown_price",
        Req("change_plan", json={"price_id": "price_builder_monthly"}),
    ),
    rule(
        "change_plan:payment-method",
        "refusal",
        Req("change_plan", json={"price_id": "price_builder_monthly"}, token="bench_dev_oauth_free"),
        402,
        "payment_method_required",
        Req("change_plan", json={"price_id": "price_builder_monthly"}),
    ),
    rule(
        "get_billing_portal:price",
        "refusal",
        Req("get_billing_portal", query={"price_id": "price_unknown"}),
        400,
        "unknown_price",
        Req("get_billing_portal", query={"price_id": "price_enterprise"}),
    ),
    # -- auth (C-19–C-22, C-66) --
    rule(
        "get_login_url:provider",
        "schema",
        Req("get_login_url", query={"provider": "gitlab"}, token=None),
        400,
        "unknown_provider",
        Req("get_login_url", query={"provider": "github"}, token=None),
    ),
    rule(
        "complete_login:state",
        "refusal",
        Req("complete_login", json={"state": "st_unknown", "code": "c"}, token=None),
        400,
        "invalid_state",
        None,
    ),
    rule(
        "verify_email:pending-token",
        "refusal",
        Req("verify_email", json={"pending_authentication_token": "x", "code": "1"}, token=None),
        400,
        "invalid_pending_token",
        None,
    ),
    rule(
        "update_profile:name",
        "schema",
        Req("update_profile", json={"name": "  "}),
        400,
        "invalid_argument",
        Req("update_profile", json={"name": "Ada"}),
    ),
    rule(
        "set_model_providers:provider",
        "schema",
        Req("set_model_providers", json={"providers": ["acme"]}),
        400,
        "invalid_argument",
        Req("set_model_providers", json={"providers": ["openai"]}),
    ),
    rule(
        "set_model_providers:plan",
        "refusal",
        Req("set_model_providers", json={"providers": ["openai"]}, token="bench_dev_oauth_builder"),
        402,
        "plan_limit",
        Req("set_model_providers", json={"providers": ["openai"]}),
    ),
    # -- github --
    rule(
        "complete_github_callback:state",
        "refusal",
        Req("complete_github_callback", json={"state": "gh_unknown", "installation_id": 9001}),
        400,
        "invalid_state",
        None,
    ),
    rule(
        "finish_github_connection:state",
        "refusal",
        Req("finish_github_connection", json={"state": "gh_x"}),
        400,
        "invalid_state",
        None,
    ),
    # -- keys (C-56) --
    rule("create_api_key:name", "schema", Req("create_api_key", json={}), 400, "name_required", KEY),
    rule("create_api_key:name-blank", "schema", _body(KEY, name=" "), 400, "name_required", KEY),
    rule(
        "create_api_key:cap",
        "schema",
        _body(KEY, max_evaluations_per_month=-1),
        400,
        "invalid_argument",
        _body(KEY, max_evaluations_per_month=0),
    ),
    # -- systems --
    rule("create_system:name", "schema", Req("create_system", json={}), 400, "name_required", SYSTEM),
    rule("create_system:name-blank", "schema", _body(SYSTEM, name="  "), 400, "name_required", SYSTEM),
    rule(
        "update_system:name-blank",
        "schema",
        Req("update_system", json={"name": " "}),
        400,
        "name_required",
        Req("update_system", json={"name": "Refund bot"}),
    ),
    rule(
        "register_prompts:none",
        "schema",
        Req("register_prompts", json={"prompts": []}),
        400,
        "invalid_argument",
        Req("register_prompts", json={"prompts": [{"path": "app/p.py", "line": 3, "content": "Answer briefly."}]}),
    ),
    rule(
        "register_prompts:commit",
        "schema",
        Req("register_prompts", json={"prompts": [{"path": "app/p.py"}], "commit_sha": "abc"}),
        400,
        "invalid_argument",
        Req("register_prompts", json={"prompts": [{"path": "app/p.py"}], "commit_sha": "a" * 40}),
    ),
    rule(
        "add_system_connection:self-edge",
        "refusal",
        Req("add_system_connection", json={"from_component_id": 456, "to_component_id": 456}),
        400,
        "self_edge",
        Req("add_system_connection", json={"from_component_id": 457, "to_component_id": 456}),
    ),
    # -- evaluations (C-48–C-50) --
    rule(
        "start_system_evaluation:system",
        "schema",
        Req("start_system_evaluation", json={}),
        400,
        "invalid_argument",
        Req("start_system_evaluation", json={"ai_system_id": 123}),
    ),
    rule("start_evaluation:prompts", "schema", _body(START, prompts=[]), 400, "invalid_argument", START),
    rule("start_evaluation:repo", "schema", _body(START, repo_full_name=""), 400, "invalid_argument", START),
    rule(
        "submit_run_review:cases",
        "schema",
        Req("submit_run_review", path={"id": "789"}, json={}),
        400,
        "invalid_test_cases",
        Req("submit_run_review", path={"id": "789"}, json={"test_cases": []}),
    ),
    rule(
        "submit_run_review:cases-list",
        "schema",
        Req("submit_run_review", path={"id": "789"}, json={"test_cases": {"id": "x"}}),
        400,
        "invalid_test_cases",
        Req("submit_run_review", path={"id": "789"}, json={"test_cases": [{"id": "x"}]}),
    ),
    rule(
        "get_evaluation:sibling-route",
        "schema",
        Req("get_evaluation", path={"id": "system"}),
        405,
        "method_not_allowed",
        Req("get_evaluation", path={"id": "789"}),
    ),
    # -- runtime evaluation (C-51, C-52; C.3 §23, §28) --
    rule(
        "publish_runtime_evaluation:summary", "schema", _body(REPORT, summary=ABSENT), 400, "incomplete_report", REPORT
    ),
    rule("publish_runtime_evaluation:cases-list", "schema", _body(REPORT, cases={}), 400, "incomplete_report", REPORT),
    rule(
        "publish_runtime_evaluation:bytes",
        "refusal",
        _body(REPORT, notes="n" * SPEC_LIMITS["publish_runtime_evaluation"]["x-limits"]["max_body_bytes"]),
        413,
        "report_too_large",
        REPORT,
    ),
    rule("runtime_eval_plan:cases", "schema", _body(PLAN, cases=[]), 400, "invalid_argument", PLAN),
    rule("runtime_eval_plan:case-input", "schema", _body(PLAN, cases=[{"id": "c1"}]), 400, "invalid_argument", PLAN),
    rule(
        "runtime_eval_plan:split",
        "schema",
        _body(PLAN, cases=[{"id": "c1", "input": "q", "split": "test"}]),
        400,
        "invalid_argument",
        _body(PLAN, cases=[{"id": "c1", "input": "q", "split": "confirmation"}]),
    ),
    rule("runtime_eval_plan:configurations", "schema", _body(PLAN, configurations=[{}]), 400, "invalid_argument", PLAN),
    rule("runtime_eval_plan:budget", "schema", _body(PLAN, budget={"max_trials": 0}), 400, "invalid_argument", PLAN),
    rule(
        "runtime_eval_plan:policy",
        "schema",
        _body(PLAN, policy={"repetitions": "two"}),
        400,
        "invalid_argument",
        _body(PLAN, policy={"repetitions": 2}),
    ),
    rule(
        "runtime_eval_plan:unique-ids",
        "refusal",
        _body(PLAN, cases=[{"id": "c1", "input": "a"}, {"id": "c1", "input": "b"}]),
        400,
        "invalid_plan",
        PLAN,
    ),
    rule(
        "runtime_eval_review:verdict",
        "schema",
        Req("runtime_eval_review", path=PLAN_PATH, json={"case_id": "c1", "verdict": "great"}),
        400,
        "invalid_argument",
        Req("runtime_eval_review", path=PLAN_PATH, json={"case_id": "c1", "verdict": "good"}),
        PLAN,
    ),
    rule(
        "runtime_eval_candidates:provider",
        "schema",
        Req("runtime_eval_candidates", path=PLAN_PATH, json={"allowed_providers": ["acme"]}),
        400,
        "unknown_provider",
        Req("runtime_eval_candidates", path=PLAN_PATH, json={"allowed_providers": ["openai"]}),
        PLAN,
    ),
    rule("runtime_eval_run:key", "schema", _with(RUN, headers={}), 400, "idempotency_key_required", RUN, PLAN),
    rule(
        "runtime_eval_run:key-length",
        "schema",
        _with(RUN, headers={"Idempotency-Key": "short"}),
        400,
        "idempotency_key_required",
        RUN,
        PLAN,
    ),
    rule(
        "runtime_eval_events:after",
        "schema",
        Req("runtime_eval_events", path={**RUN_PATH, "action": "events"}, query={"after": "-1"}),
        400,
        "invalid_after",
        Req("runtime_eval_events", path={**RUN_PATH, "action": "events"}, query={"after": "0"}),
        PLAN,
        RUN,
    ),
    rule(
        "runtime_eval_control:key",
        "refusal",
        Req("runtime_eval_control", path={**RUN_PATH, "action": "resume"}),
        400,
        "idempotency_key_required",
        Req(
            "runtime_eval_control", path={**RUN_PATH, "action": "resume"}, headers={"Idempotency-Key": "resume-key-01"}
        ),
        PLAN,
        RUN,
        Req("runtime_eval_control", path={**RUN_PATH, "action": "cancel"}),
    ),
    rule(
        "runtime_eval_control:budget",
        "schema",
        Req(
            "runtime_eval_control",
            path={**RUN_PATH, "action": "cancel"},
            json={"extend_budget": {"max_trials": "many"}},
        ),
        400,
        "invalid_argument",
        Req("runtime_eval_control", path={**RUN_PATH, "action": "cancel"}, json={"extend_budget": {"max_trials": 2}}),
        PLAN,
        RUN,
    ),
    rule(
        "list_runtime_evaluations:offset",
        "schema",
        Req("list_runtime_evaluations", query={"offset": "-1"}),
        400,
        "invalid_page",
        Req("list_runtime_evaluations", query={"offset": "0"}),
    ),
    rule(
        "set_runtime_settings:daily-limit", "schema", _body(SETTINGS, daily_limit=-1), 400, "invalid_argument", SETTINGS
    ),
    # -- repositories (C-32, C-61) --
    rule(
        "get_scan:branch", "schema", Req("get_scan"), 400, "branch_required", Req("get_scan", query={"branch": "main"})
    ),
    rule(
        "get_scan:branch-empty",
        "schema",
        Req("get_scan", query={"branch": ""}),
        400,
        "branch_required",
        Req("get_scan", query={"branch": "main"}),
    ),
    rule("open_prompt_pr:changes", "schema", _body(PR, changes=[]), 400, "no_changes", PR),
    rule("open_prompt_pr:changes-missing", "schema", _body(PR, changes=ABSENT), 400, "no_changes", PR),
    rule("open_prompt_pr:path", "schema", _body(PR, changes=[{"content": "x"}]), 400, "no_changes", PR),
    rule("open_prompt_pr:path-empty", "schema", _body(PR, changes=[{"path": ""}]), 400, "no_changes", PR),
    rule(
        "review_eval_benchmark:cases",
        "schema",
        _body(REVIEW, test_cases=[]),
        400,
        "invalid_test_cases",
        REVIEW,
        BENCHMARK,
    ),
    rule(
        "review_eval_benchmark:case-id",
        "schema",
        _body(REVIEW, test_cases=[{"label": "good"}]),
        400,
        "invalid_test_cases",
        REVIEW,
        BENCHMARK,
    ),
    rule(
        "review_eval_benchmark:cases-missing",
        "schema",
        _body(REVIEW, test_cases=ABSENT),
        400,
        "invalid_test_cases",
        REVIEW,
        BENCHMARK,
    ),
    rule(
        "label_golden_case:label",
        "schema",
        Req("label_golden_case", path={"id": "gc_1"}, json={"label": " "}),
        400,
        "invalid_argument",
        None,
        why="a golden case id exists only after a reviewed benchmark",
    ),
    rule("upload_prompts:nothing", "refusal", Req("upload_prompts", form={"model": ""}), 400, "no_prompts", PROMPTS),
    rule(
        "upload_prompts:utf8",
        "refusal",
        _with(PROMPTS, form={}, files=(("files", "p.txt", UTF8_BAD),)),
        400,
        "no_prompts",
        _with(PROMPTS, form={}, files=(("files", "p.txt", b"Answer briefly."),)),
    ),
    rule(
        "upload_prompts:bytes",
        "refusal",
        _with(PROMPTS, form={}, files=(("files", "p.txt", _big(SPEC_LIMITS["upload_prompts"]["x-max-file-bytes"])),)),
        413,
        "file_too_large",
        PROMPTS,
    ),
    # -- traces --
    rule("set_trace_privacy:field", "schema", _body(PRIVACY, fields=["input value"]), 400, "invalid_argument", PRIVACY),
    rule("set_trace_privacy:field-empty", "schema", _body(PRIVACY, fields=[""]), 400, "invalid_argument", PRIVACY),
    rule(
        "list_traces:limit",
        "schema",
        Req("list_traces", query={"limit": "0"}),
        400,
        "invalid_page",
        Req("list_traces", query={"limit": "1"}),
    ),
    rule("ingest_traces:none", "schema", _body(TRACES, traces=[]), 400, "invalid_argument", TRACES),
    rule(
        "ingest_traces:span-id",
        "schema",
        _body(TRACES, traces=[{"spans": [{"span_id": ""}]}]),
        400,
        "invalid_argument",
        TRACES,
    ),
    rule("evaluate_span:question", "schema", _body(SPAN_Q, question=" "), 400, "invalid_argument", SPAN_Q),
    rule(
        "delete_trace:sibling-route",
        "schema",
        Req("delete_trace", path={"id": "privacy"}),
        405,
        "method_not_allowed",
        Req("get_trace", path={"id": "tr_seed"}),
    ),
    # -- workspace (C-18) --
    rule("create_workspace:name", "schema", _body(WORKSPACE, name=" "), 400, "invalid_argument", WORKSPACE),
    rule(
        "invite_workspace_member:email", "schema", _body(INVITE, email="ada"), 400, "invalid_email", INVITE, WORKSPACE
    ),
    # The spec's blanks are " \t\n\r\f\v" (an explicit class every regex engine reads alike): \x1c is text.
    rule(
        "invite_workspace_member:email-blanks",
        "schema",
        _body(INVITE, email="ada@example. com"),
        400,
        "invalid_email",
        _body(INVITE, email=" \x1cada@example.com\n"),
        WORKSPACE,
    ),
    rule(
        "create_system:name-blanks",
        "schema",
        _body(SYSTEM, name=" \t\n"),
        400,
        "name_required",
        _body(SYSTEM, name="\x1c"),
    ),
    rule(
        "invite_workspace_member:email-missing",
        "schema",
        _body(INVITE, email=ABSENT),
        400,
        "invalid_email",
        INVITE,
        WORKSPACE,
    ),
    rule(
        "invite_workspace_member:role",
        "schema",
        _body(INVITE, role="owner"),
        400,
        "invalid_argument",
        INVITE,
        WORKSPACE,
    ),
    rule(
        "set_workspace_member_role:role",
        "schema",
        Req("set_workspace_member_role", path={"userID": "usr_growth"}, json={"role": "owner"}),
        400,
        "invalid_argument",
        Req("set_workspace_member_role", path={"userID": "usr_growth"}, json={"role": "admin"}),
        WORKSPACE,
    ),
    # -- meta --
    rule("acknowledge_processing:accepted", "schema", _body(ACK, accepted=False), 400, "invalid_argument", ACK),
    rule("acknowledge_processing:source", "schema", _body(ACK, source="email"), 400, "unknown_processing_source", ACK),
    rule("acknowledge_processing:source-missing", "schema", _body(ACK, source=ABSENT), 400, "invalid_argument", ACK),
    rule(
        "fetch_website_text:url",
        "schema",
        Req("fetch_website_text", json={"url": "ftp://example.com"}),
        400,
        "invalid_argument",
        Req("fetch_website_text", json={"url": "https://example.com/refunds"}),
    ),
    rule(
        "fetch_website_text:page",
        "refusal",
        Req("fetch_website_text", json={"url": "https://example.com/none"}),
        400,
        "fetch_failed",
        Req("fetch_website_text", json={"url": "https://example.com/refunds"}),
    ),
    rule(
        # RFC 3986: one fragment, no `#` inside it (the answer echoes the URL as a `uri`; contract seed 2 sent two)
        "get_link_metadata:url-fragment",
        "schema",
        Req("get_link_metadata", json={"url": "https://example.com/#a#b"}),
        400,
        "invalid_argument",
        Req("get_link_metadata", json={"url": "https://example.com/refunds#a"}),
    ),
    rule(
        "get_link_metadata:url",
        "schema",
        Req("get_link_metadata", json={"url": "example.com"}),
        400,
        "invalid_argument",
        Req("get_link_metadata", json={"url": "https://example.com/refunds"}),
    ),
]

# Refusals the handlers raise that the spec's schema now states: the engine refuses the request first, with
# `invalid_argument` (or the parameter's `x-invalid-code`); the rule named shows that refusal.
SUPERSEDED = {
    "acceptance_required": "acknowledge_processing:accepted",
    "ai_system_id_required": "start_system_evaluation:system",
    "invalid_call": "register_calls (the configurations' anyOf)",
    "invalid_cap": "create_api_key:cap",
    "invalid_commit_sha": "register_prompts:commit",
    "invalid_daily_limit": "set_runtime_settings:daily-limit",
    "invalid_finding_status": "resolve_finding (the status pattern)",
    "invalid_label": "label_golden_case:label",
    "invalid_name": "update_profile:name",
    "invalid_role": "invite_workspace_member:role",
    "invalid_run_status": "complete_system_run (the status pattern)",
    "invalid_span": "ingest_traces:span-id",
    "invalid_url": "fetch_website_text:url",
    "invalid_verdict": "runtime_eval_review:verdict",
    "no_calls": "register_calls (calls minItems)",
    "no_traces": "ingest_traces:none",
    "question_required": "evaluate_span:question",
}

# State-dependent refusals whose accepting state needs a value a previous answer hands out (a login state, a
# challenge, a paused run): each is listed in its operation's x-schema-valid-refusals (checked below) and
# exercised by the flow named.
STATEFUL = {
    ("complete_login", "invalid_verifier"): "tests/bench/test_flows.py (PKCE login)",
    ("complete_login", "invalid_code"): "tests/bench/test_flows.py (PKCE login)",
    ("verify_email", "invalid_code"): "tests/bench/test_flows.py (email verification)",
    ("runtime_eval_control", "extend_budget_required"): "a run pauses only when its budget is spent",
}

# Refusals the handlers raise that no request through the API can reach, each with the reason.
UNREACHABLE = {
    ("compare_dataset", "invalid_mapping"): "a stored version's mapping was already checked when it was stored",
    ("import_dataset_cases", "invalid_mapping"): "a stored version's mapping was already checked when it was stored",
}


def _prepare(client, rule_: Rule) -> None:
    for req in rule_.before:
        r = send(client, req)
        assert r.status_code < 300, (req.op, r.status_code, r.text[:300])


@pytest.mark.parametrize("rule_", RULES, ids=[r.id for r in RULES])
def test_violation_is_refused_with_the_documented_code(client, rule_: Rule):
    """The request that breaks only this rule gets the rule's status and code, which the operation documents;
    a schema rule's request is invalid per the spec, a refusal rule's is valid and the refusal is listed in
    `x-schema-valid-refusals` (what a stock schemathesis run is told)."""
    _prepare(client, rule_)
    r = send(client, rule_.invalid)
    assert (r.status_code, r.json()["error"]["code"]) == (rule_.status, rule_.code), r.text[:300]
    op = OPS[rule_.invalid.op][2]
    assert rule_.code in op["x-errors"][str(rule_.status)]
    problems = schema_problems(rule_.invalid)
    if rule_.kind == "schema":
        assert problems, f"{rule_.id}: the spec allows a request the mock refuses"
    else:
        assert not problems, problems
        listed = op.get("x-schema-valid-refusals", {}).get("codes", {}).get(str(rule_.status), [])
        assert rule_.code in listed, f"{rule_.id}: {rule_.code} is not in x-schema-valid-refusals"


@pytest.mark.parametrize("rule_", [r for r in RULES if r.valid], ids=[r.id for r in RULES if r.valid])
def test_the_neighbouring_request_the_spec_allows_is_accepted(client, rule_: Rule):
    """The request beside the violation satisfies the spec and is accepted: the rule is no wider than stated."""
    assert rule_.valid is not None
    assert not schema_problems(rule_.valid), schema_problems(rule_.valid)
    _prepare(client, rule_)
    r = send(client, rule_.valid)
    assert 200 <= r.status_code < 300, (r.status_code, r.text[:300])


_RAISE = re.compile(r'(?:Refusal|Problem)\(\s*(400|402|413),\s*"(\w+)"')
_OP = re.compile(r'@op\("(\w+)"\)')


def _handler_refusals() -> set[tuple[str, str]]:
    """(code, status) of every 400/402/413 refusal the Bench handlers and model raise."""
    found: set[tuple[str, str]] = set()
    for path in HANDLERS.rglob("*.py"):
        for status, code in _RAISE.findall(path.read_text(encoding="utf-8")):
            found.add((code, status))
    return found


def test_every_request_refusal_is_in_the_inventory():
    """Every 400/402/413 code a handler raises is exercised by a rule, or listed as unreachable with its reason:
    a new refusal fails here until the spec states it (a schema) or documents it (x-schema-valid-refusals)."""
    covered = {(r.code, str(r.status)) for r in RULES}
    covered |= {(code, "400") for _, code in [*UNREACHABLE, *STATEFUL]} | {(code, "400") for code in SUPERSEDED}
    missing = sorted(_handler_refusals() - covered)
    assert not missing, missing
    for (op_id, code), _ in STATEFUL.items():
        assert code in OPS[op_id][2]["x-schema-valid-refusals"]["codes"]["400"], (op_id, code)
    for code, shown_by in SUPERSEDED.items():
        assert any(code in codes for op in OPS.values() for codes in op[2]["x-errors"].values()), code
        assert shown_by.split(" ")[0] in {r.id for r in RULES} | {r.invalid.op for r in RULES} | set(OPS), shown_by


def test_every_plan_limited_operation_documents_plan_limit_as_schema_valid():
    """C-54, C-66: plan_limit depends on the account's plan and allowance, so every operation that documents it
    lists it among its schema-valid refusals."""
    for op_id, (_, _, op) in OPS.items():
        if "plan_limit" in op["x-errors"].get("402", []):
            assert "plan_limit" in op["x-schema-valid-refusals"]["codes"]["402"], op_id


def _json_schema(op_id: str) -> dict[str, Any]:
    return OPS[op_id][2]["requestBody"]["content"]["application/json"]["schema"]


def test_the_schemas_agree_with_the_operation_data_the_handlers_read():
    """A rule written both as operation data (read by the handler) and as a schema (read by schemathesis) says
    the same thing in both places."""
    run = next(p for p in OPS["runtime_eval_run"][2]["parameters"] if p["name"] == "Idempotency-Key")
    rule_ = OPS["runtime_eval_run"][2]["x-idempotency-key"]
    assert (run["schema"]["minLength"], run["schema"]["maxLength"]) == (rule_["min_length"], rule_["max_length"])
    report = _json_schema("publish_runtime_evaluation")["allOf"][0]
    assert report["required"] == OPS["publish_runtime_evaluation"][2]["x-report-required"]
    source = _json_schema("acknowledge_processing")["properties"]["source"]
    assert source["enum"] == list(NOTICE["sources"])
    providers = list(SPEC["x-model-providers"])
    assert _json_schema("set_model_providers")["properties"]["providers"]["items"]["enum"] == providers
    assert _json_schema("runtime_eval_candidates")["properties"]["allowed_providers"]["items"]["enum"] == providers
    prefix = OPS["put_context_source"][2]["x-source-id-prefix"]
    assert _json_schema("put_context_source")["properties"]["source"]["properties"]["id"]["pattern"].startswith(
        "^" + prefix
    )
    login = next(p for p in OPS["get_login_url"][2]["parameters"] if p["name"] == "provider")
    assert login["schema"]["pattern"] == "^(" + "|".join(SPEC["x-login-providers"]) + ")?$"


def _handler_checked(node: Any, found: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    if isinstance(node, dict):
        for keyword in node.get("x-handler-checks") or ():
            found.append((keyword, node))
        for value in node.values():
            _handler_checked(value, found)
    elif isinstance(node, list):
        for value in node:
            _handler_checked(value, found)
    return found


def test_handler_checked_keywords_are_the_spec_s_own_rules():
    """`x-handler-checks` names keywords present on the same schema node and beyond the SDK catalog."""
    for op_id, (_, _, op) in OPS.items():
        for keyword, node in _handler_checked(op.get("requestBody", {}), []):
            assert keyword in node, (op_id, keyword)
            assert keyword in (node.get("x-beyond-catalog") or ()), (op_id, keyword)
