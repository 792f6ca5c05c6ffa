"""Fixtures for driving the BenchGen app in-process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mock_server.app import create_app
from mock_server.benchgen import fixtures


class Bench:
    """A test client plus the control-surface moves the tests need."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    @property
    def api(self) -> Any:
        return self.client.app.state.api

    @property
    def store(self) -> Any:
        return self.api.store

    def auth(self, token: str = fixtures.DEMO_TOKEN) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def user(self, credits: int = 100) -> int:
        response = self.client.post("/__mock/users", json={"credits": credits})
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def token(self, scopes: list[str] | None = None, user_id: int | None = None) -> tuple[int, str]:
        body: dict[str, Any] = {"scopes": ["benchmark:read", "benchmark:run"] if scopes is None else scopes}
        if user_id is not None:
            body["user_id"] = user_id
        response = self.client.post("/__mock/tokens", json=body)
        assert response.status_code == 201, response.text
        return response.json()["id"], response.json()["token"]

    def advance(self, seconds: float) -> None:
        response = self.client.post("/__mock/clock", json={"advance_seconds": seconds})
        assert response.status_code == 200, response.text

    def join(self, competition_id: int, token: str = fixtures.DEMO_TOKEN) -> Any:
        return self.client.post(f"/api/competitions/{competition_id}/register/", headers=self.auth(token))

    def queue(self, body: dict[str, Any], token: str = fixtures.DEMO_TOKEN) -> Any:
        return self.client.post("/models/api/queue_benchmark_run", json=body, headers=self.auth(token))

    def status(self, submission_id: int, token: str = fixtures.DEMO_TOKEN) -> Any:
        return self.client.get(f"/api/submissions/{submission_id}/run_status/", headers=self.auth(token))

    def items(self, submission_id: int, token: str = fixtures.DEMO_TOKEN, **query: Any) -> Any:
        return self.client.get(
            f"/api/submissions/{submission_id}/item_results/", headers=self.auth(token), params=query
        )

    def poll_until_done(self, submission_id: int, token: str = fixtures.DEMO_TOKEN, limit: int = 100) -> dict:
        """Poll as the reference asks: wait check_again_seconds (simulated) between polls."""
        for _ in range(limit):
            response = self.status(submission_id, token)
            assert response.status_code == 200, response.text
            body = response.json()
            if body["done"]:
                return body
            self.advance(body["check_again_seconds"])
        raise AssertionError("the run never finished")


@pytest.fixture
def bench() -> Iterator[Bench]:
    with TestClient(create_app(api="benchgen")) as client:
        yield Bench(client)
