"""Refusals the domain raises; the resource layer renders them in the API's error format.

`status` and `code` are those the spec's `x-errors` documents for the operation;
`fields` become extra members of the error body.
"""

from __future__ import annotations


class DomainError(Exception):
    def __init__(self, status: int, code: str, message: str, **fields: object) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields


def not_found(message: str = "Not found.") -> DomainError:
    return DomainError(404, "not_found", message)


def does_not_exist(field: str, value: object) -> DomainError:
    return DomainError(400, "does_not_exist", f'Invalid pk "{value}" - object does not exist.', field=field)
