"""`make bench`: the mock's throughput and latency beside the ceiling of its stack.

For each endpoint (Benchwright's GET /v1/runs, GET /v1/runs/{id}, POST /v1/runs, and
each other registered API's hottest read) the mock runs with everything on (auth,
scopes, rate limiting with a raised ceiling, request validation, idempotency
bookkeeping) beside two bare Starlette apps under the same server settings (uvicorn,
one process, uvloop + httptools when installed, no `Server` header and no
proxy-headers middleware, as the mock's own uvicorn runs):

- the bare app, which answers the mock's response: the same status, the same header
  lines (the API's version, request id and rate-limit headers the reference requires
  on every answer) and the same body, captured from the mock before the case runs;
- the body-only app, which answers the same status and body with none of those lines.

The ratio the targets are read against is the mock's over the bare app's: both then
put the same bytes on the wire, and the ratio measures what the mock does, not what
its header lines cost the stack (on this stack five short header lines take about a
fifth of the bare app's throughput on a small body). The body-only ratio is reported
beside it. All three are up at once and `wrk` measures them in alternating rounds
(mock, bare, body-only, then the reverse), so load from elsewhere on the machine falls on
all alike; each round gives ratios (mock req/s over each bare app's in the same round)
and the report gives the median ratios with their spread over the rounds, the median
req/s, p50 and p99, and the load average while the case ran. Where Node is available,
Prism 5's static mock serving this project's own bundled spec is measured on
GET /v1/runs/{id} too.

Absolute numbers drift on shared machines; the ratios are the result. Both servers
are pinned to CPU 0 and wrk to CPU 1 when `taskset` exists and there are two CPUs
or more, so the load generator never competes with the server it measures.

`--server granian` (or `both`) runs the mock and the bare app under granian instead of
(or as well as) uvicorn, to see whether a faster server lifts both ceilings.

    python -m mock_server.benchmark [--seconds 3] [--rounds 5] [--connections 16]
                                    [--server uvicorn|granian|both] [--api NAME] [--out reports/bench.md]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from mock_server.server import UVICORN_SETTINGS

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
OTHER_HOT_READS = {  # each other API's hottest read (issue item 7); its credential is the profile's ready one
    "benchsdk": "/api/v1/benchmarks/sandbox-tti/runs",
    "benchgen": "/api/competitions/public/",
    "bench": "/api/evaluation-runs",
}


def ready_credential(api: str) -> str:
    """The first credential the API's mock prints at start-up (`Profile.ready_credentials`
    of the mock as `python -m mock_server` configures it, `serve_options`)."""
    from .apis import profile
    from .engine.api import Api

    chosen = profile(api)
    mock = Api(chosen, chosen.config(**chosen.serve_options))
    credentials = chosen.ready_credentials(mock) if chosen.ready_credentials else {}
    if not credentials:
        raise RuntimeError(f"the {api} mock prints no ready credential")
    return next(iter(credentials.values()))


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
    switches = [f"--{'' if on else 'no-'}{name.replace('_', '-')}" for name, on in UVICORN_SETTINGS.items()]
    return uvicorn_cmd("mock_server.benchmark_bare:app", port, switches)


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


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def alternate(
    sides: dict[str, tuple[str, dict[str, str]]],
    method: str,
    body: str | None,
    rounds: int,
    seconds: int,
    connections: int,
) -> dict[str, object]:
    """`rounds` rounds of wrk runs, one per side (the mock first), the order reversed every
    round (mock-bare-body, body-bare-mock, ...) so a drift in the machine's load cancels; each
    round gives the mock's ratio to each bare app it ran beside."""
    names = list(sides)
    for url, headers in sides.values():  # warm every side before the first round
        wrk(url, 1, connections, headers, method, body)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    ratios: dict[str, list[float]] = {name: [] for name in names[1:]}
    loads = [os.getloadavg()[0]]
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            url, headers = sides[name]
            runs[name].append(wrk(url, seconds, connections, headers, method, body))
        loads.append(os.getloadavg()[0])
        for name in ratios:
            ratios[name].append(runs[names[0]][-1]["rps"] / runs[name][-1]["rps"])
    summary = {}
    for side, results in runs.items():
        summary[side] = {key: _median([r[key] for r in results]) for key in ("rps", "p50", "p99")} | {
            "errors": sum(r["errors"] for r in results),
            "requests": sum(r["requests"] for r in results),
        }
    return {"ratios": ratios["bare"], "body_ratios": ratios["body"], "load": loads, **summary}


# what the server or Starlette writes on every response: the bare app gets the rest of the mock's lines
SERVER_WRITTEN = frozenset({"date", "server", "content-length", "content-type", "connection", "transfer-encoding"})


def header_lines(response: httpx.Response) -> list[tuple[str, str]]:
    """The header lines of the mock's answer that the bare app must add to answer the same bytes."""
    return [
        (name.decode("latin-1"), value.decode("latin-1"))
        for name, value in response.headers.raw
        if name.decode("latin-1").lower() not in SERVER_WRITTEN
    ]


