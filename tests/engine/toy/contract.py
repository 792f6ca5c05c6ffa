"""The toy API's contract package: no checks of its own, only the runner's generic ones."""

from pathlib import Path

from contracts.runner.api import ContractApi
from contracts.runner.claims import Claim

CONTRACT = ContractApi(
    name="tests.engine.toy.contract:CONTRACT",
    mock="tests.engine.toy.profile:PROFILE",
    suite=Path(__file__).parent / "suite",
    url_env="TOY_API_URL",
    credential_envs=("TOY_API_KEY",),
    credentials={"apiKey": "TOY_API_KEY"},
    claims=[Claim("toy.get_or_create", "toy", "a repeated client_key answers the first widget")],
)
