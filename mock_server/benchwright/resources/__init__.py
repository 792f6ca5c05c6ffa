"""Resource handlers, one module per reference section.

A handler is registered under the spec's `operationId` in Benchwright's registry
and receives a `Ctx` (see `mock_server.engine`). It returns a `Reply`, a JSON-able
value (200), or a Starlette response (streams), and raises `Problem` for
documented errors.
"""

from __future__ import annotations

import importlib
import pkgutil

from mock_server.engine import Handlers

HANDLERS = Handlers()
handler = HANDLERS


def load_all() -> None:
    """Import every resource module, so each registers its handlers."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
