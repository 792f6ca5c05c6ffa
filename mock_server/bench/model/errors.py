"""A documented refusal, raised by the domain and rendered as the API's error envelope."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """`status`, `code` (one of the operation's `x-errors`), a message, and extra error fields."""

    def __init__(self, status: int, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields


def not_found(code: str, what: str) -> Refusal:
    return Refusal(404, code, f"{what} was not found.")
