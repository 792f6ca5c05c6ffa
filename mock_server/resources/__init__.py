"""Resource handlers, one module per reference section.

A handler is registered under the spec's `operationId` and receives a `Ctx`
(see `mock_server.engine`). It returns a `Reply`, a JSON-able value (200), or a
Starlette response (streams), and raises `Problem` for documented errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

HANDLERS: dict[str, Callable[..., Awaitable[Any]]] = {}


def handler(operation_id: str):
    def register(fn):
        if operation_id in HANDLERS:
            raise ValueError(f"two handlers for {operation_id}")
        HANDLERS[operation_id] = fn
        return fn

    return register
