"""What every benchsdk handler shares: the registry, the model-refusal bridge, the lookups
down the benchmark → run → participant → worker tree, and listing rules read from the spec."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mock_server.engine import Ctx, Handlers

from ..auth import OrgPrincipal
from ..model import catalog, workers
from ..model.rows import Benchmark, Org, Participant, Run, Worker
from ..model.store import Store
from ..model.timefmt import Window

handlers = Handlers()

Handler = Callable[[Ctx], Awaitable[Any]]


def operation(operation_id: str) -> Callable[[Handler], Handler]:
    """Register a handler (a model `Refusal` it lets through is rendered by the engine)."""
    return handlers(operation_id)


def store(ctx: Ctx) -> Store:
    return ctx.store


def org(ctx: Ctx) -> Org:
    principal = ctx.principal
    assert isinstance(principal, OrgPrincipal)  # authorize() admits no other caller
    return ctx.store.orgs[principal.org_id]


def benchmark(ctx: Ctx) -> Benchmark:
    return catalog.require_benchmark(ctx.store, ctx.path["slug"])


def run(ctx: Ctx, *, write: bool = False) -> tuple[Benchmark, Run]:
    bench = benchmark(ctx)
    return bench, catalog.require_run(ctx.store, org(ctx), bench, ctx.path["runId"], write=write)


def participant(ctx: Ctx, *, write: bool = False) -> tuple[Run, Participant]:
    _, r = run(ctx, write=write)
    return r, catalog.require_participant(ctx.store, r, ctx.path["participantSlug"])


def worker(ctx: Ctx, *, write: bool = False) -> tuple[Run, Worker]:
    _, r = run(ctx, write=write)
    return r, workers.require_worker(ctx.store, r, ctx.path["workerId"])


def limits(ctx: Ctx) -> dict[str, Any]:
    return ctx.op.raw["x-limits"]


def base_url(ctx: Ctx) -> str:
    """The root the request reached (presigned URLs are absolute, on the same process)."""
    return str(ctx.request.base_url).rstrip("/")


def window(ctx: Ctx) -> Window:
    return Window(ctx.query.get("since"), ctx.query.get("until"), ctx.query.get("timeZone"))


def listing(ctx: Ctx, rows: list) -> list:
    """limit/offset, with the operation's `x-filtered-default` (A-95)."""
    rule = ctx.op.raw.get("x-filtered-default")
    filtered = bool(rule) and any(ctx.query.get(name) not in (None, []) for name in rule["filters"])
    return catalog.page(
        rows,
        limit=ctx.query.get("limit"),
        offset=ctx.query.get("offset") or 0,
        filtered=filtered,
        filtered_default=int(rule["limit"]) if rule else 0,
    )


def now(ctx: Ctx):
    return ctx.clock.now()
