"""BenchGen's handlers, one module per part of the reference. Importing this package registers them."""

from . import competitions, models, runs

__all__ = ["competitions", "models", "runs"]
