"""The benchsdk handlers, one module per reference section. Importing this package registers
every handler on `common.handlers`."""

from . import artifacts, benchmarks, events, participants, results, runs, workers
from .common import handlers

__all__ = ["artifacts", "benchmarks", "events", "handlers", "participants", "results", "runs", "workers"]
