"""The Bench platform API profile: `python -m mock_server --api bench` (port 4013)."""

from __future__ import annotations

from typing import Any

from mock_server.engine import Profile
from mock_server.engine.profile import SPEC_ROOT

from . import fixtures
from .auth import BenchAuth
from .control import CONTROL_ROUTES
from .errors import BenchErrors
from .model import context as ctxmodel
from .model import evaluations
from .model.config import Config
from .resources import handlers
from .resources.repositories import advance_scans
from .resources.runtime import SECONDS_PER_TRIAL, advance_jobs, advance_runs
from .resources.traces import advance_checks


def new_store(api: Any):
    return fixtures.seed(Config.from_spec(api.spec), api.clock.now())


def on_request(api: Any) -> None:
    """Bring every simulated process up to the clock (evaluations, summaries, scans, jobs, checks, runtime runs)."""
    store, now = api.store, api.clock.now()
    sim = store.config.simulation
    evaluations.advance(store, now, sim["evaluation_queued_seconds"], sim["evaluation_running_seconds"])
    for system in store.systems.values():
        ctxmodel.advance_summary(system, now, sim["summary_seconds"])
        advance_jobs(system, now, sim["job_seconds"])
        advance_runs(system, now, SECONDS_PER_TRIAL)
    advance_scans(store, now, sim["scan_seconds"])
    advance_checks(store, now, sim["check_seconds"])


def ready(api: Any) -> dict[str, str]:
    """`BENCH_SDK_KEY`: the same account's key in the form the tracing client (`bench_sdk.Bench`) requires."""
    return {
        "BENCH_API_KEY": "bench_dev_key_growth",
        "BENCH_OAUTH_TOKEN": "bench_dev_oauth_growth",
        "BENCH_SDK_KEY": "bench_sk_dev_growth",
    }


PROFILE = Profile(
    name="bench",
    title="Bench platform API",
    spec_dir=SPEC_ROOT / "bench",
    port=4013,
    handlers=handlers,
    errors=BenchErrors(),
    auth=BenchAuth(),
    new_store=new_store,
    control_routes=CONTROL_ROUTES,
    request_id_header="X-Request-Id",
    request_id_prefix="ref_",
    on_request=on_request,
    url_env="BENCH_API_BASE_URL",
    ready_credentials=ready,
)
