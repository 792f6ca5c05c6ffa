"""`python -m mock_server.bundle [--api NAME] [--out FILE]`: write an API's bundled spec as JSON.

The bundle is what the mock serves at `GET /__mock/openapi.json` (and, for
Benchwright, at `GET /v1/openapi.json`) and what `make spec-check` lints."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .apis import APIS, DEFAULT_API, bundle
from .engine.spec import write_bundle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server.bundle", description=__doc__)
    parser.add_argument("--api", default=DEFAULT_API, choices=sorted(APIS))
    parser.add_argument("--out", type=Path, default=None, help="default: standard output")
    args = parser.parse_args(argv)
    write_bundle(bundle(args.api), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
