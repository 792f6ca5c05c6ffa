"""Shared fixtures. Every response a test sees through `api` is validated against
the spec (status documented, content type, required headers, body schema), so
the mock cannot drift from its own spec unnoticed."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from contracts.runner.target import LiveServer
from contracts.runner.validation import default_validator
from mock_server.app import create_app


class SpecCheckedClient:
    """A TestClient whose every /v1 response must conform to the spec."""

    def __init__(self, app: Any, headers: dict[str, str] | None = None, check: bool = True) -> None:
        self.app = app
        self.mock = app.state.mock
        self.http = TestClient(app, raise_server_exceptions=True)
        self.headers = headers or {}
        self.check = check

    def request(self, method: str, url: str, *, headers: dict[str, str] | None = None, **kw: Any):
        merged = {**self.headers, **(headers or {})}
        response = self.http.request(method, url, headers=merged, **kw)
        if self.check and url.startswith("/v1/"):
            path = url.split("?", 1)[0]
            findings = default_validator().check(
                method, path, response.status_code, dict(response.headers), response.content
            )
            assert not findings, "response does not conform to the spec:\n" + "\n".join(map(str, findings))
        return response

    def get(self, url: str, **kw: Any):
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any):
        return self.request("POST", url, **kw)

    def patch(self, url: str, **kw: Any):
        return self.request("PATCH", url, **kw)

    def put(self, url: str, **kw: Any):
        return self.request("PUT", url, **kw)

    def delete(self, url: str, **kw: Any):
        return self.request("DELETE", url, **kw)

    # -- control surface helpers ---------------------------------------
    def token(self, scopes: list[str] | None = None, **body: Any) -> str:
        response = self.http.post("/__mock/tokens", json={"scopes": scopes or ["full"], **body})
        assert response.status_code == 201, response.text
        return response.json()["token"]

    def as_token(self, scopes: list[str] | None = None, **body: Any) -> SpecCheckedClient:
        return self.with_headers({"Authorization": f"Bearer {self.token(scopes, **body)}"})

    def as_session(self, user_id: str | None = None) -> SpecCheckedClient:
        response = self.http.post("/__mock/sessions", json={"user_id": user_id} if user_id else {})
        assert response.status_code == 201, response.text
        other = SpecCheckedClient(self.app, dict(self.headers), self.check)
        other.http.cookies.set(response.json()["cookie_name"], response.json()["cookie"])
        other.headers.pop("Authorization", None)
        return other

    def anonymous(self) -> SpecCheckedClient:
        return SpecCheckedClient(self.app, {}, self.check)

    def with_headers(self, headers: dict[str, str]) -> SpecCheckedClient:
        return SpecCheckedClient(self.app, {**self.headers, **headers}, self.check)

    def user(self, **body: Any) -> dict[str, Any]:
        response = self.http.post("/__mock/users", json=body)
        assert response.status_code == 201, response.text
        return response.json()

    def advance(self, seconds: float) -> str:
        response = self.http.post("/__mock/clock", json={"advance_seconds": seconds})
        assert response.status_code == 200, response.text
        return response.json()["now"]


@pytest.fixture
def app():
    return create_app()


@pytest.fixture
def anon(app) -> SpecCheckedClient:
    return SpecCheckedClient(app)


@pytest.fixture
def api(anon) -> SpecCheckedClient:
    """A client holding a full-scope PAT of the default seeded user."""
    return anon.as_token(["full"])


@pytest.fixture
def live(app):
    """A real HTTP server over TCP; stopped by the test itself."""
    with LiveServer(app) as server:
        yield server
