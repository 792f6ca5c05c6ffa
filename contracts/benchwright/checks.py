"""The conventions of `contracts.benchwright.conventions` as a schemathesis check, run on
every response schemathesis sees (stateless and stateful). It is passed to each
`validate_response` as an additional check and not registered globally: a
registered check runs on every validation as well, so it ran twice per response."""

from __future__ import annotations

from contracts.benchwright.claims import Drift
from contracts.benchwright.conventions import response_findings
from mock_server.apis import bundle
from mock_server.engine.spec import iter_operations

_BY_LABEL = {f"{method.upper()} {path}": op for method, path, _, op in iter_operations(bundle("benchwright"))}


# Credentials the suite holds for the target (set by the suite's fixtures). A
# request carrying anything else (a fuzzed bearer string) proves nothing either way:
# a string that was never a token falls through to anonymous access (§2.4).
KNOWN_CREDENTIALS: set[str] = set()


def _authenticated(response) -> bool | None:
    request = getattr(response, "request", None)
    headers = {k.lower(): v for k, v in (getattr(request, "headers", {}) or {}).items()}
    authorization = headers.get("authorization")
    cookie = headers.get("cookie", "")
    if authorization is None and "bw_session=" not in cookie:
        return False
    known = authorization is not None and authorization.removeprefix("Bearer ").strip() in KNOWN_CREDENTIALS
    known = known or any(f"bw_session={value}" in cookie for value in KNOWN_CREDENTIALS)
    if not known:
        return None
    return None if response.status_code == 401 else True


def benchwright_conventions(ctx, response, case):
    """§1, §3.2, §3.3, §3.8, §3.9, §13 on every response."""
    operation = _BY_LABEL.get(case.operation.label)
    if operation is None:
        return None
    headers = {k: v[0] if isinstance(v, list) and v else v for k, v in response.headers.items()}
    findings = response_findings(operation, response.status_code, headers, response.content, _authenticated(response))
    if findings:
        claim, detail = findings[0]
        more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
        raise Drift(claim, case.operation.label, f"{response.status_code}: {detail}{more}")
    return None
