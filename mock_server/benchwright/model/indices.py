"""Index specs (§4.2.1 `metadata.indices`, §4.2.5 fork `indices`): `"0-99"`,
`"0,2,4"` or a mix, naming task positions."""

from __future__ import annotations

import re

from mock_server.policies.problems import invalid

MAX_SPAN = 50_000


def expand_indices(spec: str) -> list[int]:
    """`"0-99"`, `"0,2,4"` -> indices; bad specs are `400 invalid_argument`."""
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise invalid(f"index spec '{spec}': use forms like '0-99' or '0,2,4'", field="indices")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if high < low or high - low > MAX_SPAN:
            raise invalid(f"index spec '{spec}': bad range '{part}'", field="indices")
        out.extend(range(low, high + 1))
    return out
