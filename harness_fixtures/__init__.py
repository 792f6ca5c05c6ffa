"""The harness' mocks as test fixtures, for the test suites of the clients they stand in for.

Installing the distribution registers a pytest plugin (`plugin.py`, entry point `pytest11`)
with one fixture per API: `benchwright_mock`, `benchsdk_mock`, `benchgen_mock`, `bench_mock`.
Each mock is served once per test session over real HTTP on a free loopback port (any HTTP
client works against it) and reset before every test that asks for it. A fixture's value is a
`ServedMock`: the base URL, the ready credentials, and a typed client of the mock's `/__mock`
control surface (`control.py` for what every mock has, one module per API for the rest).

Outside pytest, `serve("benchgen")` is the same served mock as a context manager.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bench import BenchControl
    from .benchgen import BenchgenControl
    from .benchsdk import BenchsdkControl
    from .benchwright import BenchwrightControl
    from .control import ControlError, Fault, MockControl, Token
    from .served import ServedMock, serve

# imported when first used: pytest imports the plugin in every session of an environment that
# has the distribution installed, and a session that asks for no mock should pay nothing for it
EXPORTS = {
    "BenchControl": "bench",
    "BenchgenControl": "benchgen",
    "BenchsdkControl": "benchsdk",
    "BenchwrightControl": "benchwright",
    "ControlError": "control",
    "Fault": "control",
    "MockControl": "control",
    "Token": "control",
    "ServedMock": "served",
    "serve": "served",
}
__all__ = [
    "BenchControl",
    "BenchgenControl",
    "BenchsdkControl",
    "BenchwrightControl",
    "ControlError",
    "Fault",
    "MockControl",
    "ServedMock",
    "Token",
    "serve",
]


def __getattr__(name: str) -> Any:
    if name not in EXPORTS:
        raise AttributeError(name)
    return getattr(import_module(f".{EXPORTS[name]}", __name__), name)
