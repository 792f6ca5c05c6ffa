"""Stateful conformance: schemathesis' state machine over the spec's OpenAPI links
(create -> read / change / delete / children), with the same checks as the
stateless run. Against a live target, operations behind the safety opt-ins are
left out of the machine entirely."""

from __future__ import annotations

from hypothesis import settings

from contracts.checks import benchwright_conventions
from contracts.http import send_with_retry

from .conftest import OPERATIONS
from .test_conformance import BY_LABEL, schema


def test_links_state_machine(target, policy, session_cookie):
    refused = [name for name, (method, _, op) in OPERATIONS.items() if not policy.permits(method, op)[0]]
    session_only = [
        name for name, (_, _, op) in OPERATIONS.items() if all(set(alt) == {"session"} for alt in op["security"])
    ]
    filtered = schema.exclude(operation_id=refused) if refused else schema
    if session_cookie is None:
        filtered = filtered.exclude(operation_id=session_only)
    base = filtered.as_state_machine()

    class Links(base):
        def get_call_kwargs(self, case):
            name = BY_LABEL[case.operation.label][0]
            if name in session_only and session_cookie is not None:
                cookie = "; ".join(f"{k}={v}" for k, v in session_cookie.items())
                return {"base_url": target.base_url, "headers": {"Cookie": cookie}, "timeout": 30}
            return {"base_url": target.base_url, "headers": {"Authorization": f"Bearer {target.pat}"}, "timeout": 30}

        def call(self, case, **kwargs):
            return send_with_retry(policy, lambda: case.call(**kwargs))

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            super().validate_response(response, case, additional_checks=[benchwright_conventions], **kwargs)

    Links.run(settings=settings(settings.default))
