"""`ContractApi`: what one API's contract package tells the shared runner."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .claims import Claim


@dataclass(frozen=True)
class ContractApi:
    name: str  # the mock's API name (`create_app(api=name)`)
    suite: Path  # the pytest directory of its checks
    url_env: str  # set: check that live deployment; unset: the embedded mock
    credential_envs: tuple[str, ...] = ()  # what a live run needs
    claims: Iterable[Claim] | dict[str, Claim] = ()
    redactions: tuple[tuple[str, str], ...] = ()  # (regex, replacement) for the API's credential formats
    plan: Callable[[Any], str] | None = None  # `--plan`: what a run would do, without sending anything
    extra_env: dict[str, str] = field(default_factory=dict)  # variables the suite reads, set for the run
    # the generic stateless + links conformance (`contracts.runner.conformance`):
    conformance: bool = True  # False: the API's suite runs its own
    credentials: dict[str, str] = field(default_factory=dict)  # securitySchemes name -> credential variable
    checks: tuple[Callable[..., Any], ...] = ()  # extra schemathesis checks (ctx, response, case) per response
    conformance_exclude: tuple[str, ...] = ()  # operationIds the fuzzer leaves to the API's own checks
    mock: str = ""  # the mock's registry name or "module:attribute" of its Profile (default: `name`)
    # on a mock target (embedded or served): makes the suite's own account and credentials through
    # the control surface, into `session.env` / `session.tokens` (a credential given is never spent)
    prepare: Callable[[Any], None] | None = None
    # extra credentials by role, and the variable that gives each on a deployment ("readonly": "BW_PAT_READONLY")
    role_envs: dict[str, str] = field(default_factory=dict)
    # differential mode: reach the target through the oracle's HTTP front, for suites whose clients (schemathesis,
    # stream readers) do not all go through `Session.client()` / `SuiteClient`
    differential_front: bool = False
    # differential mode, before the session: (target base URL, the run's credentials, the oracles) -> each oracle's
    # account given the target account's configuration (raised quotas), which no request of the session shows
    differential_account: Callable[[str, dict[str, str], list[Any]], None] | None = None

    def claim_list(self) -> list[Claim]:
        values = self.claims.values() if isinstance(self.claims, dict) else self.claims
        return [Claim(c.id, c.section, getattr(c, "text", None) or getattr(c, "title", "")) for c in values]
