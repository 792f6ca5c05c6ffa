"""The BenchGen contract suite: claims B-01…B-53, the conventions check of one response, the
reference's curl walkthrough, and a state machine over token → join → run → poll → results (`suite/`)."""

from pathlib import Path

from contracts.runner.api import ContractApi

from .claims import CLAIMS

CONTRACT = ContractApi(
    name="benchgen",
    suite=Path(__file__).parent / "suite",
    url_env="BENCHGEN_API_URL",
    credential_envs=("BENCHGEN_TOKEN",),
    credentials={"token": "BENCHGEN_TOKEN"},
    # narrower tokens a deployment's operator gives (the API mints none: B-42), for the scope checks
    role_envs={"read": "BENCHGEN_TOKEN_READ", "run": "BENCHGEN_TOKEN_RUN", "noscope": "BENCHGEN_TOKEN_NOSCOPE"},
    claims=CLAIMS,
    redactions=((r"bgn_[A-Za-z0-9_]+", "bgn_[redacted]"), (r"sk-contract-[A-Za-z0-9-]+", "sk-[redacted]")),
)

from .crawl import CRAWL  # noqa: E402  (the crawl's hooks, read by `contracts.runner.crawl`)

__all__ = ["CONTRACT", "CRAWL"]
