"""The Benchwright contract suite: its claims (`claims.py`), the conventions check of
every response (`conventions.py`, `checks.py`) and the checks in `suite/`."""

from pathlib import Path

from contracts.runner.api import ContractApi

from .claims import CLAIMS
from .oracle_account import align
from .plan import plan
from .prepare import ROLE_ENVS, prepare

CONTRACT = ContractApi(
    name="benchwright",
    suite=Path(__file__).parent / "suite",
    url_env="BW_API_URL",
    credential_envs=("BW_PAT",),
    claims=CLAIMS,
    redactions=((r"bw_live_pat_[0-9a-f]+", "$BW_PAT"), (r"(bw_session=)[^;'\"\s]+", r"\1[redacted]")),
    plan=plan,
    conformance=False,  # its own conformance tests send the session cookie and its conventions check
    prepare=prepare,
    role_envs=ROLE_ENVS,
    differential_front=True,
    differential_account=align,
)

from .crawl import CRAWL  # noqa: E402  (the crawl's hooks, read by `contracts.runner.crawl`)

__all__ = ["CONTRACT", "CRAWL"]
