"""A refusal the model decides; the resources turn it into the API's error response."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A documented refusal: HTTP status, error code, message and extra fields."""

    def __init__(self, status: int, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields

    def __repr__(self) -> str:
        return f"Refusal({self.status}, {self.code!r}, {self.message!r})"
