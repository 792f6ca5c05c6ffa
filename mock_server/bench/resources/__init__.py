"""Bench handlers, one module per area of the spec (`spec/bench/paths/<area>.yaml`)."""

from . import (  # noqa: F401 - importing registers the handlers
    billing,
    context,
    datasets,
    evaluations,
    github,
    keys,
    login,
    meta,
    repositories,
    runtime,
    systems,
    traces,
    workspace,
)
from ._common import handlers

__all__ = ["handlers"]
