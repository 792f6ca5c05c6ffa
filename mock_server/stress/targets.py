"""What the stress suite needs to know of each API: its credential, its error format,
a hot read, a JSON write, a path parameter, its uploads, and the secrets a client sends it.

The values come from each API's guide (docs/<api>.md) and fixtures (seed ids, ready
credentials); nothing here redefines the API's behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

CANARY = "stresscanary"  # every secret the suite sends contains this, so a scan finds any echo


def canary(kind: str) -> str:
    return f"sk-{CANARY}-{kind}-7f3a9c"


@dataclass(frozen=True)
class Target:
    name: str
    token: str
    hot_read: str  # the API's hottest read (issue item 7)
    write: tuple[str, str, dict[str, Any]]  # a JSON operation: method, path, a valid body
    path_param: str  # a GET with a path parameter, `{}` where the hostile value goes
    uploads: tuple[str, ...] = ()  # multipart operations (path)
    setup: Callable[[httpx.Client, dict[str, str]], None] | None = None
    plant_secrets: Callable[[httpx.Client, dict[str, str]], list[str]] = field(default=lambda c, h: [])

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def error_ok(self, response: httpx.Response) -> bool:
        """The body is in the API's documented error format (docs/interpretations.md)."""
        try:
            body = response.json()
        except ValueError:
            return False
        if not isinstance(body, dict):
            return False
        if self.name == "benchwright":  # §3.9 problem+json, or the legacy {"error"} where the spec says
            return (isinstance(body.get("code"), str) and "status" in body) or isinstance(body.get("error"), str)
        if self.name == "benchgen":  # DRF {"detail", "code"}
            return isinstance(body.get("detail"), str)
        error = body.get("error")  # benchsdk and Bench: {"error": {code, message, ...}}
        return isinstance(error, dict) and isinstance(error.get("code"), str)


# ---- secrets each API is sent (issue item 5) ---------------------------------------------


def _benchwright_secrets(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    value = canary("bw-vault")
    r = client.post("/v1/secrets", json={"name": "STRESS_CANARY_KEY", "value": value}, headers=headers)
    assert r.status_code in (200, 201, 409), r.text
    minted = client.post("/__mock/tokens", json={"scopes": ["full"], "label": "stress"}).json()["token"]
    client.get("/v1/runs", headers={"Authorization": f"Bearer {minted}"})
    return [value, minted, headers["Authorization"].split()[1]]


def _benchsdk_secrets(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    from mock_server.benchsdk.fixtures import SEED_OAUTH_TOKEN

    minted = client.post("/__mock/tokens", json={"kind": "api_key"}).json()["token"]
    client.get("/api/v1/benchmarks", headers={"Authorization": f"Bearer {minted}"})
    client.get("/api/v1/benchmarks", headers={"Authorization": f"Bearer {SEED_OAUTH_TOKEN}", "X-Org-Slug": "acme"})
    return [minted, SEED_OAUTH_TOKEN, headers["Authorization"].split()[1]]


def _benchgen_secrets(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    value = canary("bg-model-token")
    client.post("/api/competitions/123/register/", headers=headers)
    body = {
        "competition_id": 123,
        "model_source": "external",
        "model_url": "https://llm.example.com/v1/chat/completions",
        "model_name": "m",
        "model_token": value,
    }
    r = client.post("/models/api/queue_benchmark_run", json=body, headers=headers)
    assert r.status_code in (201, 402), r.text
    return [value, headers["Authorization"].split()[1]]


def _bench_secrets(client: httpx.Client, headers: dict[str, str]) -> list[str]:
    password, secret, key = canary("bench-password"), canary("bench-secret-key"), canary("bench-api-key")
    client.post("/api/auth/password", json={"email": "dev@example.test", "password": password})
    body = {
        "config": {"provider": "langfuse", "base_url": "https://lf.example.com", "project": "p", "since": "2026-01-01"},
        "credentials": {"secret_key": secret, "public_key": "pk-public", "api_key": key},
        "content_consent": True,
    }
    r = client.post("/api/ai-systems/123/context/connections", json=body, headers=headers)
    assert r.status_code == 201, r.text
    return [password, secret, key, headers["Authorization"].split()[1]]


# ---- the APIs ----------------------------------------------------------------------------

LAUNCH = {
    "request": "Run MMLU Abstract Algebra via OpenRouter",
    "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"},
}
BW_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"


def _benchsdk_setup(client: httpx.Client, headers: dict[str, str]) -> None:
    client.put("/api/v1/benchmarks/stress", json={"name": "Stress"}, headers=headers)


TARGETS: dict[str, Target] = {
    "benchwright": Target(
        name="benchwright",
        token="bw_live_pat_5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed",
        hot_read="/v1/runs",
        write=("POST", "/v1/runs", LAUNCH),
        path_param="/v1/runs/{}",
        plant_secrets=_benchwright_secrets,
    ),
    "benchsdk": Target(
        name="benchsdk",
        token="bp_mock_acme_0000000000000000000000000000",
        hot_read="/api/v1/benchmarks/sandbox-tti/runs",
        write=("POST", "/api/v1/benchmarks/stress/runs", {"totalTasks": 4, "participants": ["e2b"]}),
        path_param="/api/v1/benchmarks/{}",
        setup=_benchsdk_setup,
        plant_secrets=_benchsdk_secrets,
    ),
    "benchgen": Target(
        name="benchgen",
        token="bgn_demo_0123456789abcdef0123456789abcdef",
        hot_read="/api/competitions/public/",
        write=("POST", "/models/api/queue_benchmark_run", {"competition_id": 123, "model": "gpt-4o-mini"}),
        path_param="/api/submissions/{}/run_status/",
        plant_secrets=_benchgen_secrets,
    ),
    "bench": Target(
        name="bench",
        token="bench_dev_key_growth",
        hot_read="/api/evaluation-runs",
        write=(
            "PUT",
            "/api/ai-systems/123/context/sources",
            {
                "expected_version": 3,
                "source": {
                    "id": "manual-stress",
                    "kind": "user",
                    "category": "rules_constraints",
                    "scope": "system",
                    "text": "x",
                },
            },
        ),
        path_param="/api/evaluation-runs/{}",
        uploads=("/api/ai-systems/123/datasets", "/api/ai-systems/123/context/upload", "/api/prompt-scans"),
        plant_secrets=_bench_secrets,
    ),
}


def available() -> list[str]:
    """The registered APIs whose app builds (Bench is being finished; include it if it works)."""
    from mock_server.apis import APIS

    names = []
    for name in TARGETS:
        if name not in APIS:
            continue
        try:
            from mock_server.app import create_app

            create_app(api=name)
        except Exception:
            continue
        names.append(name)
    return names
