"""The error every layer raises: `Problem(status, code, detail, **fields)`.

A handler, a policy or the engine raises it; the API's error format
(`policies/errors.py`, chosen in its profile) renders it, once, in that API's
own body shape. `extra` fields become members of the error object beside the
standard ones, `headers` go on the response.

The engine's own codes (`invalid_argument`, `not_found`, `method_not_allowed`,
`payload_too_large`, `unsupported_media_type`, `fault_injected`) are canonical
names; an error format may rename them to an API's spelling.
"""

from __future__ import annotations

from typing import Any


class Problem(Exception):
    """An error response. `extra` fields sit beside the standard ones."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str = "",
        *,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.headers = headers or {}
        self.extra = extra


class Refusal(Exception):
    """A documented refusal decided by an API's model, which knows no HTTP: status, code
    (one of the operation's documented codes), a message and extra fields. The engine turns
    one a handler lets through into a `Problem`, rendered in the API's format."""

    def __init__(self, status: int, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.code!r}, {self.message!r})"

    def problem(self, headers: dict[str, str] | None = None) -> Problem:
        return Problem(self.status, self.code, self.message, headers=headers, **self.fields)


def invalid(detail: str, **extra: Any) -> Problem:
    return Problem(400, "invalid_argument", detail, **extra)


def not_found(what: str = "Resource") -> Problem:
    return Problem(404, "not_found", f"{what} does not exist, or is not visible to the caller.")
