"""The shared runner's pieces as the Bench suite uses them, and the suite's target: the
runner's session (`contracts.runner.session.current`), also when the suite runs under
plain pytest (`pytest contracts/bench/suite`)."""

from __future__ import annotations

from contracts.runner.api import ContractApi
from contracts.runner.claims import Claim, Drift
from contracts.runner.session import Session
from contracts.runner.session import current as runner_current

URL_ENV = "BENCH_API_BASE_URL"
KEY_ENV = "BENCH_API_KEY"
OAUTH_ENV = "BENCH_OAUTH_TOKEN"

__all__ = ["KEY_ENV", "OAUTH_ENV", "URL_ENV", "Claim", "ContractApi", "Drift", "current"]


def current() -> Session:
    return runner_current("bench")
