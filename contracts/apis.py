"""The APIs the contract runner knows, by name (the same names as the mock's).

Each entry names the module holding the API's `ContractApi` (`CONTRACT`); it is
imported only when that API is checked."""

from __future__ import annotations

import importlib

from contracts.runner.api import ContractApi

CONTRACT_APIS: dict[str, str] = {
    "benchwright": "contracts.benchwright",
    "benchsdk": "contracts.benchsdk",
    "benchgen": "contracts.benchgen",
    "bench": "contracts.bench",
}


def contract(name: str) -> ContractApi:
    """A registered API's `ContractApi`, or one named as `module:attribute` (a toy API in tests)."""
    if ":" in name:
        module, _, attribute = name.partition(":")
        return getattr(importlib.import_module(module), attribute)
    try:
        module = CONTRACT_APIS[name]
    except KeyError:
        raise SystemExit(f"unknown API {name!r}; registered: {', '.join(CONTRACT_APIS)}") from None
    return importlib.import_module(module).CONTRACT
