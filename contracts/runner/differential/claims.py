"""The claims a difference falls under: those of the operation it was found on.

In order: the `§` sections of the operation's `x-reference` and its `x-claims` ids (as claim coverage
reads them, `coverage.operation_claims`); else, where `x-reference` names a part of the reference by
its title (BenchGen's "API reference / 2 — Join it"), the API's claims filed under that part, as one
claim named by the part; else the API's claims whose text names the operation (`list_operations`).
With none of these, the difference stands under `differential` (the oracle's own claim)."""

from __future__ import annotations

import functools
import re
from typing import Any

from contracts.runner.claims import Claim, register
from contracts.runner.coverage import operation_claims


@functools.cache
def _claims(api: str) -> tuple[Claim, ...]:
    from contracts.apis import contract

    try:
        return tuple(contract(api).claim_list())
    except (SystemExit, ImportError, AttributeError):
        return ()


def claims_for(api: str, op: Any) -> list[str]:
    if op is None:
        return []
    found = operation_claims(op.raw)
    if found:
        return found
    reference = op.raw.get("x-reference")
    if isinstance(reference, str):
        filed = [c.id for c in _claims(api) if c.section == reference]
        if filed:
            register([Claim(reference, reference, f"the claims of this part of the reference ({', '.join(filed)})")])
            return [reference, *filed]
    name = re.compile(rf"\b{re.escape(op.operation_id)}\b")
    return [c.id for c in _claims(api) if name.search(c.text)]
