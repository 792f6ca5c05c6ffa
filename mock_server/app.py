"""`create_app()`: the spec-driven Starlette mock.

Everything is built once here: the bundled spec, the compiled operation index,
the rate limiter's tier table, the handler registry and the seeded store. The
state lives on the `Mock` object (not in Starlette's lifespan), so any number of
test clients can share one app.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import resources
from .engine import Engine
from .http.auth import authenticate
from .http.problems import Problem
from .http.ratelimit import RateLimiter
from .operations import Router, compile_operations
from .pipeline import advance_all
from .spec import SPEC_DIR, load_bundle
from .state.clock import SimClock
from .state.store import Store


@dataclass
class MockConfig:
    control: bool = True  # the /__mock surface; off for a shared machine
    clock_scale: float = 0.0  # simulated seconds per real second (0: only /__mock/clock moves time)
    sse_ping_seconds: float = 20.0  # §5.2 keep-alive
    operator_ping_seconds: float = 15.0  # §12a keep-alive
    seed: bool = True
    spec_dir: Path = SPEC_DIR
    # compute backends with credentials on this deploy (§4.2.5 e2b_not_configured / compute_not_configured)
    compute_backends: tuple[str, ...] = ("sandbox0", "e2b")


def _load_resource_modules() -> None:
    for info in pkgutil.iter_modules(resources.__path__):
        importlib.import_module(f"{resources.__name__}.{info.name}")


class Mock:
    """The mock's state and configuration, shared by every request."""

    def __init__(self, config: MockConfig) -> None:
        self.config = config
        self.spec = load_bundle(config.spec_dir)
        self.spec_json = orjson.dumps(self.spec)
        self.operations = compile_operations(self.spec)
        self.router = Router(self.operations)
        tiers = self.spec["x-tiers"]
        self.tiers: dict[str, dict[str, int]] = tiers["tiers"]
        _load_resource_modules()
        self.engine = Engine(self, self.router, resources.HANDLERS, RateLimiter(self.tiers, tiers["window_seconds"]))
        self.clock = SimClock(scale=config.clock_scale)
        self.store = self._fresh_store()

    def _fresh_store(self) -> Store:
        store = self.store = Store(clock=self.clock)
        if self.config.seed:
            from .state.seed import seed

            seed(store, self)
        else:
            store.default_user_id = store.add_user("dev@example.test").id
        return store

    def reset(self) -> None:
        self.engine.idempotency.entries.clear()
        self.engine.limiter.windows.clear()
        self.engine.faults.clear()
        self.store = self._fresh_store()
        self.clock.notify()

    def sync(self) -> None:
        """Bring simulated processes (run pipelines) up to the clock."""
        advance_all(self)

    @property
    def all_scopes(self) -> list[str]:
        return list(self.spec["components"]["schemas"]["Scope"]["enum"])


def create_app(config: MockConfig | None = None, **overrides: Any) -> MockApp:
    config = config or MockConfig(**overrides)
    mock = Mock(config)

    async def v1(scope, receive, send) -> None:
        response = await mock.engine(Request(scope, receive))
        await response(scope, receive, send)

    async def api_surface(request: Request) -> Response:
        """`/api` is the web app's surface: it refuses PATs with 401 (§2.0)."""
        try:
            principal = authenticate(mock.store, request.headers.get("authorization"), None)
        except Problem as problem:
            return problem.response("req_api")
        if principal.kind == "pat":
            return Problem(
                401, "auth_required", "/api expects a browser session; programs use the /v1 equivalent."
            ).response("req_api")
        return Problem(404, "not_found", "The /api surface is not part of this mock; use /v1.").response("req_api")

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    routes = [
        Route("/api/{rest:path}", api_surface, methods=methods),
    ]
    if config.control:
        from .control import control_routes

        routes.extend(control_routes(mock))
    app = Starlette(routes=routes)
    app.state.mock = mock
    return MockApp(app, v1)


class MockApp:
    """The ASGI app: `/v1` goes straight to the engine (it handles its own
    errors), everything else through Starlette's router and middleware."""

    def __init__(self, starlette: Starlette, v1: Any) -> None:
        self.starlette = starlette
        self.state = starlette.state
        self._v1 = v1

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            await self._v1(scope, receive, send)
        else:
            await self.starlette(scope, receive, send)
