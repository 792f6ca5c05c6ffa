"""Fixtures of the benchsdk app-level tests: a fresh mock per test, a client speaking like
@benchsdk/api, and a way to move the simulated clock."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("tests.benchsdk.client_types", "tests.benchsdk.sequence_reads")

from starlette.testclient import TestClient  # noqa: E402

from .client import Platform, make_app  # noqa: E402


@pytest.fixture
def app():
    return make_app()


@pytest.fixture
def client(app):
    return TestClient(app)


@pytest.fixture
def platform(client):
    return Platform(client)


@pytest.fixture
def advance(client):
    def move(seconds: float) -> None:
        response = client.post("/__mock/clock", json={"advance_seconds": seconds})
        assert response.status_code == 200, response.text

    return move
