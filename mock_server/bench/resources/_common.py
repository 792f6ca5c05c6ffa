"""What every Bench handler shares: the registry, the caller, refusals, lookups, pages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mock_server.engine import Ctx, Handlers
from mock_server.policies.text import BLANKS

from ..model import accounts
from ..model.config import Config
from ..model.errors import Refusal
from ..model.paging import bounded, page, parse_int
from ..store import AiSystem, Store

handlers = Handlers()


def op(operation_id: str) -> Callable[[Callable[[Ctx], Awaitable[Any]]], Callable[[Ctx], Awaitable[Any]]]:
    """Register a handler (a domain `Refusal` it lets through is rendered by the engine)."""
    return handlers(operation_id)


def store(ctx: Ctx) -> Store:
    return ctx.store


def cfg(ctx: Ctx) -> Config:
    return ctx.store.config


def caller(ctx: Ctx) -> accounts.Caller:
    """The authenticated caller (the auth step has already refused anonymous calls to non-public operations)."""
    st = store(ctx)
    cred = st.credentials[ctx.principal.credential_id]
    account = st.accounts[cred.account_id]
    return accounts.Caller(cred, account, st.users[cred.user_id])


def tenant(ctx: Ctx) -> str:
    return accounts.tenant_of(store(ctx), caller(ctx))


def now(ctx: Ctx):
    return ctx.clock.now()


def origin(ctx: Ctx) -> str:
    url = ctx.request.url
    return f"{url.scheme}://{url.netloc}"


def trimmed(value: Any) -> str:
    """A text member without the blanks around it ("" when absent)."""
    return value.strip(BLANKS) if isinstance(value, str) else ""


def body(ctx: Ctx) -> dict[str, Any]:
    return ctx.body if isinstance(ctx.body, dict) else {}


def int_id(raw: Any, code: str, what: str) -> int:
    """Path ids are strings that parse as integers (C-24)."""
    try:
        return int(str(raw))
    except ValueError:
        raise Refusal(404, code, f"{what} {raw} was not found.") from None


def system(ctx: Ctx, key: str = "id") -> AiSystem:
    sid = int_id(ctx.path[key], "system_not_found", "AI system")
    found = store(ctx).systems.get(sid)
    if found is None or found.tenant != tenant(ctx):
        raise Refusal(404, "system_not_found", f"AI system {ctx.path[key]} was not found.")
    return found


def component(sys: AiSystem, raw: Any) -> Any:
    cid = int_id(raw, "component_not_found", "Component")
    if cid not in sys.components:
        raise Refusal(404, "component_not_found", f"Component {raw} is not part of system {sys.id}.")
    return sys.components[cid]


def paged(ctx: Ctx, items: list[dict[str, Any]]) -> dict[str, Any]:
    """`{items, next_offset, total}` from the `offset`/`limit` query values (strings in the catalog). Only
    the parameters the operation declares are read (`ctx.query`): elsewhere a page has the default size."""
    p = cfg(ctx).page
    offset = parse_int(ctx.query.get("offset"), "offset", 0)
    limit = min(parse_int(ctx.query.get("limit"), "limit", p["default_limit"], minimum=1), p["max_limit"])
    return page(items, offset, limit, p["max_bytes"])


def unpaged(ctx: Ctx, items: list[dict[str, Any]]) -> dict[str, Any]:
    p = cfg(ctx).page
    got, cut = bounded(items, p["max_unpaged"], p["max_bytes"])
    return {"items": got, "truncated": cut}


def spec_op(ctx: Ctx) -> dict[str, Any]:
    return ctx.op.raw


def flag(ctx: Ctx, name: str) -> bool:
    """A boolean query value sent as text (`true`/`false`, as the clients send booleans)."""
    return str(ctx.raw_query.get(name, "")).lower() in ("true", "1", "yes")
