"""What the contract suite talks to.

- `BW_API_URL` unset: the embedded mock, served over real HTTP on 127.0.0.1.
- `BW_API_URL` set: that deployment. When it exposes the mock's control surface
  (`make serve` does), `BW_API_URL` alone is enough: the suite mints the tokens it
  needs and drives runs through `/__mock`. Otherwise `BW_PAT` is required, and
  optional extra tokens widen the scope checks: `BW_PAT_READONLY` (a token lacking
  every write scope) and `BW_PAT_EXPIRED` (an expired one).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from mock_server.server import MAX_HEAD_BYTES, uvicorn_config

QUOTA_FREE = {"read_rpm": 10**9, "write_rpm": 10**9, "max_run_concurrency": 10**6}


class LiveServer:
    """An ASGI app under uvicorn on 127.0.0.1 (an ephemeral port), in a thread."""

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        import uvicorn

        self.app = app
        self.mock = getattr(getattr(app, "state", None), "mock", None)
        with socket.socket() as sock:
            sock.bind((host, 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        if self.mock is not None:  # a mock: served as `python -m mock_server` serves it (bounded heads)
            config = uvicorn_config(app, self.mock, host, self.port, "warning", MAX_HEAD_BYTES, lifespan="off")
        else:
            config = uvicorn.Config(app, host=host, port=self.port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@dataclass
class Target:
    base_url: str
    pat: str
    control: bool  # the mock's /__mock surface is reachable
    tokens: dict[str, str] = field(default_factory=dict)  # extra credentials by role
    server: LiveServer | None = None

    @property
    def live(self) -> bool:
        """A real deployment: someone's account, where the safety layer applies."""
        return not self.control

    @property
    def description(self) -> str:
        if self.server is not None:
            return f"embedded mock at {self.base_url}"
        return f"{'mock' if self.control else 'live deployment'} at {self.base_url}"

    def mint(self, scopes: list[str], **body: Any) -> str:
        """A token from the control surface (mock targets only)."""
        response = httpx.post(f"{self.base_url}/__mock/tokens", json={"scopes": scopes, **body}, timeout=10)
        response.raise_for_status()
        return response.json()["token"]

    def control_post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return httpx.post(f"{self.base_url}/__mock{path}", json=body or {}, timeout=10)

    def control_delete(self, path: str) -> httpx.Response:
        return httpx.delete(f"{self.base_url}/__mock{path}", timeout=10)

    def close(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None


def has_control_surface(base_url: str) -> bool:
    try:
        response = httpx.get(f"{base_url}/__mock/requests", timeout=5)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.headers.get("content-type", "").startswith("application/json")


def _prepare_mock(target: Target) -> None:
    """A fresh account with raised quotas and a provider key, and its tokens."""
    user = target.control_post(
        "/users", {"tier": "scale", "balance_cents": 10_000_000, "quota_overrides": QUOTA_FREE}
    ).json()
    target.tokens["user_id"] = user["id"]
    target.pat = target.mint(["full"], user_id=user["id"], label="contract suite")
    target.tokens["readonly"] = target.mint(
        ["runs:read", "artifacts:read", "secrets:read", "billing:read", "registry:read", "operators:read"],
        user_id=user["id"],
        label="contract suite (read-only)",
    )
    target.tokens["expired"] = target.mint(["full"], user_id=user["id"], expires_at="2000-01-01")
    secret = {
        "name": "OPENROUTER_API_KEY",
        "value": "sk-or-contract-suite",
        "rules": [{"host_pattern": "openrouter.ai", "inject_kind": "bearer", "inject_target": "Authorization"}],
    }
    httpx.post(
        f"{target.base_url}/v1/secrets", json=secret, timeout=10, headers={"Authorization": f"Bearer {target.pat}"}
    )


def resolve(env: dict[str, str] | None = None) -> Target:
    env = dict(os.environ if env is None else env)
    url = (env.get("BW_API_URL") or "").rstrip("/")
    if not url:
        from mock_server.app import create_app

        server = LiveServer(create_app()).__enter__()
        target = Target(_front(server.url, env), "", control=True, server=server)
        _prepare_mock(target)
        return target
    control = has_control_surface(url)
    target = Target(_front(url, env), env.get("BW_PAT", ""), control=control)
    if control and not target.pat:
        _prepare_mock(target)
    elif not target.pat:
        raise SystemExit("BW_API_URL points at a deployment without the mock's control surface: set BW_PAT too.")
    for role, name in (("readonly", "BW_PAT_READONLY"), ("expired", "BW_PAT_EXPIRED")):
        if env.get(name):
            target.tokens[role] = env[name]
    return target


def _front(url: str, env: dict[str, str]) -> str:
    """Differential mode: the oracle's front before the target (docs/differential.md)."""
    from contracts.runner import differential

    credentials = {k: v for k, v in env.items() if k == "BW_PAT" and v}
    return differential.through_front(os.environ.get("HARNESS_CONTRACT_API") or "benchwright", url, credentials)
