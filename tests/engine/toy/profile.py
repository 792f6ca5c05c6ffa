"""The toy API's package in one module: typed state, auth, handlers, control, profile.

It exists to prove that a new API is a folder: nothing here is special-cased in
the engine or the contract runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from mock_server.control import api_of, json_response, route
from mock_server.engine import ANONYMOUS, Api, Ctx, Handlers, Principal, Problem, Profile, Reply
from mock_server.engine.compile import Operation
from mock_server.policies.errors import ErrorEnvelope
from mock_server.policies.pagination import limit_offset
from mock_server.policies.streaming import ndjson_response

SEED_KEY = "toy-key-0001"


@dataclass(slots=True, kw_only=True)
class Widget:
    id: str
    name: str
    client_key: str | None
    size: int


@dataclass
class Store:
    keys: set[str] = field(default_factory=lambda: {SEED_KEY})
    widgets: dict[str, Widget] = field(default_factory=dict)
    by_client_key: dict[str, str] = field(default_factory=dict)
    next_id: int = 1


class KeyAuth:
    def authenticate(self, request: Request, api: Api) -> Principal:
        key = request.headers.get("x-api-key")
        if key is None:
            return ANONYMOUS
        if key not in api.store.keys:
            raise Problem(401, "unauthenticated", "Unknown API key.")
        return Principal(kind="api_key", subject=key, credential_id=key)

    def authorize(self, op: Operation, principal: Principal, api: Api) -> None:
        if op.security.anonymous or principal.authenticated:
            return
        raise Problem(401, "unauthenticated", "Send X-Api-Key.")


handlers = Handlers()


def _widget(store: Store, widget_id: str) -> Widget:
    widget = store.widgets.get(widget_id)
    if widget is None:
        raise Problem(404, "not_found", f"No widget {widget_id}.")
    return widget


def _json(widget: Widget) -> dict:
    return {"id": widget.id, "name": widget.name, "client_key": widget.client_key, "size": widget.size}


@handlers("listWidgets")
async def list_widgets(ctx: Ctx) -> dict:
    rows = list(ctx.store.widgets.values())
    return {
        "items": [_json(w) for w in limit_offset(rows, ctx.query["limit"], ctx.query["offset"])],
        "total": len(rows),
    }


@handlers("createWidget")
async def create_widget(ctx: Ctx) -> Reply:
    store: Store = ctx.store
    key = ctx.body.get("client_key")
    if key is not None and key in store.by_client_key:
        return Reply(_json(store.widgets[store.by_client_key[key]]), 200)
    widget = Widget(id=f"w_{store.next_id}", name=ctx.body["name"], client_key=key, size=ctx.body.get("size", 3))
    store.next_id += 1
    store.widgets[widget.id] = widget
    if key is not None:
        store.by_client_key[key] = widget.id
    return Reply(_json(widget), 201)


@handlers("getWidget")
async def get_widget(ctx: Ctx) -> dict:
    return _json(_widget(ctx.store, ctx.path["id"]))


@handlers("deleteWidget")
async def delete_widget(ctx: Ctx) -> Reply:
    widget = _widget(ctx.store, ctx.path["id"])
    del ctx.store.widgets[widget.id]
    ctx.store.by_client_key.pop(widget.client_key or "", None)
    return Reply(status=204)


@handlers("widgetEvents")
async def widget_events(ctx: Ctx) -> Response:
    widget = _widget(ctx.store, ctx.path["id"])

    async def events():
        for n in range(min(widget.size, 1000)):
            yield {"type": "tick", "n": n}
        yield {"type": "error", "code": "exhausted", "message": "no more ticks"}

    return ndjson_response(events())


async def mint_key(request: Request) -> Response:
    api = api_of(request)
    key = f"toy-key-{len(api.store.keys) + 1:04d}"
    api.store.keys.add(key)
    return json_response({"key": key}, 201)


def new_store(api: Api) -> Store:
    return Store()


PROFILE = Profile(
    name="toy",
    title="Toy widgets API",
    spec_dir=Path(__file__).parent / "spec",
    port=4099,
    handlers=handlers,
    errors=ErrorEnvelope(rename={"invalid_argument": "invalid_argument"}),
    auth=KeyAuth(),
    new_store=new_store,
    control_routes=[route("/__mock/keys", mint_key, "POST")],
    url_env="TOY_API_URL",
    ready_credentials=lambda api: {"TOY_API_KEY": SEED_KEY},
)
