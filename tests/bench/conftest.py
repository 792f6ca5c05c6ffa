"""Fixtures for the Bench tests: the app in-process, and a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import ClassVar

import httpx
import pytest
import uvicorn
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


class Server:
    def __init__(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(make_app(), host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def control(self, method: str, path: str, body: dict | None = None) -> httpx.Response:
        return httpx.request(method, self.url + path, json=body, timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server()
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def live(server: Server) -> Server:
    """The module's server, reset to its fixtures before each test."""
    assert server.control("POST", "/__mock/reset").status_code == 204
    return server
