"""The contract runner in each of its four target modes, for every API (`contracts.runner.session`).

- *embedded*: no URL; the runner serves the mock itself;
- *served*: a mock served with its control surface, reached by URL alone: the runner
  finds `/__mock`, reads the ready credentials there and makes what its checks need;
- *staging*: a mock served with `--no-control` and its clock running in real time, given
  the credentials it printed and every opt-in: no drift on the clean server;
- *production*: the same with no opt-in: it passes and sends nothing but safe reads (the
  server runs in this process, behind a recorder of every request it received).

The per-commit matrix runs the `smoke` profile, lifts Benchwright's write quota on the
staging account and runs the staging and production servers' clocks `FAST_CLOCK` times faster
than the wall (time still passes on its own, with no control surface to move it: what a
deployment's clock does, only sooner), so a run fits the CI's time. Per commit it runs the
plain suite in the served, staging and production modes, and the differential mode served by
URL (but Benchwright's, nightly); the embedded mode is what `make contract` runs in `.ci/run` on
every commit. The nightly
workflow (`make test-nightly`, tests marked `slow`) adds the other five cases of each API, and
its `modes` job runs every case at the full profile, in real time, against the default tier
(`HARNESS_MODES_PROFILE=full`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from contracts.apis import CONTRACT_APIS, contract
from contracts.runner.safety import SAFE_METHODS
from contracts.runner.session import resolve
from contracts.runner.target import LiveServer
from mock_server.apis import profile
from mock_server.app import create_app
from tests.benchwright.drift import Recorder

ROOT = Path(__file__).resolve().parents[2]
PROFILE = os.environ.get("HARNESS_MODES_PROFILE", "smoke")
MODES = ("embedded", "served", "staging", "production")
WORKFLOW = ROOT / ".github" / "workflows" / "contract-staging.yml"
FAST_CLOCK = 1.0 if PROFILE == "full" else 20.0
PER_COMMIT = {"plain": ("served", "staging", "production"), "differential": ("served",)}
# Benchwright's differential run is the longest case of all (about two minutes); per commit its engine is
# checked by tests/differential (clean sessions, hooks, the catalogue's checks), and this case runs nightly
NIGHTLY = {("differential", "benchwright", "served")}


def _cases(kind: str) -> list:
    """(api, mode) for every API and mode; the ones not in PER_COMMIT[kind] marked `slow` (nightly)."""
    return [
        pytest.param(
            api,
            mode,
            id=f"{api}-{mode}",
            marks=() if mode in PER_COMMIT[kind] and (kind, api, mode) not in NIGHTLY else pytest.mark.slow,
        )
        for api in CONTRACT_APIS
        for mode in MODES
    ]


def _serve(api: str, mode: str, clock: float) -> tuple[Recorder, dict[str, str]]:
    """The app a mode's target is: a served mock (control on), or a deployment (control off, real time)."""
    chosen = profile(api)
    options = dict(chosen.serve_options)
    if mode != "served":
        options |= {"control": False, "clock_scale": clock}
    app = create_app(api=api, **options)
    if api == "benchwright" and PROFILE != "full":  # the CI-sized run: the staging account's quota lifted
        mock = app.state.mock
        mock.store.users[mock.store.default_user_id].quota_overrides = {"read_rpm": 10**6, "write_rpm": 10**6}
    printed = dict(chosen.ready_credentials(app.state.api)) if chosen.ready_credentials else {}
    return Recorder(app, prefix="/"), printed


