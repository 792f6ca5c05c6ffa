"""The wheel, installed outside the checkout, works from another directory (docs/packaging.md).

A client author installs the harness from a wheel into their own virtualenv, where no checkout
is beside it: every file read at run time (the specs, the vendored references the contract suites
parse, the contract runner's pytest settings) must travel inside the wheel. This test builds the
wheel from the project, installs it into a fresh virtualenv under a temporary directory, and from
another temporary directory serves each API and answers one request, runs `harness-contract
--api benchgen` against its embedded mock, and runs a client-style test file through the
installed pytest plugin.

To stay fast and offline, the wheel is built without build isolation (hatchling is a dev
dependency) and installed with `--no-deps`; the fresh virtualenv reaches the dependencies
through one `.pth` line naming the project virtualenv's site-packages. A directory named in a
`.pth` file is added to `sys.path` but its own `.pth` files are not run, so the project's
editable install (a `.pth` naming the checkout) does not come along: the test asserts that
`mock_server`, `contracts` and `harness_fixtures` import from the fresh virtualenv, and that the
specs and references are read from inside it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.wheel, pytest.mark.http]

ROOT = Path(__file__).resolve().parents[2]
# one request per API, with its ready credential (the header each API's spec declares)
PROBES = {
    "benchwright": ("/v1/runs", "BW_PAT"),
    "benchsdk": ("/api/v1/benchmarks", "BENCHMARKS_PLATFORM_API_KEY"),
    "benchgen": ("/api/competitions/public/", "BENCHGEN_TOKEN"),
    "bench": ("/api/headless/capabilities", "BENCH_API_KEY"),
}
CLIENT_TEST = """
import httpx

def test_the_plugin_serves_benchgen(benchgen_mock):
    headers = {"Authorization": f"Bearer {benchgen_mock.credential}"}
    assert httpx.get(f"{benchgen_mock.url}/api/user_llm_models/", headers=headers).status_code == 200
"""


class Installed:
    def __init__(self, venv: Path, workdir: Path) -> None:
        self.venv = venv
        self.bin = venv / "bin"
        self.workdir = workdir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}

    def run(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, cwd=self.workdir, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    dist, venv, workdir = base / "dist", base / "venv", base / "elsewhere"
    workdir.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)], check=True)
    (wheel,) = dist.glob("benchmark_api_harness-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "project-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [*pip, "--python", str(venv / "bin" / "python"), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
    )
    return Installed(venv, workdir)


def test_the_packages_and_their_files_come_from_the_wheel(installed: Installed):
    """Item 1 of the packaging issue: the specs and references are read from inside the installed package."""
    probe = installed.run(
        str(installed.bin / "python"),
        "-c",
        "import contracts, harness_fixtures, mock_server\n"
        "from mock_server.datafiles import REFERENCE_DIR, SPEC_ROOT\n"
        "print(mock_server.__file__, contracts.__file__, harness_fixtures.__file__, SPEC_ROOT, REFERENCE_DIR)",
    )
    assert probe.returncode == 0, probe.stderr
    paths = [Path(p) for p in probe.stdout.split()]
    assert all(path.is_relative_to(installed.venv) for path in paths), paths
    assert (paths[3] / "bench" / "openapi.yaml").is_file() and (paths[4] / "benchgen-api.md").is_file()
    for script in ("harness-mock", "harness-contract", "harness-proxy", "benchwright-mock", "benchwright-contract"):
        shown = installed.run(str(installed.bin / script), "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout, (script, shown.stderr)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(installed: Installed) -> Iterator[dict[str, tuple[str, dict[str, str]]]]:
    """Every API's mock started by the installed `harness-mock`, from the other directory: base URL and exports."""
    processes, out = [], {}
    try:
        for api in PROBES:
            port = _free_port()
            proc = subprocess.Popen(
                [str(installed.bin / "harness-mock"), "--api", api, "--port", str(port)],
                cwd=installed.workdir,
                env={**installed.env, "PYTHONUNBUFFERED": "1"},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            processes.append(proc)
            out[api] = (f"http://127.0.0.1:{port}", proc)
        yield {api: (url, _exports(proc)) for api, (url, proc) in out.items()}
    finally:
        for proc in processes:
            proc.terminate()
        for proc in processes:
            proc.wait(timeout=15)


def _exports(proc: subprocess.Popen[str]) -> dict[str, str]:
    exports: dict[str, str] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.match(r"\s*export (\w+)=(\S+)", line)
        if found:
            exports[found.group(1)] = found.group(2)
        if "control surface" in line:
            return exports
    raise AssertionError(f"the mock exited before its banner: {exports}")


def _get(url: str, headers: dict[str, str]) -> httpx.Response:
    deadline = time.monotonic() + 30
    while True:
        try:
            return httpx.get(url, headers=headers, timeout=10)
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_each_api_is_served_from_the_installed_wheel(served):
    """Each API's mock, from the wheel, answers one documented read with its ready credential
    (Benchwright §4.5, benchsdk A-01 and A-02, BenchGen B-08, Bench C-17)."""
    for api, (path, variable) in PROBES.items():
        url, exports = served[api]
        assert exports[variable], (api, exports)
        response = _get(url + path, {"Authorization": f"Bearer {exports[variable]}"})
        assert response.status_code == 200, (api, response.status_code, response.text[:300])
        assert response.headers["content-type"].startswith("application/json"), api


def test_the_installed_contract_suite_checks_benchgen(installed: Installed):
    """`harness-contract --api benchgen` from the wheel: the embedded mock, its whole quick profile, no drift,
    reports where asked (B-nn claims; the suite parses the vendored reference's walkthrough)."""
    result = installed.run(str(installed.bin / "harness-contract"), "--api", "benchgen", "--report-dir", "reports")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\d+ passed", result.stdout), result.stdout[-2000:]
    report = (installed.workdir / "reports" / "drift-report.md").read_text(encoding="utf-8")
    assert "benchgen" in report and (installed.workdir / "reports" / "junit.xml").is_file()


IMPORT_EVERY_MODULE = """
import importlib, os, pkgutil
api = os.environ["HARNESS_CONTRACT_API"]
packages = [importlib.import_module(name) for name in ("contracts.runner.suite", f"contracts.{api}.suite")]
if api == "benchwright":  # once: every module outside the suites, of all three packages
    packages += [importlib.import_module(name) for name in ("mock_server", "contracts", "harness_fixtures")]
for package in packages:
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        inside_a_suite = ".suite" in module.name and not package.__name__.endswith(".suite")
        if not inside_a_suite and not module.name.endswith("__main__"):
            importlib.import_module(module.name)
"""


def test_every_installed_module_imports(installed: Installed):
    """Every module of the wheel imports from the other directory, each API's contract suite with that API
    selected as `harness-contract` selects it: nothing a module reads when imported (a reference, a spec)
    is missing from the wheel."""
    python = str(installed.bin / "python")
    importing = {
        api: subprocess.Popen(
            [python, "-c", IMPORT_EVERY_MODULE],
            cwd=installed.workdir,
            env={**installed.env, "HARNESS_CONTRACT_API": api},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for api in PROBES
    }
    for api, process in importing.items():
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, (api, output[-3000:])


def test_the_installed_plugin_gives_a_client_test_its_mock(installed: Installed):
    """The `pytest11` entry point of the installed wheel: a client's test file asks for `benchgen_mock` and gets a
    served mock (B-19: the ready token lists the platform models)."""
    (installed.workdir / "test_client.py").write_text(CLIENT_TEST, encoding="utf-8")
    python = str(installed.bin / "python")
    result = installed.run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_client.py")
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout[-3000:] + result.stderr[-2000:]
