"""The `slow` marker of the drift catalogues (the whole catalogue through the differential engine runs
only with `-m slow` or `HARNESS_DRIFT_SLOW=1`)."""

from tests.drift.conftest import pytest_collection_modifyitems, pytest_configure  # noqa: F401
