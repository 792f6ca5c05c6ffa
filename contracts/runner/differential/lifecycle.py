"""Resources that move over time (runs, evaluations, imports, submissions): their `status` (or
`state`) is compared by the sequence of states each side showed, not one snapshot, since the two
sides reach each state at slightly different moments.

At the end of the session, for each paired resource:
- every state the target showed must be one the oracle (the reference's executable lifecycle)
  showed for a field of that name on some resource of the session;
- no move of the target's (a -> b) goes against the oracle's order (only b -> a seen there).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .compare import Path


@dataclass
class Track:
    label: str
    path: Path
    target: list[str] = field(default_factory=list)
    oracle: list[str] = field(default_factory=list)

    def add(self, target: str, oracle: str) -> None:
        if not self.target or self.target[-1] != target:
            self.target.append(target)
        if not self.oracle or self.oracle[-1] != oracle:
            self.oracle.append(oracle)


@dataclass
class Verdict:
    label: str
    resource: str
    path: Path
    detail: str
    target: list[str]
    oracle: list[str]


class Lifecycles:
    def __init__(self, moving: dict[str, set[str]] | None = None) -> None:
        """`moving`: the states the spec says a resource leaves on its own (`volatile.moving_states`), known
        from the first exchange; the others are learned as the oracle is seen to leave them."""
        self.tracks: dict[tuple[str, Any, int], Track] = {}
        self.generation = 0  # a reset of the target starts its ids over: tracks of a new generation
        self.states: dict[str, set[str]] = defaultdict(set)  # field name -> states the oracle showed
        self.transient: dict[str, set[str]] = defaultdict(set)  # field name -> states the oracle was seen to leave
        for name, states in (moving or {}).items():
            self.transient[name] |= states

    def observe(self, label: str, path: Path, resource: Any, target: str, oracle: str) -> None:
        key = (path[-1], resource, self.generation)
        track = self.tracks.setdefault(key, Track(label, path))
        if track.oracle and track.oracle[-1] != oracle:
            self.transient[path[-1]].add(track.oracle[-1])
        track.add(target, oracle)
        self.states[path[-1]].add(oracle)

    def moving(self, name: str, state: Any) -> bool:
        """A state the oracle has been seen to leave on its own: a resource in it is on its way."""
        return state in self.transient.get(name, ())

    def verdicts(self) -> list[Verdict]:
        out = []
        for (name, resource, _), track in self.tracks.items():
            unknown = [s for s in track.target if s not in self.states[name]]
            if unknown:
                out.append(
                    Verdict(track.label, str(resource), track.path, f"state(s) {unknown} the oracle never shows",
                            track.target, track.oracle)
                )  # fmt: skip
                continue
            if any(_reversed(track.oracle, a, b) for a, b in zip(track.target, track.target[1:], strict=False)):
                out.append(
                    Verdict(track.label, str(resource), track.path, "states in another order than the oracle's",
                            track.target, track.oracle)
                )  # fmt: skip
        return out


def _before(states: list[str], a: str, b: str) -> bool:
    return any(s == a and b in states[i + 1 :] for i, s in enumerate(states))


def _reversed(oracle: list[str], a: str, b: str) -> bool:
    """The target went a -> b where the oracle only ever went b -> a."""
    return _before(oracle, b, a) and not _before(oracle, a, b)
