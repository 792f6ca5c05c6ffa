"""Path routing: the spec's templates, matched exactly as written.

No trailing-slash folding and never a redirect: `/api/competitions/public/`
and `/api/competitions/public` are different paths, as the spec writes them.
The most literal template wins (`/v1/teams/me/invites` before
`/v1/teams/{id}/invites`; ids may contain colons, so `/v1/tokens/{id}:rotate`
is tried before `/v1/tokens/{id}`).

Index, built once: templates are bucketed by segment count and by the first
segment after the API's common literal prefix (`/v1`, `/api/v1`, or nothing
for root-mounted APIs); a template with a parameter there sits in that depth's
wildcard bucket, tried after the literal one.
"""

from __future__ import annotations

from .compile import Operation


def _segments(path: str) -> list[str]:
    return path.split("/")


def _head(segment: str) -> str:
    return segment.split(":", 1)[0]


def _common_prefix(templates: list[str]) -> int:
    """How many leading segments every template shares literally."""
    if not templates:
        return 0
    split = [_segments(t) for t in templates]
    depth = min(len(parts) for parts in split) - 1
    count = 0
    for index in range(depth):
        first = split[0][index]
        if "{" in first or any(parts[index] != first for parts in split):
            break
        count += 1
    return count


def _ordered(operations: list[Operation]) -> list[Operation]:
    return sorted(operations, key=lambda op: op.specificity, reverse=True)


class Router:
    def __init__(self, operations: list[Operation]) -> None:
        self.by_id = {op.operation_id: op for op in operations}
        # a template without parameters is the most specific match of the one path it spells
        self._literal = {(op.method, op.template): op for op in operations if "{" not in op.template}
        self._at = _common_prefix([op.template for op in operations])
        literal: dict[tuple[str, int], list[Operation]] = {}
        self._wildcard: dict[int, list[Operation]] = {}
        for op in operations:
            parts = _segments(op.template)
            segment = parts[self._at] if self._at < len(parts) else ""
            if "{" in _head(segment):
                self._wildcard.setdefault(len(parts), []).append(op)
            else:
                literal.setdefault((_head(segment), len(parts)), []).append(op)
        self._buckets = {
            (head, depth): _ordered([*ops, *self._wildcard.get(depth, [])]) for (head, depth), ops in literal.items()
        }
        self._wildcard = {depth: _ordered(ops) for depth, ops in self._wildcard.items()}

    def candidates(self, path: str) -> list[Operation]:
        parts = _segments(path)
        depth = len(parts)
        segment = parts[self._at] if self._at < depth else ""
        found = self._buckets.get((_head(segment), depth))
        return found if found is not None else self._wildcard.get(depth, [])

    def match(self, method: str, path: str) -> tuple[Operation | None, dict[str, str], list[str]]:
        """(operation, path params, allowed methods when only the path matched).

        As in OpenAPI, the most specific matching path template decides: `PATCH
        /v1/tokens/me` is a 405 on `/v1/tokens/me`, not a PATCH of token "me"."""
        exact = self._literal.get((method, path))
        if exact is not None:
            return exact, {}, []
        template: str | None = None
        allowed: list[str] = []
        for op in self.candidates(path):
            if template is not None and op.template != template:
                continue
            found = op.regex.match(path)
            if found is None:
                continue
            template = op.template
            if op.method == method:
                return op, found.groupdict(), []
            allowed.append(op.method)
        return None, {}, allowed

    def owns(self, path: str) -> bool:
        """Whether any template could match this path (it is an API path, not a control one)."""
        return any(op.regex.match(path) for op in self.candidates(path))
