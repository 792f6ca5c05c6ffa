"""BenchGen composed: spec, handlers, DRF errors, token auth, seed data, control routes."""

from __future__ import annotations

from typing import Any

from mock_server.engine import Profile
from mock_server.engine.profile import SPEC_ROOT

from . import fixtures
from .auth import BenchgenAuth
from .control import CONTROL_ROUTES
from .errors import BENCHGEN_ERRORS
from .model.state import Store
from .resources import common  # importing the package registers every handler


def new_store(api: Any) -> Store:
    """The seed fixtures, or an empty store when the mock runs without them (`MockConfig.seed`)."""
    return fixtures.seed(api.clock.now()) if api.config.seed else Store()


def advance_runs(api: Any) -> None:
    """Before each request: bring every run in flight up to the simulated clock."""
    api.store.advance(api.clock.now())


def ready(api: Any) -> dict[str, str]:
    return {
        "BENCHGEN_TOKEN": fixtures.DEMO_TOKEN,
        **{name: secret for name, (_, secret, _) in fixtures.ROLE_TOKENS.items()},
    }


PROFILE = Profile(
    name="benchgen",
    title="BenchGen API",
    spec_dir=SPEC_ROOT / "benchgen",
    port=4012,
    handlers=common.handlers,
    errors=BENCHGEN_ERRORS,
    auth=BenchgenAuth(),
    new_store=new_store,
    control_routes=CONTROL_ROUTES,
    request_id_header=None,
    on_request=advance_runs,
    url_env="BENCHGEN_API_URL",
    ready_credentials=ready,
)