def measure_api(server: str, api: str, seconds: int, connections: int, rounds: int) -> list[dict[str, object]]:
    """One API's cases: the mock and, per case, the bare app of the same body, same server, alternating."""
    rows: list[dict[str, object]] = []
    port = free_port()
    mock_url = f"http://127.0.0.1:{port}"
    probe = "/v1/openapi.json" if api == "benchwright" else "/__mock/openapi.json"
    mock = Server(mock_server_cmd(server, api, port), mock_url + probe, env={"BENCH_API": api})
    try:
        if api == "benchwright":
            auth, cases = _benchwright_cases(mock_url)
        else:
            path = OTHER_HOT_READS[api]
            auth = {"Authorization": f"Bearer {ready_credential(api)}"}
            cases = [(f"{api}: GET {path}", path, "GET", None, 200)]
        for name, path, method, body, status in cases:
            sample = httpx.request(method, mock_url + path, headers=auth, content=body)
            assert sample.status_code == status, (name, sample.status_code, sample.text[:300])
            with tempfile.NamedTemporaryFile(delete=False) as fh:
                fh.write(sample.content)
            env = {"BENCH_BODY": fh.name, "BENCH_STATUS": str(status)}
            bare_port, body_port = free_port(), free_port()
            same = {**env, "BENCH_HEADERS": json.dumps(header_lines(sample))}
            with contextlib.ExitStack() as running:
                running.callback(os.unlink, fh.name)
                for port_, env_ in ((bare_port, same), (body_port, env)):
                    running.callback(Server(bare_cmd(server, port_), f"http://127.0.0.1:{port_}/", env=env_).stop)
                sides = {
                    "mock": (mock_url + path, auth),
                    "bare": (f"http://127.0.0.1:{bare_port}{path}", {}),
                    "body": (f"http://127.0.0.1:{body_port}{path}", {}),
                }
                result = alternate(sides, method, body, rounds, seconds, connections)
            rows.append({"endpoint": name, "server": server, "bytes": len(sample.content), **result})
    finally:
        mock.stop()
    return rows


def measure(
    seconds: int, connections: int, server: str = "uvicorn", apis: list[str] | None = None, rounds: int = 5
) -> list[dict[str, object]]:
    from .apis import APIS

    chosen = [a for a in (apis or ["benchwright", *OTHER_HOT_READS]) if a in APIS]
    rows: list[dict[str, object]] = []
    for kind in servers_available(server):
        for api in chosen:
            try:
                rows.extend(measure_api(kind, api, seconds, connections, rounds))
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
        return [{"endpoint": "GET /v1/runs/{id}", "server": "prism 5 (static)", "prism": result}]
    finally:
        prism.stop()


def _ratio(row: dict[str, object]) -> float:
    return _median(row["ratios"])  # type: ignore[arg-type]


def report(rows: list[dict[str, object]], seconds: int, connections: int, rounds: int) -> str:
    lines = [
        f"# Mock benchmark ({connections} connections, wrk; {rounds} alternating rounds of {seconds} s per side)",
        "",
        "Medians over the rounds. The bare app answers the mock's response: its status, its header",
        "lines and its body. The ratio is the mock's req/s over the bare app's in the same round",
        "(min-max across rounds in brackets). The body-only column is a bare app answering the",
        "same body with no header lines of the mock's, and the mock's ratio to it. Load is the",
        "1-minute load average at the case's start and end.",
        "",
        "| endpoint | server | mock req/s | bare req/s | ratio (min-max) | body-only req/s (ratio)"
        " | mock p50 / p99 ms | bare p50 / p99 ms | non-2xx | body bytes | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    measured = [r for r in rows if "ratios" in r]
    for r in measured:
        m, b, ratios, load = r["mock"], r["bare"], r["ratios"], r["load"]
        lines.append(
            f"| {r['endpoint']} | {r['server']} | {m['rps']:.0f} | {b['rps']:.0f} | "
            f"{_ratio(r):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | "
            f"{r['body']['rps']:.0f} ({_median(r['body_ratios']):.2f}x) | {m['p50']:.2f} / {m['p99']:.2f} | "
            f"{b['p50']:.2f} / {b['p99']:.2f} | {m['errors']} | {r['bytes']} | {load[0]:.2f}-{load[-1]:.2f} |"
        )
    lines += ["", "Targets (issue item 7; against the bare app answering the same response, same server, same run):"]
    for r in measured:
        post = str(r["endpoint"]).startswith("POST")
        goal = 0.3 if post else 0.5
        p99 = r["mock"]["p99"]
        extra = f"; p99 {p99:.2f} ms (target < 10 ms)" if post else ""
        verdict = "met" if _ratio(r) >= goal and (not post or p99 < 10) else "NOT met"
        body_only = _median(r["body_ratios"])
        lines.append(
            f"- {r['endpoint']} ({r['server']}): {_ratio(r):.2f}x (target >= {goal}){extra}: {verdict}"
            f" (body only: {body_only:.2f}x)"
        )
    by_key = {(r["endpoint"], r["server"]): r for r in measured}
    lift = []
    for (endpoint, server), r in by_key.items():
        u = by_key.get((endpoint, "uvicorn"))
        if server == "granian" and u:
            lift.append(
                f"- {endpoint}: mock {r['mock']['rps'] / u['mock']['rps']:.2f}x, "
                f"bare {r['bare']['rps'] / u['bare']['rps']:.2f}x"
            )
    if lift:
        lines += ["", "Granian over uvicorn (same run, same pinning, one worker each):", *lift]
    prism = {r["endpoint"]: r["prism"] for r in rows if "prism" in r}
    target = "GET /v1/runs/{id}"
    if target in prism and (target, "uvicorn") in by_key:
        mock_rps = by_key[(target, "uvicorn")]["mock"]["rps"]
        lines.append(f"- mock / prism throughput ({target}): {mock_rps / prism[target]['rps']:.2f}")
    else:
        lines.append("- prism: not measured (no Node, or prism could not serve the spec)")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server.benchmark")
    parser.add_argument("--seconds", type=int, default=3, help="per round and side")
    parser.add_argument("--rounds", type=int, default=5, help="alternating mock/bare rounds per case")
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
    rows = measure(args.seconds, args.connections, args.server, args.api, args.rounds)
    text = report(rows, args.seconds, args.connections, args.rounds)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
