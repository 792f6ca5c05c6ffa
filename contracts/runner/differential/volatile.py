"""Volatile fields: values that differ between two runs of the same session on the same server,
so a difference between target and oracle there says nothing.

Learned as Diffy learns it: a shadow oracle (a second fresh mock) receives the same requests, and
every place where the two oracles' answers differ (request ids, random tokens, a clock's
milliseconds) becomes volatile for that operation. The spec can also declare them: a schema
property with `x-volatile: true`, or an operation's `x-volatile: [path, ...]` (slash-separated,
`*` for every row of a list: `data/*/score`); see docs/differential.md. A property marked
`x-volatile: paired` is a value each side makes up for the same thing although its name does not say
so (an epoch-millisecond handle `ts`): paired like an id, not compared by value.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from mock_server.engine.compile import resolve

from .compare import Diff, Path

MAX_DEPTH = 12


class Volatile:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.declared: dict[str, set[Path]] = {}  # operation label -> paths the spec marks volatile
        self.windowed: dict[str, set[Path]] = {}  # operation label -> counts of a rate-limit window
        self.clocks: dict[str, set[Path]] = {}  # operation label -> clock readings not spelt as timestamps
        self.learned: dict[str, set[Path]] = defaultdict(set)  # operation label -> paths seen to differ
        # a header seen to differ between the two oracles (a request id) is the server's noise, not one
        # operation's: volatile on every operation
        self.headers: set[Path] = set()

    def of(self, label: str, op: Any) -> set[Path]:
        if label not in self.declared:
            self.declared[label] = declared_paths(self.doc, op.raw) if op is not None else set()
        return self.declared[label]

    def window_counts(self, label: str, op: Any) -> set[Path]:
        """The paths of an operation's answers the spec marks `x-volatile: window`."""
        if label not in self.windowed:
            self.windowed[label] = declared_paths(self.doc, op.raw, mark="window") if op is not None else set()
        return self.windowed[label]

    def clock_readings(self, label: str, op: Any) -> set[Path]:
        """The paths of an operation's answers the spec marks `x-volatile: clock`: readings of the server's clock
        in a form the comparison does not read as a timestamp (epoch milliseconds)."""
        if label not in self.clocks:
            self.clocks[label] = declared_paths(self.doc, op.raw, mark="clock") if op is not None else set()
        return self.clocks[label]

    def checker(self, label: str, op: Any, uneven: bool = False, apart: bool = False):
        """`uneven`: the answer reads a rate-limit window the two sides did not count alike; `apart`: the
        oracle's clock does not follow the target's (a deployment), so readings of it differ by their offset."""
        declared, learned = self.of(label, op), self.learned[label]
        if uneven:
            declared = declared | self.window_counts(label, op)
        if apart:
            declared = declared | self.clock_readings(label, op)

        def volatile(path: Path) -> bool:
            if path and path[-1] == "#field":  # a field's presence: learned as such, or below a volatile parent
                if path in learned or path[:-1] in declared:
                    return True
                path = path[:-2]
            if path[:1] == ("header",) and path in self.headers:
                return True
            return any(path[:i] in declared or path[:i] in learned for i in range(1, len(path) + 1))

        return volatile

    def learn(self, label: str, diffs: list[Diff]) -> None:
        for diff in diffs:
            path = diff.path
            if diff.kind == "presence":
                path = (*path[:-2], "#presence")
            elif diff.kind in ("missing", "extra"):
                path = (*path, "#field")
            elif diff.kind == "order":
                path = (*path, "#order")
            self.learned[label].add(path)
            if path[:1] == ("header",):
                self.headers.add(path)


def declared_paths(doc: dict[str, Any], op: dict[str, Any], mark: bool | str = True) -> set[Path]:
    """The `x-volatile` paths of an operation: its own list, and every property so marked in its answers
    (`mark`: `True`, `"window"` for the counts of a rate-limit window, `"clock"` for clock readings)."""
    out: set[Path] = set()
    if mark is True:
        out = {tuple(p.strip("/").split("/")) for p in op.get("x-volatile") or [] if isinstance(p, str)}
    for response in (op.get("responses") or {}).values():
        response = resolve(doc, response)
        for name, header in (response.get("headers") or {}).items():
            if mark is True and resolve(doc, header).get("x-volatile"):
                out.add(("header", name.lower()))
        for media in (response.get("content") or {}).values():
            if isinstance(media, dict) and isinstance(media.get("schema"), dict):
                _walk(doc, media["schema"], (), out, 0, mark)
    return out


def _walk(doc: dict[str, Any], schema: Any, path: Path, out: set[Path], depth: int, mark: bool | str) -> None:
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return
    schema = resolve(doc, schema)
    if schema.get("x-volatile") is mark or (isinstance(mark, str) and schema.get("x-volatile") == mark):
        out.add(path)
        return
    for key, sub in (schema.get("properties") or {}).items():
        _walk(doc, sub, (*path, key), out, depth + 1, mark)
    if isinstance(schema.get("items"), dict):
        _walk(doc, schema["items"], (*path, "*"), out, depth + 1, mark)
    for combinator in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(combinator) or []:
            _walk(doc, sub, path, out, depth + 1, mark)


def _properties(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property schema of the spec, with its name."""
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for name, sub in (node.get("properties") or {}).items() if isinstance(node.get("properties"), dict) else ():
                if isinstance(sub, dict):
                    yield name, sub
            stack += list(node.values())
        elif isinstance(node, list):
            stack += node


def paired_names(doc: dict[str, Any]) -> frozenset[str]:
    """The names of the properties the spec marks `x-volatile: paired` anywhere in its schemas."""
    return marked_names(doc, "paired")


def sized_names(doc: dict[str, Any]) -> frozenset[str]:
    """The names of the properties the spec marks `x-volatile: size`: a size counted over text that holds each
    side's clock readings (a run's `event_bytes` counts the digits of each event's `duration_ms`), compared
    within 1% rather than to the byte."""
    return marked_names(doc, "size")


def marked_names(doc: dict[str, Any], mark: str) -> frozenset[str]:
    return frozenset(name for name, sub in _properties(doc) if sub.get("x-volatile") == mark)


def moving_states(doc: dict[str, Any]) -> dict[str, set[str]]:
    """Lifecycle field name -> the states the spec says a resource leaves on its own (`x-moving-states` on
    the field: a `running` run). A resource read in one of them moves with time: each side read it at its
    own moment, so its states are compared as a sequence and its other fields not in that snapshot."""
    out: dict[str, set[str]] = {}
    for name, sub in _properties(doc):
        states = sub.get("x-moving-states")
        if isinstance(states, list):
            out.setdefault(name, set()).update(str(s) for s in states)
    return out
