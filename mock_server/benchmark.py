"""`make bench`: the mock's throughput and latency beside the ceiling of its stack.

For each endpoint (Benchwright's GET /v1/runs, GET /v1/runs/{id}, POST /v1/runs, and
each other registered API's hottest read) the mock runs
with everything on (auth, scopes, rate limiting with a raised ceiling, request
validation, idempotency bookkeeping) and is measured by `wrk` side by side, in the
same run, with a bare Starlette app that returns a constant body of the same size
under the same server settings (uvicorn, one process, uvloop + httptools when
installed). Where Node is available, Prism 5's static mock serving this project's
own bundled spec is measured on GET /v1/runs/{id} too.

Absolute numbers drift on shared machines; the ratios are the result. The server
is pinned to CPU 0 and wrk to CPU 1 when `taskset` exists.

`--server granian` (or `both`) runs the mock and the bare app under granian instead of
(or as well as) uvicorn, to see whether a faster server lifts both ceilings.

    python -m mock_server.benchmark [--seconds 8] [--connections 16] [--server uvicorn|granian|both]
                                    [--api NAME] [--out reports/bench.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PRISM = ROOT / ".tools" / "node_modules" / ".bin" / "prism"
RUN_ID = "608721fe-54f1-43e3-ab9b-7e0269783f70"
LAUNCH_BODY = {
    "request": "Run MMLU Abstract Algebra via OpenRouter",
    "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pinned(cpu: int, argv: list[str]) -> list[str]:
    return ["taskset", "-c", str(cpu), *argv] if shutil.which("taskset") and os.cpu_count() > 1 else argv


def wait_up(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def uvicorn_cmd(target: str, port: int, extra: list[str] | None = None) -> list[str]:
    return pinned(
        0,
        [
            sys.executable,
            "-m",
            "uvicorn",
            target,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            *(extra or []),
        ],
    )


def wrk(
    url: str, seconds: int, connections: int, headers: dict[str, str], method: str = "GET", body: str | None = None
) -> dict[str, float]:
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        argv += ["-H", f"{name}: {value}"]
    with tempfile.TemporaryDirectory() as scratch:
        if method != "GET":
            script = Path(scratch) / "request.lua"
            script.write_text(f'wrk.method = "{method}"\nwrk.body = {json.dumps(body or "")}\n')
            argv += ["-s", str(script)]
        out = subprocess.run(pinned(1, [*argv, url]), capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = {p: _ms(re.search(rf"^\s+{p}%\s+([\d.]+\w+)", out, re.M).group(1)) for p in ("50", "99")}
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    return {
        "rps": rps,
        "p50": latency["50"],
        "p99": latency["99"],
        "errors": int(non2xx.group(1)) if non2xx else 0,
        "requests": total,
    }


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


class Server:
    def __init__(self, argv: list[str], url: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_up(url)
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


GRANIAN = Path(sys.executable).with_name("granian")
OTHER_HOT_READS = {  # each other API's hottest read (issue item 7), with its ready credential
    "benchsdk": ("/api/v1/benchmarks/sandbox-tti/runs", "bp_mock_acme_0000000000000000000000000000"),
    "benchgen": ("/api/competitions/public/", "bgn_demo_0123456789abcdef0123456789abcdef"),
    "bench": ("/api/evaluation-runs", "bench_dev_key_growth"),
}


def servers_available(choice: str) -> list[str]:
    kinds = ["uvicorn", "granian"] if choice == "both" else [choice]
    return [k for k in kinds if k == "uvicorn" or GRANIAN.exists()]


def granian_cmd(target: str, port: int, factory: bool = False) -> list[str]:
    """Granian in the shape of the uvicorn runs: one worker, one runtime thread, uvloop."""
    argv = [str(GRANIAN), "--interface", "asgi", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    argv += ["--runtime-threads", "1", "--loop", "uvloop", "--log-level", "warning", "--no-ws"]
    argv += ["--factory", target] if factory else [target]
    return pinned(0, argv)


def mock_server_cmd(server: str, api: str, port: int) -> list[str]:
    if server == "granian":
        return granian_cmd("mock_server.benchmark_bare:mock_app", port, factory=True)
    return pinned(0, [sys.executable, "-m", "mock_server", "--api", api, "--port", str(port), "--clock-scale", "0"])


def bare_cmd(server: str, port: int) -> list[str]:
    if server == "granian":
        return granian_cmd("mock_server.benchmark_bare:app", port)
    return uvicorn_cmd("mock_server.benchmark_bare:app", port)


def _benchwright_cases(mock_url: str) -> tuple[dict[str, str], list[tuple]]:
    user = httpx.post(
        f"{mock_url}/__mock/users",
        json={
            "tier": "scale",
            "balance_cents": 10_000_000,
            "quota_overrides": {"read_rpm": 10**9, "write_rpm": 10**9, "max_run_concurrency": 10**9},
        },
    ).json()
    token = httpx.post(f"{mock_url}/__mock/tokens", json={"scopes": ["full"], "user_id": user["id"]}).json()
    auth = {"Authorization": f"Bearer {token['token']}", "Content-Type": "application/json"}
    secret = {"name": "OPENROUTER_API_KEY", "value": "sk-or-bench"}
    httpx.post(f"{mock_url}/v1/secrets", json=secret, headers=auth)
    for _ in range(10):  # give the bench account a page of its own runs
        httpx.post(f"{mock_url}/v1/runs", json=LAUNCH_BODY, headers=auth)
    return auth, [
        ("GET /v1/runs", "/v1/runs", "GET", None, 200),
        ("GET /v1/runs/{id}", f"/v1/runs/{RUN_ID}", "GET", None, 200),
        ("POST /v1/runs", "/v1/runs", "POST", json.dumps(LAUNCH_BODY), 202),
    ]


def measure_api(server: str, api: str, seconds: int, connections: int) -> list[dict[str, object]]:
    """One API's cases on the mock, then each beside the bare app of the same body, same server."""
    rows: list[dict[str, object]] = []
    port = free_port()
    mock_url = f"http://127.0.0.1:{port}"
    probe = "/v1/openapi.json" if api == "benchwright" else "/__mock/openapi.json"
    mock = Server(mock_server_cmd(server, api, port), mock_url + probe, env={"BENCH_API": api})
    try:
        if api == "benchwright":
            auth, cases = _benchwright_cases(mock_url)
        else:
            path, token = OTHER_HOT_READS[api]
            auth = {"Authorization": f"Bearer {token}"}
            cases = [(f"{api}: GET {path}", path, "GET", None, 200)]
        samples = {}
        for name, path, method, body, status in cases:
            sample = httpx.request(method, mock_url + path, headers=auth, content=body)
            assert sample.status_code == status, (name, sample.status_code, sample.text[:300])
            samples[name] = sample.content
            result = wrk(mock_url + path, seconds, connections, auth, method, body)
            rows.append({"endpoint": name, "server": f"mock ({server})", **result, "bytes": len(sample.content)})
    finally:
        mock.stop()
    for name, path, method, body, status in cases:
        with tempfile.NamedTemporaryFile(delete=False) as fh:
            fh.write(samples[name])
        port = free_port()
        env = {"BENCH_BODY": fh.name, "BENCH_STATUS": str(status)}
        bare = Server(bare_cmd(server, port), f"http://127.0.0.1:{port}/", env=env)
        try:
            result = wrk(f"http://127.0.0.1:{port}{path}", seconds, connections, {}, method, body)
            rows.append(
                {"endpoint": name, "server": f"bare starlette ({server})", **result, "bytes": len(samples[name])}
            )
        finally:
            bare.stop()
            os.unlink(fh.name)
    return rows


