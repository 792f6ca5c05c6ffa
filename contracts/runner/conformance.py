"""The stateless and links conformance every API gets from its spec alone.

- **Stateless**: schemathesis over every operation (positive and negative
  data) with its built-in checks, plus `documented_error_code`: every 4xx
  carries a code the spec documents for that operation (`x-errors` /
  `x-error-codes`), in whichever body shape the API uses.
- **Links**: schemathesis' state machine over the spec's OpenAPI links
  (create -> get / change / delete / children), with the same checks.

Credentials come from the spec's `securitySchemes`: each scheme the API's
`ContractApi.credentials` maps to a variable of the session gets its value sent
the way the scheme says (a bearer `Authorization`, an `apiKey` header), for the
first security alternative of the operation the session holds a credential for.
SSE operations are left to each API's stream checks (schemathesis reads a body
whole). Against a live target, operations behind the safety opt-ins are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson
import pytest
import schemathesis
from hypothesis import Phase, reject, settings
from hypothesis.errors import FlakyStrategyDefinition
from schemathesis import Config
from schemathesis.core.errors import NoLinksFound
from schemathesis.core.parameters import ParameterLocation

from . import differential
from .claims import SCHEMATHESIS, Drift
from .pacing import send
from .report import CASES
from .safety import setting

Check = Callable[[Any, Any, Any], Any]

# A schema-valid request may still be refused for what schemas cannot say (state,
# credentials, quotas); it must never be a 5xx, and a 422 is not every API's code.
POSITIVE_STATUSES = ["2xx", "3xx", "400", "401", "402", "403", "404", "409", "412", "429", "5xx"]


def _operations(bundle: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for path, item in bundle.get("paths", {}).items():
        for method in ("get", "put", "post", "delete", "patch"):
            if method in item:
                op = item[method]
                out[f"{method.upper()} {path}"] = (op["operationId"], method.upper(), op)
    return out


def _streams(operations: Iterable[tuple[str, str, dict[str, Any]]]) -> list[str]:
    found = []
    for name, _, op in operations:
        for response in (op.get("responses") or {}).values():
            if "text/event-stream" in (response.get("content") or {}):
                found.append(name)
                break
    return found


def error_code(body: bytes) -> str | None:
    """The error code of a body in any of the engine's formats."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        return error["code"]
    code = data.get("code")
    return code if isinstance(code, str) else None


def documented_error_code(by_label: dict[str, tuple[str, str, dict[str, Any]]]) -> Check:
    def check(ctx: Any, response: Any, case: Any) -> None:
        status = response.status_code
        if not 400 <= status < 500 or status == 405:  # a 405 is "no such operation": none documents it
            return None
        _, _, op = by_label.get(case.operation.label, (None, None, {}))
        documented = op.get("x-error-codes") or op.get("x-errors")
        if not documented:
            return None
        codes = documented.get(str(status))
        code = error_code(response.content)
        if codes is None or code not in codes:
            raise Drift(
                "spec.errors", case.operation.label, f"{status} code {code!r} is not documented (documented: {codes})"
            )
        return None

    check.__name__ = "documented_error_code"
    return check


def schemathesis_config(positive_statuses: list[str]) -> Config:
    """Every suite's schemathesis configuration: all generation modes, the statuses a schema-valid
    request may get, and, on a `--seed N` run, that seed. Unless told one, schemathesis picks a random
    seed of its own for every test that is not derandomized, which overrides hypothesis' own
    `--hypothesis-seed`: the same seed's run would then send other data each time."""
    seed = setting("SEED")
    return Config.from_dict(
        {
            "generation": {"mode": "all"},
            "checks": {"positive_data_acceptance": {"expected-statuses": positive_statuses}},
            "request-timeout": 30,
            **({"seed": int(seed)} if seed else {}),
        }
    )


