"""The proxy forwards what it received byte for byte (docs/proxy.md: "put it between your client and a
server"): the request target goes upstream as the client spelt it, the ASGI scope's `raw_path` and
`query_string`, never re-encoded from the decoded path.

Decoded, a percent-encoded control byte (`%0E`) is a character httpx refuses to put in a URL (the
proxy answered 500), and `%2F` would become a segment separator upstream. Run as a client would put
it in front of a server, every API's whole contract suite through the proxy passes as it does
directly (the `smoke` profile, the one the target-mode matrix runs per commit).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from contracts.apis import CONTRACT_APIS, contract

from .conftest import proxied

ROOT = Path(__file__).resolve().parents[2]
CONTROL_BYTE_PATH = "/api/ai-systems/%0E8%C3%86/context"


class Upstream:
    """An upstream that records the target of each request it receives and answers 200."""

    def __init__(self) -> None:
        self.targets: list[tuple[bytes, bytes]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.targets.append((scope["raw_path"], scope["query_string"]))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b"{}"})


@pytest.mark.parametrize(
    ("target", "raw_path", "query"),
    [
        (CONTROL_BYTE_PATH, CONTROL_BYTE_PATH.encode(), b""),
        ("/api/ai-systems/a%2Fb/context?q=%20x&r=y+z", b"/api/ai-systems/a%2Fb/context", b"q=%20x&r=y+z"),
    ],
    ids=["control-byte", "encoded-slash-and-query"],
)
def test_the_target_goes_upstream_byte_for_byte(tmp_path, target, raw_path, query):
    upstream = Upstream()
    with proxied("bench", tmp_path, app=upstream) as (_proxy, url, _server):
        response = httpx.get(url + target)
    assert response.status_code == 200, response.text
    assert upstream.targets == [(raw_path, query)]


def test_a_control_byte_in_a_path_reaches_the_mock_and_gets_its_answer(tmp_path):
    """The exact request the proxy answered 500 to: the Bench mock's own answer comes back (a 4xx in
    its error format), not the proxy's."""
    with proxied("bench", tmp_path) as (proxy, url, _server):
        response = httpx.get(url + CONTROL_BYTE_PATH, headers={"Authorization": "Bearer bench_dev_key_growth"})
    assert 400 <= response.status_code < 500, response.text
    assert "error" in response.json()
    assert [e.status for e in proxy.exchanges] == [response.status_code]


# per commit: BenchGen's whole suite, and Bench's control-byte path byte for byte (the two tests above); the
# nightly runs every API's whole suite through the proxy
PER_COMMIT = ("benchgen",)


@pytest.mark.http
@pytest.mark.parametrize(
    "api", [pytest.param(api, marks=() if api in PER_COMMIT else pytest.mark.slow) for api in CONTRACT_APIS]
)
def test_the_whole_contract_suite_passes_through_the_proxy(api: str, tmp_path: Path) -> None:
    """`make contract API=NAME` with the API's URL pointing at `make proxy` in front of a served mock:
    no drift, and every request of the run went through the proxy."""
    spec = contract(api)
    names = {spec.url_env, *spec.credential_envs, *spec.credentials.values(), *spec.role_envs.values()}
    env = {k: v for k, v in os.environ.items() if k not in names and not k.startswith(("HARNESS_", "BW_", "PYTEST_"))}
    with proxied(api, tmp_path) as (proxy, url, _server):
        env[spec.url_env] = url
        reports = tmp_path / "reports"
        command = [sys.executable, "-m", "contracts.runner.cli", "--api", api, "--profile", "smoke"]
        proc = subprocess.run(
            [*command, "--report-dir", str(reports)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
        )
        seen = len(proxy.exchanges)
    report = (reports / "drift-report.md").read_text(encoding="utf-8") if (reports / "drift-report.md").exists() else ""
    assert proc.returncode == 0, (
        f"{api} through the proxy: exit {proc.returncode}\n{report[:4000]}\n{proc.stderr[-3000:]}"
    )
    assert "Mode **served**" in report and "No drift" in report, report[:3000]
    assert seen > 0 and not [e for e in proxy.exchanges if e.status == 502]
