"""Helpers shared by the semantic checks: raising a `Drift` that names its claim
and carries a curl line, and preparing state on mock targets."""

from __future__ import annotations

from typing import Any

import httpx

from contracts.benchwright.claims import Drift
from contracts.runner import unique
from contracts.runner.http import curl

SEEDED_PUBLIC_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"
LAUNCH = {
    "request": "Run MMLU Abstract Algebra via OpenRouter",
    "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"},
}


def expect(
    condition: bool,
    claim: str,
    operation: str,
    detail: str,
    response: httpx.Response | None = None,
    reproduce: str = "",
) -> None:
    if not condition:
        raise Drift(claim, operation, detail, curl(response.request) if response is not None else reproduce)


def body_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def code_of(response: httpx.Response) -> str | None:
    body = body_of(response)
    return body.get("code") if isinstance(body, dict) else None


def session_only(operation: dict[str, Any]) -> bool:
    return all(set(alt) == {"session"} for alt in operation["security"])


def case_headers(case, operation: dict[str, Any], target, session_cookie: dict[str, str] | None) -> dict[str, str]:
    """Credentials for a schemathesis case: the suite's PAT, or for session-only
    operations the browser session, put where the case keeps its `bw_session`
    cookie. A negative case that leaves the cookie out on purpose keeps it out."""
    if not session_only(operation):
        return {"Authorization": f"Bearer {target.credential}"}
    for cookie, value in (session_cookie or {}).items():
        if cookie in (case.cookies or {}):
            case.cookies[cookie] = value
    return {}


def cookie_header(cookies: dict[str, str]) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{name}={value}" for name, value in cookies.items())}


def random_uuid() -> str:
    return unique.uuid()


def launch_run(client, **extra: Any) -> str:
    response = client.post("/v1/runs", json={**LAUNCH, **extra})
    expect(
        response.status_code == 202,
        "spec.status",
        "POST /v1/runs",
        f"launch answered {response.status_code}: {response.text[:200]}",
        response,
    )
    return response.json()["id"]


def advance(target, seconds: float) -> None:
    target.control_post("/clock", {"advance_seconds": seconds}).raise_for_status()


def finished_run(client, target) -> str | None:
    """A finished run the caller can read: one of theirs on live targets, a fresh one on the mock."""
    if target.control:
        run_id = launch_run(client)
        advance(target, 600)
        return run_id
    response = client.get("/v1/runs", params={"status": "ok", "limit": 1})
    rows = (body_of(response) or {}).get("data") or []
    return rows[0]["id"] if rows else None


def new_session(target) -> dict[str, str]:
    """A fresh browser session of the suite's user (mock targets: the control surface mints it)."""
    body = target.control_post("/sessions", {"user_id": target.tokens.get("user_id")}).json()
    return {body["cookie_name"]: body["cookie"]}


def token_id(client, token: str) -> str:
    """The id of `token`, read from the list it can see (its prefix and last 4)."""
    rows = client.with_token(token).get("/v1/tokens").json()["data"]
    return next(row["id"] for row in rows if token.endswith(row["last4"]) and token.startswith(row["prefix"]))


def example_of(operation: dict[str, Any]) -> Any:
    """The request body the spec gives as the operation's example (the first of `examples`)."""
    content = (operation.get("requestBody") or {}).get("content", {}).get("application/json") or {}
    if "example" in content:
        return content["example"]
    for example in (content.get("examples") or {}).values():
        if isinstance(example, dict) and "value" in example:
            return example["value"]
    return None