class Conformance:
    """Builds both tests for one API; its suite module assigns them to test names."""

    def __init__(
        self,
        bundle: dict[str, Any],
        credentials: dict[str, str],
        checks: Iterable[Check] = (),
        exclude: Iterable[str] = (),
        positive_statuses: list[str] | None = None,
    ) -> None:
        self.bundle = bundle
        self.by_label = _operations(bundle)
        self.credentials = credentials
        self.schemes = (bundle.get("components") or {}).get("securitySchemes") or {}
        self.checks = [documented_error_code(self.by_label), *checks]
        config = schemathesis_config(positive_statuses or POSITIVE_STATUSES)
        excluded = [*_streams(self.by_label.values()), *exclude]
        self.schema = schemathesis.openapi.from_dict(bundle, config=config)
        if excluded:
            self.schema = self.schema.exclude(operation_id=excluded)

    def headers(self, op: dict[str, Any], env: dict[str, str]) -> dict[str, str]:
        for alternative in op.get("security", self.bundle.get("security")) or []:
            headers: dict[str, str] = {}
            for scheme_name in alternative:
                variable = self.credentials.get(scheme_name)
                value = env.get(variable) if variable else None
                scheme = self.schemes.get(scheme_name) or {}
                if value is None:
                    break
                if scheme.get("type") == "http":
                    prefix = "Basic" if scheme.get("scheme", "").lower() == "basic" else "Bearer"
                    headers["Authorization"] = f"{prefix} {value}"
                elif scheme.get("type") == "apiKey" and scheme.get("in") == "header":
                    headers[scheme["name"]] = value
                else:
                    break
            else:
                return headers
        return {}

    def case_headers(self, case: Any, op: dict[str, Any], env: dict[str, str]) -> dict[str, str]:
        """The generated headers plus the session's credentials, as `_kept_credentials` allows.
        A case that generated a header framing the HTTP message is discarded (`FRAMING_HEADERS`)."""
        generated = case.headers or {}
        if any(name.lower() in FRAMING_HEADERS for name in generated):
            reject()
        return {**generated, **_kept_credentials(case, generated, self.headers(op, env))}

    def stateless(self) -> Callable[..., None]:
        conformance = self

        @pytest.mark.claim(*SCHEMATHESIS.values(), "spec.errors")
        @self.schema.parametrize()
        def test_spec_conformance(case, contract_session):
            session = contract_session
            name, method, op = conformance.by_label[case.operation.label]
            allowed, reason = session.policy.permits(method, op)
            if not allowed:
                pytest.skip(f"{name} {reason}")
            if not session.policy.probes(case.method, method):
                return  # an undocumented-method probe a deployment is not sent
            if not session.policy.fuzzes(method, CASES[case.operation.label]):
                return  # past a deployment's share of generated writes for this operation
            headers = conformance.case_headers(case, op, session.env)
            CASES[case.operation.label] += 1
            extra = differential.call_kwargs(session)  # the oracle's, in differential mode
            attempt = lambda: case.call(base_url=session.base_url, headers=headers, timeout=30, **extra)  # noqa: E731
            response = send(session.policy, session.pacer, case.method, attempt)
            case.validate_response(response, additional_checks=conformance.checks, headers=headers)

        return test_spec_conformance

    def links(self) -> Callable[..., None]:
        conformance = self

        @pytest.mark.claim("stateful.links", *SCHEMATHESIS.values())
        def test_links_state_machine(contract_session):
            session = contract_session
            policy = session.policy
            refused = [name for name, method, op in conformance.by_label.values() if not policy.permits(method, op)[0]]
            schema = conformance.schema.exclude(operation_id=refused) if refused else conformance.schema
            base = schema.as_state_machine()

            class Links(base):
                def get_call_kwargs(self, case):
                    _, _, op = conformance.by_label[case.operation.label]
                    headers = conformance.case_headers(case, op, session.env)
                    extra = differential.call_kwargs(session)  # the oracle's, in differential mode
                    return {"base_url": session.base_url, "headers": headers, "timeout": 30, **extra}

                def call(self, case, **kwargs):
                    CASES[case.operation.label] += 1
                    return send(session.policy, session.pacer, case.method, lambda: case.call(**kwargs))

                def validate_response(self, response, case, additional_checks=None, **kwargs):
                    super().validate_response(response, case, additional_checks=conformance.checks, **kwargs)

            # No shrinking: a scenario replayed against a server whose state moved on cannot
            # reproduce, and would hide the real failure behind a flakiness error.
            try:
                Links.run(settings=settings(settings.default, phases=[Phase.explicit, Phase.reuse, Phase.generate]))
            except FlakyStrategyDefinition:
                pytest.skip("the links state machine stopped early: its generation depends on server state")
            except NoLinksFound:  # every linked operation is behind an opt-in on this target
                pytest.skip("no linked operation is permitted on this target (opt in with --allow writes,spend)")

        return test_links_state_machine


# Headers that frame the HTTP message rather than carry an API parameter. The HTTP client
# writes them; a generated value (a negative case's `Content-Length: k`) makes a request that
# no API sees, since any HTTP server answers it 400 before routing, in its own format (the
# stress suite's hostile-input catalogue covers malformed framing).
FRAMING_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "host", "connection", "te", "trailer", "upgrade", "keep-alive", "expect"}
)


def _kept_credentials(case: Any, generated: dict[str, str], credentials: dict[str, str]) -> dict[str, str]:
    """The session's credentials, less any header the case's negation removed.

    schemathesis turns a security requirement into a required header, and a
    negative case may leave that header out. Adding the credential back would
    send a request other than the one the checks judge (a missing
    `Authorization` plus unknown query names, answered 200, reads as accepted
    negative data), so such a case goes out without it and must be refused.
    """
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return credentials
    header = meta.components.get(ParameterLocation.HEADER)
    if header is None or not header.mode.is_negative:
        return credentials
    present = {name.lower() for name in generated}
    return {name: value for name, value in credentials.items() if name.lower() in present}
