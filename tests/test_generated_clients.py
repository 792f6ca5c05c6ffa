"""Every registered API's bundle generates a typed Python client, with no warning.

`openapi-python-client` is the most used Python client generator, so a spec it
cannot type is a spec our users' generated clients cannot use. It used to drop
two Benchwright models without failing: `Benchmark` (its `sources` was
`type: [array, null]` with no `items`) and `TaskList` (its `pagination` pinned
`has_more: {const: false}` with an `allOf`), which left the CI-gate endpoint
(`GET /v1/runs/{id}/tasks`) with no typed response. So, for every API in
`mock_server.apis` whose bundle builds:

- generating the client prints no warning and no error (each one is named by its
  endpoint or model in the failure);
- the generated package imports, every endpoint module included;
- every JSON success response whose schema is a named object model is typed by
  that model's class;
- for Benchwright, the run detail, the CI-gate task list and the benchmark
  models are typed, down to the fields that used to break them.

An API is skipped only while its bundle does not build. Generation runs once per
API per session and is shared by the tests (and by xdist workers).

The generator types JSON, `text/*` and `application/octet-stream` bodies only.
`BYTES_MEDIA_TYPES` tells it to hand the bodies of the other media types the specs
use back as bytes (its `content_type_overrides` setting): they are images,
NDJSON streams and "any type" downloads, which no model can describe, and naming
them avoids changing the media types the mock serves. A media type not listed
there still fails, so a new one gets the same decision.
"""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import re
import subprocess
import sys
import time
import types
import typing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from mock_server.apis import APIS
from mock_server.apis import bundle as api_bundle
from mock_server.engine.spec import iter_operations, write_bundle

GENERATOR = [sys.executable, "-m", "openapi_python_client"]
REQUIREMENT = "openapi-python-client==0.29.1"
TIMEOUT_S = 90

# Media types the generator cannot type whose bodies are bytes to a client.
BYTES_MEDIA_TYPES = {
    "*/*": "application/octet-stream",  # artifact content: whatever the artifact's type is
    "application/x-ndjson": "application/octet-stream",  # JSON lines / event streams
    "image/png": "application/octet-stream",
    "image/jpeg": "application/octet-stream",
    "image/webp": "application/octet-stream",
    "image/gif": "application/octet-stream",
}

# Lines of the generator's report that open one warning or error, naming what it concerns.
_HEADER = re.compile(
    r"^(WARNING parsing .+|Unable to (?:process|parse) .+|.+ failed|"
    r"Failure to process schema has resulted in the removal of:)$"
)


@dataclass
class Generated:
    api: str
    skip: str | None = None
    returncode: int | None = None
    output: str = ""
    seconds: float = 0.0
    package: str = ""
    root: str = ""

    @property
    def path(self) -> Path:
        return Path(self.root) / self.package