def measure(
    seconds: int, connections: int, server: str = "uvicorn", apis: list[str] | None = None
) -> list[dict[str, object]]:
    from .apis import APIS

    chosen = [a for a in (apis or ["benchwright", *OTHER_HOT_READS]) if a in APIS]
    rows: list[dict[str, object]] = []
    for kind in servers_available(server):
        for api in chosen:
            try:
                rows.extend(measure_api(kind, api, seconds, connections))
            except (RuntimeError, AssertionError, subprocess.CalledProcessError) as error:
                print(f"bench: {api} on {kind} left out ({error})", file=sys.stderr)
    if PRISM.exists():
        rows.extend(measure_prism(seconds, connections))
    return rows


def measure_prism(seconds: int, connections: int) -> list[dict[str, object]]:
    bundle = ROOT / "build" / "openapi.json"
    subprocess.run([sys.executable, "-m", "mock_server.bundle", "--out", str(bundle)], check=True, cwd=ROOT)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    try:
        prism = Server(
            pinned(0, [str(PRISM), "mock", "-p", str(port), "-h", "127.0.0.1", "--errors", "false", str(bundle)]),
            url + "/v1/openapi.json",
        )
    except RuntimeError:
        return []
    try:
        headers = {"Authorization": "Bearer bw_live_pat_bench", "Cookie": "bw_session=bench"}
        result = wrk(f"{url}/v1/runs/{RUN_ID}", seconds, connections, headers)
        return [{"endpoint": "GET /v1/runs/{id}", "server": "prism 5 (static)", **result, "bytes": 0}]
    finally:
        prism.stop()


