"""The Bench platform contract suite: claims C-01…C-68, the conventions check of every response, state
machines of context versioning, versioned writes of every kind, the dataset and evaluation lifecycles with
allowance accounting, the read path and its pages, credential states and error details through the published
client, non-disclosure of key secrets, stage streams, and the three-way catalog drift report."""

from pathlib import Path

from ._runner import KEY_ENV, OAUTH_ENV, URL_ENV, ContractApi
from .claims import CLAIMS

CONTRACT = ContractApi(
    name="bench",
    suite=Path(__file__).parent / "suite",
    url_env=URL_ENV,
    credential_envs=(KEY_ENV,),  # OAUTH_ENV is optional: account-class checks skip without it
    claims=CLAIMS,
    mock="bench",
    # the spec's security schemes -> the variables holding those credentials (sessions come from the login operations)
    credentials={"api_key": KEY_ENV, "oauth_account": OAUTH_ENV},
)
