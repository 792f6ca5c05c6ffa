"""The registered APIs, by name: `--api NAME`, `create_app(api=NAME)`, `make serve`.

Each entry names the module and attribute of the API's `Profile`; a profile is
imported only when its API is asked for. Order is the order `make serve` starts
them in (each on its profile's port)."""

from __future__ import annotations

import importlib

from .engine.profile import Profile

APIS: dict[str, str] = {
    "benchwright": "mock_server.benchwright.profile:PROFILE",
    "benchsdk": "mock_server.benchsdk.profile:PROFILE",
    "benchgen": "mock_server.benchgen.profile:PROFILE",
    "bench": "mock_server.bench.profile:PROFILE",
}

DEFAULT_API = "benchwright"


def profile(name: str) -> Profile:
    """A registered API's profile, or one named as `module:attribute` (a toy API in tests)."""
    try:
        target = name if ":" in name else APIS[name]
    except KeyError:
        raise ValueError(f"unknown API {name!r}; registered: {', '.join(APIS)}") from None
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def bundle(name: str = DEFAULT_API) -> dict:
    """The API's bundled spec (its conventions expanded), as its mock serves it."""
    from .engine.spec import load_bundle

    chosen = profile(name)
    return load_bundle(chosen.spec_dir, chosen.expand)
