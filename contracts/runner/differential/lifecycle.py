"""Resources that move over time (runs, evaluations, imports, submissions): their `status` (or
`state`) is compared by the sequence of states each side showed, not one snapshot, since the two
sides reach each state at slightly different moments.

At the end of the session, for each paired resource:
- every state the target showed must be one the oracle (the reference's executable lifecycle)
  showed for a field of that name on some resource of the session;
- the states both sides showed must come in the same order.
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
    def __init__(self) -> None:
        self.tracks: dict[tuple[str, Any], Track] = {}
        self.states: dict[str, set[str]] = defaultdict(set)  # field name -> states the oracle showed

    def observe(self, label: str, path: Path, resource: Any, target: str, oracle: str) -> None:
        key = (path[-1], resource)
        track = self.tracks.setdefault(key, Track(label, path))
        track.add(target, oracle)
        self.states[path[-1]].add(oracle)

    def verdicts(self) -> list[Verdict]:
        out = []
        for (name, resource), track in self.tracks.items():
            unknown = [s for s in track.target if s not in self.states[name]]
            if unknown:
                out.append(
                    Verdict(track.label, str(resource), track.path, f"state(s) {unknown} the oracle never shows",
                            track.target, track.oracle)
                )  # fmt: skip
                continue
            shared = [s for s in track.target if s in track.oracle]
            order = sorted(shared, key=track.oracle.index)
            if shared != order:
                out.append(
                    Verdict(track.label, str(resource), track.path, "states in another order than the oracle's",
                            track.target, track.oracle)
                )  # fmt: skip
        return out
