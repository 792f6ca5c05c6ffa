"""A documented refusal, raised by the domain and rendered as the API's error envelope."""

from __future__ import annotations

from mock_server.policies.problems import Refusal

__all__ = ["Refusal", "not_found"]


def not_found(code: str, what: str) -> Refusal:
    return Refusal(404, code, f"{what} was not found.")