def _run(api: str, tmp_path: Path, env_extra: dict[str, str], *args: str) -> tuple[int, str, str]:
    spec = contract(api)
    names = {spec.url_env, *spec.credential_envs, *spec.credentials.values(), *spec.role_envs.values()}
    env = {k: v for k, v in os.environ.items() if k not in names and not k.startswith(("HARNESS_", "BW_", "PYTEST_"))}
    env.update(env_extra)
    reports = tmp_path / "reports"
    command = [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--profile", PROFILE]
    proc = subprocess.run(
        [*command, "--report-dir", str(reports), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    path = reports / "drift-report.md"
    report = path.read_text(encoding="utf-8") if path.exists() else ""
    return proc.returncode, report, proc.stdout[-3000:] + proc.stderr[-3000:]


def _mode_run(api: str, mode: str, tmp_path: Path, *args: str) -> tuple[int, str, str, Recorder | None]:
    """One contract run of `api` in target `mode` (with the runner's `args`): its exit code, drift report,
    output tail, and the recorder in front of a served target (None when embedded)."""
    spec = contract(api)
    if mode == "embedded":
        return *_run(api, tmp_path, {}, *args), None
    # the differential oracle follows the wall clock: its target's clock must too
    recorder, printed = _serve(api, mode, 1.0 if "--differential" in args else FAST_CLOCK)
    with LiveServer(recorder) as server:
        env = {spec.url_env: server.url}
        if mode != "served":  # a deployment: the credentials it printed, as a CI job's secrets give them
            env |= printed
        opt_ins = ("--allow", "spend,writes,destructive") if mode == "staging" else ()
        return *_run(api, tmp_path, env, *opt_ins, *args), recorder


def _only_safe_reads(api: str, recorder: Recorder | None) -> None:
    assert recorder is not None
    unsafe = sorted({(m, p) for m, p in recorder.calls if m not in SAFE_METHODS})
    assert recorder.calls, "the production run sent nothing"
    assert not unsafe, f"a read-only run against {api} sent writes: {unsafe[:20]}"


@pytest.mark.http
@pytest.mark.parametrize(("api", "mode"), _cases("plain"))
def test_the_suite_passes_in_every_target_mode(api: str, mode: str, tmp_path: Path) -> None:
    """Each API's suite passes against a clean server in each target mode, and says which mode it ran in."""
    code, report, output, recorder = _mode_run(api, mode, tmp_path)
    assert code == 0, f"{api} in {mode} mode: exit {code}\n{report[:4000]}\n{output}"
    assert f"Mode **{mode}**" in report, report[:2000]
    assert "No drift" in report, report[:4000]
    if mode == "production":
        _only_safe_reads(api, recorder)
        if api == "benchwright":  # what it could not check is listed, with the opt-in or surface it lacked
            assert "Not checked here" in report and "--allow-spend" in report and "control surface" in report


@pytest.mark.http
@pytest.mark.parametrize(("api", "mode"), _cases("differential"))
def test_differential_mode_runs_in_every_target_mode(api: str, mode: str, tmp_path: Path) -> None:
    """`make contract DIFF=1` (`--differential`, docs/differential.md) in each target mode against a clean
    server: the oracle is in the path (requests compared, a fresh mock's credentials mapped onto the ones the
    mode gives) and finds no behavioural drift; in production mode it is given only the safe reads the run
    sends, so the target still received nothing else."""
    code, report, output, recorder = _mode_run(api, mode, tmp_path, "--differential")
    assert code == 0, f"{api} in {mode} mode, differential: exit {code}\n{report[-6000:]}\n{output}"
    assert f"Mode **{mode}**" in report, report[:2000]
    compared = re.search(r"answered the same (\d+) request\(s\) alike: no behavioural drift", report)
    assert compared and int(compared.group(1)) > 0, report[-6000:]
    assert "could not compare" not in report, report[-6000:]  # an exchange the engine failed on hides drift
    if mode == "production":
        _only_safe_reads(api, recorder)


def test_the_nightly_workflows_opt_ins_reach_every_api() -> None:
    """The staging job's opt-in inputs, set on a manual dispatch, reach every API's suite: each
    API's target, resolved with the job's environment, runs with all three opt-ins and its budget."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (step,) = [s for s in workflow["jobs"]["contract"]["steps"] if "make contract" in s.get("run", "")]
    dispatched = {name: ("1" if "inputs.allow_" in str(value) else str(value)) for name, value in step["env"].items()}
    budget = next(int(v) for k, v in dispatched.items() if k.endswith("CONTRACT_MAX_REQUESTS"))
    for api in CONTRACT_APIS:
        spec = contract(api)
        assert spec.url_env in step["env"], f"the workflow does not pass {spec.url_env}"
        app = create_app(api=api, control=False, **profile(api).serve_options)
        printed = dict(profile(api).ready_credentials(app.state.api) or {})
        with LiveServer(app) as server:
            session = resolve(api, {**dispatched, spec.url_env: server.url, **printed})
            assert session.mode == "staging"
            assert session.policy.opt_ins == ["spend", "writes", "destructive"], api
            assert session.policy.max_requests == budget


@pytest.mark.parametrize("prefix", ["HARNESS_CONTRACT_", "BW_CONTRACT_"])
def test_both_spellings_of_the_options_reach_the_policy(prefix: str) -> None:
    """`HARNESS_CONTRACT_*` and the older `BW_CONTRACT_*` both set a run's opt-ins and budget, for any API."""
    app = create_app(api="benchgen", control=False)
    with LiveServer(app) as server:
        env = {"BENCHGEN_API_URL": server.url, "BENCHGEN_TOKEN": "bgn_x", f"{prefix}ALLOW_WRITES": "1"}
        session = resolve("benchgen", {**env, f"{prefix}MAX_REQUESTS": "77"})
    assert (session.mode, session.policy.opt_ins, session.policy.max_requests) == ("staging", ["writes"], 77)


def test_a_read_only_target_refuses_writes_before_the_wire() -> None:
    """Production mode: whatever a check asks, nothing but a safe read leaves the runner."""
    app = Recorder(create_app(api="benchgen", control=False), prefix="/")
    with LiveServer(app) as server:
        session = resolve("benchgen", {"BENCHGEN_API_URL": server.url, "BENCHGEN_TOKEN": "bgn_x"})
        assert session.mode == "production"
        with session.client() as http, pytest.raises(pytest.skip.Exception, match="read-only"):
            http.post("/api/user_llm_models/", json={})
    assert [call for call in app.calls if call[0] not in SAFE_METHODS] == []  # the probe for /__mock is a GET


def test_make_contract_passes_the_opt_ins_and_the_budget() -> None:
    """`make contract ALLOW=spend,writes,destructive MAX_REQUESTS=N` (the README's spelling) reaches the runner
    as its flags; the runner's parsing of them is what the matrix above runs."""
    out = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-n",
            "contract",
            "API=benchgen",
            "ALLOW=spend,writes,destructive",
            "MAX_REQUESTS=9",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(line for line in out.splitlines() if "harness-contract" in line)
    assert "harness-contract" in line and "--api benchgen" in line
    assert "--allow spend,writes,destructive" in line and "--max-requests 9" in line
