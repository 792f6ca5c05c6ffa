"""What every BenchGen handler shares: the registry, domain refusals as problems, DRF pages."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlencode

from mock_server.engine import Ctx, Handlers, Problem

from ..auth import TokenPrincipal
from ..model.errors import DomainError

handlers = Handlers()


@contextlib.contextmanager
def domain() -> Iterator[None]:
    """Render a domain refusal in the API's error format."""
    try:
        yield
    except DomainError as exc:
        headers = {"Retry-After": str(exc.fields["wait"])} if exc.code == "throttled" else None
        raise Problem(exc.status, exc.code, exc.message, headers=headers, **exc.fields) from None


def caller(ctx: Ctx) -> TokenPrincipal:
    """The token holder; auth has already refused anonymous callers on these operations."""
    principal = ctx.principal
    assert isinstance(principal, TokenPrincipal)
    return principal


def path_id(ctx: Ctx, name: str) -> int:
    """An integer path id, typed and validated by the engine (`format: int64`, minimum 1)."""
    return ctx.path[name]


def clamped(ctx: Ctx, name: str) -> int:
    """A query value inside its spec `x-clamp` (the engine applies default, minimum and maximum)."""
    return ctx.query[name]


def drf_page(ctx: Ctx, rows: Sequence[Any]) -> tuple[list[Any], dict[str, Any]]:
    """DRF page-number pagination: the page's rows and the envelope without `results`.

    A page past the last is 404 "Invalid page.", as DRF answers it; page 1 of nothing is empty.
    """
    size = clamped(ctx, "page_size")
    number = ctx.query["page"]
    pages = max(1, math.ceil(len(rows) / size))
    if number > pages:
        raise Problem(404, "not_found", "Invalid page.")
    start = (number - 1) * size
    chunk = list(rows[start : start + size])

    def link(to: int) -> str | None:
        if to < 1 or to > pages:
            return None
        query = {**ctx.raw_query, "page": str(to)}
        return str(ctx.request.url.replace(query=urlencode(query)))

    return chunk, {"count": len(rows), "next": link(number + 1), "previous": link(number - 1)}
