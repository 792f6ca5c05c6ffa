"""Where the files the harness reads at run time are: the specs and the vendored references.

    SPEC_ROOT       spec/<api>/openapi.yaml + paths/*.yaml (every mock and contract suite reads its API's)
    REFERENCE_DIR   docs/reference/*.md (the contract runner's claim coverage, the suites that parse a reference)

In a checkout they are the repository's `spec/` and `docs/reference/`. A built distribution
carries them inside this package, as `mock_server/spec/` and `mock_server/reference/`
(`[tool.hatch.build.targets.wheel.force-include]` in pyproject.toml), so an installed wheel
works from any directory; `tests/packaging/test_wheel.py` proves it. Whichever copy exists
beside this module is used, the packaged one first.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent


def _located(packaged: str, checkout: str) -> Path:
    inside = PACKAGE / packaged
    return inside if inside.is_dir() else CHECKOUT / checkout


SPEC_ROOT = _located("spec", "spec")
REFERENCE_DIR = _located("reference", "docs/reference")
