"""The shared runner's pieces as the benchsdk suite uses them, and the suite's target:
the runner's session (`contracts.runner.session.current`), also when the suite runs
under plain pytest (`pytest contracts/benchsdk/suite`)."""

from __future__ import annotations

from contracts.runner.api import ContractApi
from contracts.runner.claims import Claim, Drift
from contracts.runner.session import Session, current

URL_ENV = "BENCHMARKS_PLATFORM_URL"
KEY_ENV = "BENCHMARKS_PLATFORM_API_KEY"

__all__ = ["KEY_ENV", "URL_ENV", "Claim", "ContractApi", "Drift", "target"]


def target() -> Session:
    return current("benchsdk")
