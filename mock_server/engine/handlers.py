"""One handler registry per API: operationId -> `async def handler(ctx)`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

Handler = Callable[..., Awaitable[Any]]


class Handlers:
    """`handlers = Handlers()`; `@handlers("operationId")` registers a handler.

    A handler receives a `Ctx` and returns a `Reply`, a JSON-able value (200) or a
    Starlette response (streams), and raises `Problem` for documented errors."""

    def __init__(self) -> None:
        self._by_id: dict[str, Handler] = {}

    def __call__(self, operation_id: str) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            if operation_id in self._by_id:
                raise ValueError(f"two handlers for {operation_id}")
            self._by_id[operation_id] = fn
            return fn

        return register

    def get(self, operation_id: str) -> Handler | None:
        return self._by_id.get(operation_id)

    def __contains__(self, operation_id: str) -> bool:
        return operation_id in self._by_id

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)
