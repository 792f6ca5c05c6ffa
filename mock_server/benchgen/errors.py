"""BenchGen's error body: DRF's `{"detail": message, "code": code, **fields}`.

The engine's own codes take DRF's spelling (`invalid_argument` -> `invalid`).
Validation messages never quote a submitted value (the engine masks them), so an
external endpoint's key (`model_token`, B-31) cannot come back in a 400."""

from __future__ import annotations

from mock_server.policies.errors import DrfDetail

RENAME = {"invalid_argument": "invalid"}

BENCHGEN_ERRORS = DrfDetail(rename=RENAME)
