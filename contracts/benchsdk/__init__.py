"""The benchsdk Benchmarks Platform contract suite: claims A-01…A-102, the conventions check of
one response, and hypothesis state machines of whole `bench run`s (`suite/`)."""

from pathlib import Path

from ._runner import ContractApi
from .claims import CLAIMS

CONTRACT = ContractApi(
    name="benchsdk",
    suite=Path(__file__).parent / "suite",
    url_env="BENCHMARKS_PLATFORM_URL",
    credential_envs=("BENCHMARKS_PLATFORM_API_KEY",),
    credentials={"apiKey": "BENCHMARKS_PLATFORM_API_KEY"},
    claims=CLAIMS,
    redactions=((r"\bbpo?_[A-Za-z0-9_]+", "bp_<redacted>"),),
)

from .crawl import CRAWL  # noqa: E402  (the crawl's hooks, read by `contracts.runner.crawl`)

__all__ = ["CONTRACT", "CRAWL"]
