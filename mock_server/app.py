"""`create_app()`: one spec-driven Starlette mock per API.

`create_app()` serves Benchwright (the first API, and the default);
`create_app(api="benchsdk")` another registered API (`mock_server/apis.py`).
Each API is its own ASGI app on its own origin: their path prefixes collide
(`/api/...` means something different to each), so they are never mounted
side by side.

Requests for the API's operations go straight to the engine (it renders its
own errors); the control surface (`/__mock/...`) and any extra routes of the
API's profile go through Starlette's router. CORS is answered for every
origin unless `cors=False` (`--no-cors`).
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.routing import BaseRoute

from .apis import DEFAULT_API, profile
from .control import CORE_ROUTES
from .engine.api import Api
from .engine.profile import MockConfig


def _head(path: str) -> str:
    return path.split("/", 2)[1] if path.count("/") >= 1 else ""


class MockApp:
    """The ASGI app: API paths to the engine, control and extra routes to Starlette.
    With `cors`, a request carrying an `Origin` goes through it first (to a copy of
    this app without it); a request without one skips it."""

    def __init__(self, api: Api, starlette: Starlette, cors: dict[str, Any] | None = None) -> None:
        self.api = api
        self.starlette = starlette
        self.state = starlette.state
        engine_heads = {_head(op.template) for op in api.operations}
        route_heads = {_head(getattr(r, "path", "")) for r in starlette.routes}
        self._starlette_only = frozenset(route_heads - engine_heads)
        self._shared = frozenset(route_heads & engine_heads)
        self.cors = CORSMiddleware(MockApp(api, starlette), **cors) if cors is not None else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if self.cors is not None:
                for name, _ in scope["headers"]:
                    if name == b"origin":
                        await self.cors(scope, receive, send)
                        return
            path = scope["path"]
            head = _head(path)
            if head not in self._starlette_only and (head not in self._shared or self.api.router.owns(path)):
                response = await self.api.engine(Request(scope, receive))
                await response(scope, receive, send)
                return
        await self.starlette(scope, receive, send)


def cors_options(expose: list[str]) -> dict[str, Any]:
    """CORS for browser clients on another origin: any origin, credentials allowed, every
    response header the spec declares exposed."""
    return {
        "allow_origin_regex": ".*",
        "allow_methods": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        "allow_headers": ["*"],
        "allow_credentials": True,
        "expose_headers": expose,
        "max_age": 600,
    }


def _response_headers(spec: dict[str, Any]) -> list[str]:
    names: set[str] = set()
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                for response in (operation.get("responses") or {}).values():
                    names.update((response.get("headers") or {}) if isinstance(response, dict) else ())
    return sorted(names)


def build_app(api: Api) -> MockApp:
    routes: list[BaseRoute] = list(api.profile.extra_routes)
    if api.config.control:
        routes.extend(CORE_ROUTES)
        routes.extend(api.profile.control_routes)
    starlette = Starlette(routes=routes)
    starlette.state.api = api
    starlette.state.mock = api  # the name earlier releases used
    return MockApp(api, starlette, cors_options(_response_headers(api.spec)) if api.config.cors else None)


def create_app(config: MockConfig | None = None, *, api: str = DEFAULT_API, **overrides: Any) -> MockApp:
    """The mock of one registered API. `overrides` are fields of its config class."""
    chosen = profile(api)
    config = config or chosen.config(**overrides)
    return build_app(Api(chosen, config))


def __getattr__(name: str) -> Any:
    """`mock_server.app.MockConfig`: Benchwright's config class (the default API's)."""
    if name == "MockConfig":
        return profile(DEFAULT_API).config
    raise AttributeError(name)
