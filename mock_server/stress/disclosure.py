"""Issue item 5: nothing the client sent as a secret comes back, anywhere.

Before fuzzing and the catalogue, `plant` sends each API its secrets (Benchwright a
vault value §9 and minted tokens §2; benchsdk its API key and OAuth token; BenchGen an
external model's `model_token`, which is "never stored, echoed" B-25; Bench a password
and a connector's credentials) and `probe` sends them again the ways that tempt an echo
(wrong types, over-long values, unknown bearer tokens). After everything, `scan`
searches every response body and header the suite received (the fuzzer's HAR, the
catalogue, the races, the streams), the stream events, the journal (`GET
/__mock/requests`) and the process' log for each value: 0 occurrences. The log's
start-up banner (`export NAME=<ready credential>`, printed before any request by
design) is left out of the scan. Control
routes that mint a token (`POST /__mock/tokens`) are the one place a token is meant
to be shown, so their answers are not scanned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import httpx

from .process import MockProcess
from .targets import TARGETS, canary

BANNER = re.compile(r"^\s*export [A-Z_]+=")  # the start-up banner's ready credential (`make serve` prints it)


@dataclass
class Scan:
    api: str
    secrets: int = 0
    sources: dict[str, int] = field(default_factory=dict)  # source -> texts scanned
    hits: list[str] = field(default_factory=list)  # "secret[:12]… in source"

    @property
    def ok(self) -> bool:
        return self.secrets > 0 and not self.hits


def plant(mock: MockProcess) -> list[str]:
    target = TARGETS[mock.api]
    with httpx.Client(base_url=mock.url, timeout=30) as client:
        if target.setup:
            target.setup(client, target.headers)
        return target.plant_secrets(client, target.headers)


PROBES = {
    "benchwright": [("POST", "/v1/secrets", lambda v: {"name": "STRESS_PROBE", "value": [v]}),
                    ("POST", "/v1/secrets", lambda v: {"name": "STRESS_PROBE", "value": {"v": v}}),
                    ("POST", "/v1/secrets", lambda v: {"name": "STRESS PROBE", "value": v})],
    "benchgen": [("POST", "/models/api/queue_benchmark_run", lambda v: {"competition_id": 123, "model_source": "external", "model_url": "https://llm.example.com/v1", "model_name": "m", "model_token": [v]}),  # noqa: E501
                 ("POST", "/models/api/queue_benchmark_run", lambda v: {"competition_id": 123, "model_source": "external", "model_url": "https://llm.example.com/v1", "model_name": "m", "model_token": v * 400})],  # noqa: E501
    "bench": [("POST", "/api/auth/password", lambda v: {"email": "dev@example.test", "password": [v]}),
              ("POST", "/api/ai-systems/123/context/connections", lambda v: {"config": {"provider": "langfuse", "base_url": "https://lf.example.com", "project": "p", "since": "2026-01-01"}, "credentials": {"secret_key": {"k": v}}, "content_consent": True})],  # noqa: E501
}  # fmt: skip


def probe(mock: MockProcess, said: list[str]) -> list[str]:
    """Secrets sent where an echo is tempting; the answers go into `said`."""
    target = TARGETS[mock.api]
    sent = []
    with httpx.Client(base_url=mock.url, timeout=30) as client:
        for i, (method, path, body) in enumerate(PROBES.get(mock.api, [])):
            value = canary(f"probe{i}")
            sent.append(value)
            r = client.request(method, path, json=body(value), headers=target.headers)
            said.append(r.text)
            said.extend(f"{k}: {v}" for k, v in r.headers.items())
        bogus = canary("bogus-bearer")
        sent.append(bogus)
        for path in (target.hot_read, target.path_param.replace("{}", "x")):
            r = client.get(path, headers={"Authorization": f"Bearer {bogus}"})
            said.append(r.text)
            said.extend(f"{k}: {v}" for k, v in r.headers.items())
    return sent


def sweep(mock: MockProcess) -> dict[str, list[str]]:
    """What the mock says now: its journal, its log, and for Benchwright every event of the
    default account's runs (polled and streamed, §5) and its vault listing."""
    target = TARGETS[mock.api]
    log = [line for line in mock.log_text().splitlines() if not BANNER.match(line)]
    out: dict[str, list[str]] = {"journal": [], "log": log, "events": []}
    with httpx.Client(base_url=mock.url, timeout=30) as client:
        out["journal"].append(client.get("/__mock/requests").text)
        if mock.api == "benchwright":
            runs = client.get("/v1/runs", params={"limit": 100}, headers=target.headers).json().get("data", [])
            out["events"].append(client.get("/v1/secrets", headers=target.headers).text)
            for run in runs[:20]:
                out["events"].append(client.get(f"/v1/runs/{run['id']}/events", headers=target.headers).text)
                if run.get("status") != "running":
                    out["events"].append(client.get(f"/v1/runs/{run['id']}/events:stream", headers=target.headers).text)
        if mock.api == "benchgen":
            for sub in (1000, 1001, 1002):
                out["events"].append(client.get(f"/api/submissions/{sub}/run_status/", headers=target.headers).text)
        if mock.api == "bench":
            out["events"].append(client.get("/api/ai-systems/123/context/connections", headers=target.headers).text)
    return out


def scan(api: str, secrets: list[str], sources: dict[str, list[str]]) -> Scan:
    result = Scan(api, len(set(secrets)))
    for source, texts in sources.items():
        result.sources[source] = len(texts)
        for secret in set(secrets):
            if any(secret in text for text in texts):
                where = next(text for text in texts if secret in text)
                at = where.index(secret)
                context = where[max(0, at - 80) : at + len(secret) + 20].replace("\n", " ")
                label = (
                    secret if "stresscanary" in secret else secret[:10] + "…"
                )  # the suite's own canaries are not secret
                result.hits.append(f"{label} in {source}: …{context.replace(secret, '<SECRET>')}…")
    return result
