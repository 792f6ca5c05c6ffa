"""`serve(api)`: one API's mock over real HTTP on a free loopback port, in a thread of this process.

The mock is served as `python -m mock_server --api NAME` serves it (its serve options, the
bounded request heads of `mock_server/server.py`, uvicorn), with two differences a test suite
wants: the port is a free one, and the simulated clock is frozen (`clock_scale=0`), so time moves
only when a test moves it (`control.advance_clock`). Any field of the API's config can be given:
`serve("benchwright", keep_finished_runs=10)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .bench import BenchControl
from .benchgen import BenchgenControl
from .benchsdk import BenchsdkControl
from .benchwright import BenchwrightControl
from .control import MockControl

C = TypeVar("C", bound=MockControl)
CONTROLS: dict[str, type[MockControl]] = {
    "benchwright": BenchwrightControl,
    "benchsdk": BenchsdkControl,
    "benchgen": BenchgenControl,
    "bench": BenchControl,
}


@dataclass(frozen=True)
class ServedMock(Generic[C]):
    """A served mock: `url` (its root; clients append the API's base path where they do, e.g.
    benchsdk's `/api/v1`), `credentials` (the ready ones, by the variable a client reads each from:
    `{"BW_PAT": ...}`), and `control` (its `/__mock` surface, typed)."""

    api: str
    url: str
    url_env: str
    credentials: dict[str, str]
    control: C

    @property
    def credential(self) -> str:
        """The first ready credential (Benchwright's PAT, benchsdk's API key, BenchGen's token, Bench's API key)."""
        return next(iter(self.credentials.values()))

    @property
    def env(self) -> dict[str, str]:
        """The variables a client reads its endpoint and credentials from (`BW_API_URL`, `BW_PAT`, ...)."""
        return {self.url_env: self.url, **self.credentials}

    def reset(self) -> None:
        """The clock, fixtures, faults, keys and windows back to the start, and the journal emptied."""
        self.control.reset()
        self.control.clear_journal()


@contextmanager
def serve(api: str, **config: Any) -> Iterator[ServedMock[Any]]:
    """Serve `api`'s mock until the block ends; `config`: fields of its config class."""
    from contracts.runner.target import LiveServer
    from mock_server.apis import profile
    from mock_server.app import build_app
    from mock_server.engine.api import Api

    chosen = profile(api)
    mock = Api(chosen, chosen.config(**{**chosen.serve_options, "clock_scale": 0.0, **config}))
    with LiveServer(build_app(mock)) as server:
        credentials = dict(chosen.ready_credentials(mock)) if chosen.ready_credentials else {}
        control = CONTROLS.get(api, MockControl)(server.url)
        try:
            yield ServedMock(api, server.url, chosen.url_env, credentials, control)
        finally:
            control.close()
