"""Loading the Bench spec files without the engine (for the model and its tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from mock_server.datafiles import SPEC_ROOT

SPEC_DIR = SPEC_ROOT / "bench"


def load_spec(spec_dir: Path = SPEC_DIR) -> dict[str, Any]:
    """The root document with every `paths/*.yaml` fragment merged in (a name defined twice is an error)."""
    root = yaml.safe_load((spec_dir / "openapi.yaml").read_text())
    root["paths"] = dict(root.get("paths") or {})
    schemas = root.setdefault("components", {}).setdefault("schemas", {})
    for fragment in sorted((spec_dir / "paths").glob("*.yaml")):
        doc = yaml.safe_load(fragment.read_text())
        for path, item in (doc.get("paths") or {}).items():
            if path in root["paths"]:
                raise ValueError(f"{fragment.name}: path {path} defined twice")
            root["paths"][path] = item
        for name, schema in ((doc.get("components") or {}).get("schemas") or {}).items():
            if name in schemas:
                raise ValueError(f"{fragment.name}: schema {name} defined twice")
            schemas[name] = schema
    return root