def _generate(api: str, workdir: Path) -> Generated:
    try:
        doc = api_bundle(api)
        spec = workdir / f"{api}.json"
        write_bundle(doc, spec)
    except Exception as exc:  # the bundle is someone's work in progress
        return Generated(api, skip=f"the {api} bundle does not build yet: {type(exc).__name__}: {exc}")
    config = workdir / "generator-config.json"
    config.write_text(json.dumps({"content_type_overrides": BYTES_MEDIA_TYPES}), encoding="utf-8")
    package = f"client_{api}"
    env = {
        **os.environ,
        # the generator's post-hooks run `ruff`, installed beside this interpreter
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "NO_COLOR": "1",
        # it reads a local file; make any attempt to reach the network fail fast
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "ALL_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
    }
    command = [
        *GENERATOR,
        "generate",
        "--path",
        str(spec),
        "--output-path",
        str(workdir / package),
        "--meta",
        "none",
        "--config",
        str(config),
        "--fail-on-warning",
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=workdir, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return Generated(api, returncode=-1, output=f"{out}\ngeneration did not finish in {TIMEOUT_S} s")
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    if "No module named openapi_python_client" in output:
        pytest.fail(f"openapi-python-client is not installed: the dev extra needs `{REQUIREMENT}`")
    return Generated(api, None, done.returncode, output, seconds, package, str(workdir))


_CACHE: dict[str, Generated] = {}


@pytest.fixture(scope="session", params=list(APIS))
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """One generation per API per session, shared across xdist workers through a lock."""
    api = request.param
    if api not in _CACHE:
        base = tmp_path_factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        workdir = shared / "generated-clients" / api
        workdir.mkdir(parents=True, exist_ok=True)
        with open(workdir / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            result = workdir / "result.json"
            if result.exists():
                _CACHE[api] = Generated(**json.loads(result.read_text(encoding="utf-8")))
            else:
                _CACHE[api] = _generate(api, workdir)
                result.write_text(json.dumps(asdict(_CACHE[api])), encoding="utf-8")
    got = _CACHE[api]
    if got.skip:
        pytest.skip(got.skip)
    return got


def diagnostics(output: str) -> list[str]:
    """The generator's warnings and errors, each as `header: detail` (the endpoint or model it names)."""
    # the generator prints some names as object reprs (`<...UntrustedString object at 0x...>`)
    output = re.sub(r"<openapi_python_client\.[\w.]+ object at 0x[0-9a-f]+>", "<...>", output)
    lines = [line.rstrip() for line in output.splitlines()]
    found = []
    for i, line in enumerate(lines):
        if not _HEADER.match(line):
            continue
        if line.startswith("Failure to process schema"):
            found.append(f"  removed: {next((x for x in lines[i + 1 :] if x.strip()), '?')}")
            continue
        detail = next((x for x in lines[i + 1 :] if x.strip()), "")
        found.append(f"{line} -- {detail}" if not _HEADER.match(detail) else line)
    return found


def _import(got: Generated, module: str = "") -> types.ModuleType:
    if got.root not in sys.path:
        sys.path.insert(0, got.root)
    return importlib.import_module(f"{got.package}{module}")


def _return_types(function: Any) -> set[Any]:
    hint = typing.get_type_hints(function)["return"]
    return set(typing.get_args(hint)) or {hint}


def _endpoint_module(got: Generated, operation_id: str) -> types.ModuleType:
    from openapi_python_client.strings import PythonIdentifier

    name = PythonIdentifier(operation_id, prefix="field_")
    found = sorted(got.path.glob(f"api/*/{name}.py"))
    assert found, f"{got.api}: no generated module for operation {operation_id} (api/*/{name}.py)"
    try:
        return _import(got, "." + ".".join(found[0].relative_to(got.path).with_suffix("").parts))
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    pytest.fail(f"{got.api}: the module of {operation_id} does not import: {error}", pytrace=False)


def test_client_generates_without_warnings(generated: Generated) -> None:
    """A warning means a model or response the generator dropped: our users' clients would lack it."""
    named = diagnostics(generated.output)
    if generated.returncode != 0 or named:
        pytest.fail(
            f"openapi-python-client reports for {generated.api} (exit {generated.returncode}):\n"
            + "\n".join(named or [generated.output.strip()[-4000:]]),
            pytrace=False,
        )
    leftover = [x for x in generated.output.splitlines() if x.strip() and not x.startswith("Generating ")]
    assert not leftover, f"openapi-python-client printed for {generated.api}:\n" + "\n".join(leftover)


def test_generated_package_imports(generated: Generated) -> None:
    """A client that does not import is no client; the generator can write invalid code and say little."""
    assert (generated.path / "__init__.py").is_file(), f"{generated.api}: no client package was written"
    broken: dict[str, list[str]] = {}  # error -> the modules it stops
    for path in sorted(generated.path.rglob("*.py")):
        parts = path.relative_to(generated.path).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        try:
            _import(generated, "".join(f".{part}" for part in parts))
        except Exception as exc:
            broken.setdefault(f"{type(exc).__name__}: {exc}", []).append(str(path.relative_to(generated.path)))
    if broken:
        pytest.fail(
            f"generated {generated.api} modules that do not import:\n"
            + "\n".join(f"{error} (stops {len(where)} modules, {where[0]} first)" for error, where in broken.items()),
            pytrace=False,
        )


def _named_object_schema(doc: dict[str, Any], schema: Any) -> str | None:
    """The component name when `schema` is a `$ref` to an object model, or an `allOf` of them (not a union)."""
    ref = schema.get("$ref", "") if isinstance(schema, dict) else ""
    if not ref.startswith("#/components/schemas/"):
        return None
    name = ref.rsplit("/", 1)[1]
    target = doc["components"]["schemas"][name]
    if ({"properties", "allOf"} & target.keys()) and not ({"oneOf", "anyOf", "$ref"} & target.keys()):
        return name
    return None


def test_json_success_responses_are_typed(generated: Generated) -> None:
    """Each JSON success response naming an object model returns that model, as the CI gate's must."""
    from openapi_python_client.strings import ClassName

    doc = json.loads((Path(generated.root) / f"{generated.api}.json").read_text(encoding="utf-8"))
    untyped = []
    for method, route, _, operation in iter_operations(doc):
        for status, response in operation.get("responses", {}).items():
            for media, content in (response.get("content") or {}).items():
                if not status.startswith("2") or not (media == "application/json" or media.endswith("+json")):
                    continue
                name = _named_object_schema(doc, content.get("schema"))
                if name is None:
                    continue
                module = _endpoint_module(generated, operation["operationId"])
                names = {getattr(t, "__name__", "") for t in _return_types(module.sync)}
                if ClassName(name, prefix="field_") not in names:
                    untyped.append(f"{method.upper()} {route} {status}: {name} is not among {sorted(names)}")
    if untyped:
        pytest.fail(f"{generated.api} success responses without their typed model:\n" + "\n".join(untyped), False)


# Benchwright's endpoints the issue names, and the model each must return.
BENCHWRIGHT_TYPED = [
    pytest.param("getRun", "Run", id="run-detail"),
    pytest.param("listRunTasks", "TaskList", id="ci-gate-task-list"),
    pytest.param("createBenchmark", "Benchmark", id="benchmark"),
    pytest.param("getRegistryBenchmark", "RegistryBenchmark", id="registry-benchmark-detail"),
]


@pytest.mark.parametrize("generated", ["benchwright"], indirect=True)
@pytest.mark.parametrize(("operation_id", "model"), BENCHWRIGHT_TYPED)
def test_benchwright_endpoint_returns_its_model(generated: Generated, operation_id: str, model: str) -> None:
    """The endpoints the issue names (run detail, the CI gate's task list, the benchmark) are typed."""
    module = _endpoint_module(generated, operation_id)
    returned = {getattr(t, "__name__", ""): t for t in _return_types(module.sync)}
    assert model in returned, f"{operation_id} returns {sorted(returned)}, not {model}"
    models = _import(generated, ".models")
    assert getattr(models, model, None) is returned[model], f"{model} is not exported by the generated models"


def _example(doc: dict[str, Any], operation_id: str, status: str) -> dict[str, Any]:
    for _, _, _, operation in iter_operations(doc):
        if operation.get("operationId") == operation_id:
            return operation["responses"][status]["content"]["application/json"]["example"]
    raise AssertionError(f"no operation {operation_id}")


@pytest.mark.parametrize("generated", ["benchwright"], indirect=True)
def test_benchwright_task_list_types_the_complete_page(generated: Generated) -> None:
    """The CI gate reads `summary` and relies on `pagination.has_more` being false (a complete list)."""
    models = _import(generated, ".models")
    doc = json.loads((Path(generated.root) / "benchwright.json").read_text(encoding="utf-8"))
    page = models.TaskList.from_dict(_example(doc, "listRunTasks", "200"))
    assert page.pagination.has_more is False
    assert page.summary.pass_rate == 0.82 and page.data[0].task_id == "abstract_algebra_0"
    hints = typing.get_type_hints(type(page.pagination))
    assert hints["has_more"] == typing.Literal[False], f"pagination.has_more is typed {hints['has_more']}"
    with pytest.raises((TypeError, ValueError)):
        models.TaskList.from_dict({**_example(doc, "listRunTasks", "200"), "pagination": {"has_more": True}})


@pytest.mark.parametrize("generated", ["benchwright"], indirect=True)
def test_benchwright_benchmark_types_its_sources(generated: Generated) -> None:
    """`Benchmark` used to be dropped over `sources`: provenance that is null or a list of any JSON values."""
    models = _import(generated, ".models")
    doc = json.loads((Path(generated.root) / "benchwright.json").read_text(encoding="utf-8"))
    example = _example(doc, "createBenchmark", "201")
    assert models.Benchmark.from_dict(example).sources is None
    listed = models.Benchmark.from_dict({**example, "sources": ["https://example.org/paper", {"doi": "10.1/x"}]})
    assert listed.sources == ["https://example.org/paper", {"doi": "10.1/x"}]
    assert listed.to_dict()["sources"] == ["https://example.org/paper", {"doi": "10.1/x"}]
