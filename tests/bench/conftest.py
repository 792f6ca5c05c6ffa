"""Fixtures for the Bench tests: the app in-process (the real client's tests use the plugin's `bench_mock`)."""

from __future__ import annotations

from typing import ClassVar

import httpx
import pytest
from starlette.testclient import TestClient

from mock_server.app import build_app
from mock_server.bench.profile import PROFILE
from mock_server.engine import Api, MockConfig
from mock_server.engine.compile import Compiler

KEY = "bench_dev_key_growth"
OAUTH = "bench_dev_oauth_growth"


def make_app(api: Api | None = None):
    return build_app(api or Api(PROFILE, MockConfig()))


COMPILER: dict = {}  # one schema compiler for the (unchanging) spec
ENGINE_CODES = {"invalid_argument", "payload_too_large", "unsupported_media_type", "not_found", "method_not_allowed"}


class CheckedClient(TestClient):
    """A test client that holds every API response to the spec: a declared status, a documented error code in
    the error envelope (with a reference), and a 2xx JSON body that validates against the declared schema."""

    validators: ClassVar[dict] = {}  # compiled response validators, shared (the spec is the same for every client)

    def __init__(self, api: Api) -> None:
        super().__init__(make_app(api))
        self.bench_api = api
        if "compiler" not in COMPILER:
            COMPILER["compiler"] = Compiler(api.spec)
        self.compiler = COMPILER["compiler"]

    def request(self, method, url, *args, **kwargs):  # type: ignore[override]
        response = super().request(method, url, *args, **kwargs)
        path = httpx.URL(str(url)).path
        if not path.startswith("/__mock"):
            op, _, _ = self.bench_api.router.match(method.upper(), path)
            self.check(op, response)
        return response

    def check(self, op, response) -> None:
        status = str(response.status_code)
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            error = response.json()["error"]
            assert error["reference"] and error["message"], error
            declared = {c for codes in (op.raw["x-errors"].values() if op else []) for c in codes}
            assert error["code"] in declared | ENGINE_CODES, (op and op.operation_id, error["code"])
            return
        assert op is not None and status in op.raw["responses"], (op and op.operation_id, status)
        content = op.raw["responses"][status].get("content", {})
        if "application/json" in content:
            key = (op.operation_id, status)
            if key not in self.validators:
                self.validators[key] = self.compiler.validator(content["application/json"]["schema"])
            problems = [e.message for e in self.validators[key].iter_errors(response.json())]
            assert not problems, (op.operation_id, problems[:3])


@pytest.fixture(scope="module")
def module_api() -> Api:
    return Api(PROFILE, MockConfig())


@pytest.fixture
def client(module_api: Api) -> CheckedClient:
    """The mock reset to its fixtures for each test, driven in-process, every response checked against the spec."""
    module_api.reset()
    return CheckedClient(module_api)


def auth(token: str = KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
