"""A refusal the model decides: the engine's `Refusal` (status, code, message, fields), which
it renders in the API's error format when a handler lets one through."""

from __future__ import annotations

from mock_server.policies.problems import Refusal

__all__ = ["Refusal"]