def _server(row: dict[str, object]) -> str:
    return str(row["server"]).rsplit("(", 1)[-1].rstrip(")")


def report(rows: list[dict[str, object]], seconds: int, connections: int) -> str:
    lines = [
        f"# Mock benchmark ({connections} connections, {seconds} s per case, wrk)",
        "",
        "| endpoint | server | req/s | p50 ms | p99 ms | non-2xx | body bytes | vs bare (same server) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    bare = {(r["endpoint"], _server(r)): r for r in rows if str(r["server"]).startswith("bare")}
    mocks = {(r["endpoint"], _server(r)): r for r in rows if str(r["server"]).startswith("mock")}
    for r in rows:
        ref = bare.get((r["endpoint"], _server(r)))
        ratio = f"{r['rps'] / ref['rps']:.2f}x" if ref and not str(r["server"]).startswith("bare") else ""
        lines.append(
            f"| {r['endpoint']} | {r['server']} | {r['rps']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} | "
            f"{r['errors']} | {r['bytes']} | {ratio} |"
        )
    lines += ["", "Targets (issue item 7; against the bare app of the same body and server, same run):"]
    for (endpoint, server), r in mocks.items():
        ref = bare.get((endpoint, server))
        if not ref:
            continue
        ratio = r["rps"] / ref["rps"]
        post = str(endpoint).startswith("POST")
        goal = 0.3 if post else 0.5
        extra = f"; p99 {r['p99']:.2f} ms (target < 10 ms)" if post else ""
        verdict = "met" if ratio >= goal and (not post or r["p99"] < 10) else "NOT met"
        lines.append(f"- {endpoint} ({server}): {ratio:.2f}x (target >= {goal}){extra}: {verdict}")
    lift = []
    for (endpoint, server), r in mocks.items():
        u, ub, gb = mocks.get((endpoint, "uvicorn")), bare.get((endpoint, "uvicorn")), bare.get((endpoint, server))
        if server == "granian" and u and ub and gb:
            lift.append(f"- {endpoint}: mock {r['rps'] / u['rps']:.2f}x, bare {gb['rps'] / ub['rps']:.2f}x")
    if lift:
        lines += ["", "Granian over uvicorn (same run, same pinning, one worker each):", *lift]
    prism = {r["endpoint"]: r for r in rows if str(r["server"]).startswith("prism")}
    target = "GET /v1/runs/{id}"
    if target in prism and (target, "uvicorn") in mocks:
        lines.append(
            f"- mock / prism throughput ({target}): {mocks[(target, 'uvicorn')]['rps'] / prism[target]['rps']:.2f}"
        )
    else:
        lines.append("- prism: not measured (no Node, or prism could not serve the spec)")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server.benchmark")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--out", default="reports/bench.md")
    parser.add_argument(
        "--server", choices=["uvicorn", "granian", "both"], default="uvicorn",
        help="the ASGI server under both the mock and the bare app (granian if installed)",
    )  # fmt: skip
    parser.add_argument("--api", action="append", help="only this API's cases (repeatable)")
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        print("make bench needs wrk (Debian: apt-get install wrk)", file=sys.stderr)
        return 2
    rows = measure(args.seconds, args.connections, args.server, args.api)
    text = report(rows, args.seconds, args.connections)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
