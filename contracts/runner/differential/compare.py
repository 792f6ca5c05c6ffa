"""Two JSON answers, one from the target and one from the oracle (already in the target's terms,
`Pairing.to_target`), compared field by field: the same fields, the same types, the same values.

What is not compared by value:
- volatile paths (learned, or marked `x-volatile` in the spec): skipped;
- id-like fields neither side could pair (`Pairing`): counted as unpaired;
- timestamps (RFC 3339 date-times): by order and difference with their sibling timestamps
  (`created_at <= updated_at`, `expires_at - created_at` the same TTL on both sides);
- lifecycle fields (`status`, `state` of an object with an id): by the sequence of states
  observed, at the end of the session (`lifecycle.Lifecycles`);
- an error's human text (`message`, `detail` of a 4xx/5xx): by type;
- durations counted from each side's own timer (`*_seconds`, `*_ms`, `retry_after`): within two
  seconds and 5%;
- sizes of text that holds each side's clock readings (`x-volatile: size`): within 1%.

Lists of objects with ids compare on their paired rows: presence, order and the counts beside
them (a `total` less the unpaired rows on each side).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from .pairing import SECRET_NAME, is_id_name, row_key, row_keys

Path = tuple[str, ...]
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$")
LIFECYCLE_NAMES = frozenset({"status", "state"})
ERROR_TEXT = frozenset({"message", "detail"})
COUNT_NAMES = frozenset({"total", "count", "total_count", "totalCount", "total_items", "totalItems"})
DURATION = re.compile(r"(?:seconds|Seconds|_secs|_ms|Ms|retry_after|retryAfter)$")
TIME_TOLERANCE = 2.0  # seconds, plus 1% of the oracle's interval
MOTION = 0.05  # seconds: two readings of one resource's age further apart were taken at different steps


@dataclass
class Diff:
    path: Path
    kind: str  # missing | extra | type | value | length | order | presence | repeated rows | timestamp | reference
    target: Any = None
    oracle: Any = None

    @property
    def where(self) -> str:
        return "/".join(self.path) or "(body)"

    def describe(self) -> str:
        if self.path and SECRET_NAME.search(self.path[-1]):  # a credential's value never reaches a report
            return f"{self.where}: {self.kind}: the two values differ (redacted)"
        return f"{self.where}: {self.kind}: target {_short(self.target)}, oracle {_short(self.oracle)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str) or not TIMESTAMP.match(value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


@dataclass
class Comparison:
    """One comparison of two bodies; `diffs` and the unpaired count are its result."""

    volatile: Callable[[Path], bool]
    known: Callable[[Any], bool]  # a target value the pairing holds (so a mismatch is drift)
    error: bool = False  # the answers are errors: their human text compares by type
    lifecycle: Callable[[Path, Any, Any, Any], None] | None = None  # (path, resource id, target, oracle)
    diffs: list[Diff] = field(default_factory=list)
    unpaired: int = 0

    chosen: frozenset[str] = frozenset()  # what the client sent: never made up, so compared by value
    owned: bool = False  # the answer is all this session's (a create, a read below one): no row is unpaired
    counts: list[tuple[Path, int, int]] = field(default_factory=list)
    balance: int = 0  # target rows unpaired less oracle rows unpaired, over the whole body
    made_up: frozenset[str] = frozenset()  # other names of made-up values (`x-volatile: paired`)
    sized: frozenset[str] = frozenset()  # sizes of text holding each side's clock readings (`x-volatile: size`)
    moving: int = 0  # resources read at another point of their course on each side (not compared)
    transient: Callable[[str, Any], bool] = lambda _name, _state: False  # (field, state): a state that is left
    # the oracle's first moment of the session, where it could not follow the target's clock (a deployment): an
    # interval from a reading before it to one after measures how long before the session the data was made
    since: datetime | None = None

    def run(self, target: Any, oracle: Any) -> Comparison:
        self.compare(target, oracle, ())
        for path, t, o in self.counts:  # the same totals once each side's unpaired rows are set aside
            if t - o != self.balance:
                self.diffs.append(Diff(path, "value", t, o))
        return self

    def compare(self, t: Any, o: Any, path: Path, name: str | None = None) -> int:
        """Compare at `path`; returns the rows left unpaired below it (for the counts beside a list)."""
        if self.volatile(path):
            return 0
        if _type(t) != _type(o):
            if timestamp(t) is None or timestamp(o) is None:
                self.diffs.append(Diff(path, "type", t, o))
            return 0
        if isinstance(t, dict):
            return self._dict(t, o, path)
        if isinstance(t, list):
            return self._list(t, o, path, name)
        if t == o:
            return 0
        if self.error and name in ERROR_TEXT:
            return 0
        if timestamp(t) is not None and timestamp(o) is not None:
            if _spelling(t) != _spelling(o):  # the same instant may differ; its RFC 3339 spelling may not
                self.diffs.append(Diff(path, "timestamp format", t, o))
            return 0  # by order and difference, in `_timestamps`
        if is_id_name(name) or name in self.made_up:
            if self.known(t) or self.known(o):
                self.diffs.append(Diff(path, "reference", t, o))
            elif str(t) in self.chosen or str(o) in self.chosen or str(t).casefold() == str(o).casefold():
                self.diffs.append(Diff(path, "value", t, o))  # the client's own value, or the same one respelled
            elif _url_shape(t) != _url_shape(o):
                self.diffs.append(Diff(path, "value", t, o))  # a link to another scheme, host or kind of place
            else:
                self.unpaired += 1
            return 0
        if isinstance(t, int) != isinstance(o, int):  # an integer where the oracle has a fraction, or back
            self.diffs.append(Diff(path, "type", t, o))
            return 0
        if isinstance(t, float | int) and isinstance(o, float | int):
            slack = max(1.0, 0.01 * abs(o)) if name in self.sized else _duration_slack(name, o)
            if abs(t - o) <= max(1e-9 * max(abs(t), abs(o)), slack):
                return 0
        self.diffs.append(Diff(path, "value", t, o))
        return 0

    def _dict(self, t: dict[str, Any], o: dict[str, Any], path: Path) -> int:
        if not (_in_motion(t, o) or self._on_its_way(t, o)):
            return self._fields(t, o, path)
        # a resource that moves on its own (a run), read at another point of its course on each side: its
        # fields are not compared in this snapshot; its states are, as a sequence (`lifecycle.Lifecycles`)
        before, counted = len(self.diffs), len(self.counts)
        below = self._fields(t, o, path)
        # the counts below it (a run's `tokens/driver/total`) moved with it: set aside, not compared at the end
        differs = len(self.diffs) > before or any(c[1] != c[2] for c in self.counts[counted:])
        del self.diffs[before:], self.counts[counted:]
        if differs:
            self.moving += 1
        return below

    def _on_its_way(self, t: dict[str, Any], o: dict[str, Any]) -> bool:
        """An object with an id in a state the oracle was seen to leave on its own (a running run): its other
        fields move with time, and each side read it at its own moment."""
        if not any(k in t for k in ("id", "uuid", "slug")):
            return False
        states = [(k, side[k]) for k in LIFECYCLE_NAMES if k in t and k in o for side in (t, o)]
        return any(isinstance(state, str) and self.transient(k, state) for k, state in states)

    def _fields(self, t: dict[str, Any], o: dict[str, Any], path: Path) -> int:
        for key in t.keys() - o.keys():
            if not self.volatile((*path, key, "#field")):
                self.diffs.append(Diff((*path, key), "extra", t[key], None))
        for key in o.keys() - t.keys():
            if not self.volatile((*path, key, "#field")):
                self.diffs.append(Diff((*path, key), "missing", None, o[key]))
        below = 0
        ident = next((t[k] for k in ("id", "uuid", "slug") if k in t), None)
        for key in t.keys() & o.keys():
            if key in COUNT_NAMES and isinstance(t[key], int) and isinstance(o[key], int):
                if not self.volatile((*path, key)):
                    self.counts.append(((*path, key), t[key], o[key]))
                continue
            if (
                key in LIFECYCLE_NAMES
                and self.lifecycle is not None
                and ident is not None
                and isinstance(t[key], str)
                and isinstance(o[key], str)
                and not self.volatile((*path, key))
            ):
                self.lifecycle((*path, key), ident, t[key], o[key])
                continue
            below += self.compare(t[key], o[key], (*path, key), key)
        self._timestamps(t, o, path)
        return below

    def _list(self, t: list[Any], o: list[Any], path: Path, name: str | None) -> int:
        key = row_key(t) or row_key(o)
        item = (*path, "*")
        if key is None:
            if t and all(_scalar_id(v) and self.known(v) for v in t) and sorted(map(str, t)) == sorted(map(str, o)):
                return 0  # the same made-up ids: their order may follow the made-up values themselves (sorted by id)
            if len(t) != len(o):
                self.diffs.append(Diff(path, "length", len(t), len(o)))
            for a, b in zip(t, o, strict=False):
                self.compare(a, b, item, name)
            return 0
        theirs = {row.get(key): row for row in o if isinstance(row, dict)}
        mine = {row.get(key): row for row in t if isinstance(row, dict)}
        repeated = (sum(isinstance(r, dict) for r in t) - len(mine), sum(isinstance(r, dict) for r in o) - len(theirs))
        if repeated[0] != repeated[1]:
            self.diffs.append(Diff(path, "repeated rows", repeated[0], repeated[1]))
        if not mine.keys() & theirs.keys():  # the same ids in another type (`"7"` for `7`): compared, not unpaired
            spelled = {str(k): k for k in theirs}
            theirs = {k: theirs[spelled[str(k)]] for k in mine if str(k) in spelled} | {
                k: v for k, v in theirs.items() if str(k) not in {str(m) for m in mine}
            }
        common = [k for k in mine if k in theirs]
        only_t = [k for k in mine if k not in theirs]
        only_o = [k for k in theirs if k not in mine]
        only_t, only_o = self._rematch(mine, theirs, only_t, only_o, key, item)
        membership = not self.volatile((*path, "#presence"))
        known = (lambda _k: True) if self.owned else self.known
        for k in only_t:
            if membership and known(k):
                self.diffs.append(Diff((*item, str(k)), "presence", "listed", "not listed"))
        for k in only_o:
            if membership and known(k):
                self.diffs.append(Diff((*item, str(k)), "presence", "not listed", "listed"))
        unpaired_t = sum(1 for k in only_t if not known(k))
        unpaired_o = sum(1 for k in only_o if not known(k))
        self.unpaired += unpaired_t + unpaired_o
        order_o = [k for k in theirs if k in mine]
        if common != order_o and not self.volatile((*path, "#order")) and not _ties(mine, common, order_o):
            self.diffs.append(Diff(path, "order", common, order_o))
        for k in common:
            self.compare(mine[k], theirs[k], item)
        self.balance += unpaired_t - unpaired_o
        return unpaired_t

    def _rematch(self, mine, theirs, only_t, only_o, key, item):
        """Rows left on both sides that another identifying field matches (the same `slug` under a changed
        `id`): compared, so the changed id shows as the difference it is."""
        if not only_t or not only_o:
            return only_t, only_o
        rest_t, rest_o = [mine[k] for k in only_t], [theirs[k] for k in only_o]
        for other in row_keys(rest_t):
            if other == key or other not in row_keys(rest_o):
                continue
            by_other = {row[other]: row for row in rest_o}
            for row in list(rest_t):
                match = by_other.pop(row[other], None)
                if match is not None:
                    self.compare(row, match, item)
                    rest_t.remove(row)
                    rest_o.remove(match)
        return [r[key] for r in rest_t], [r[key] for r in rest_o]

    def _timestamps(self, t: dict[str, Any], o: dict[str, Any], path: Path) -> None:
        stamps = []
        for key in sorted(t.keys() & o.keys()):
            a, b = timestamp(t[key]), timestamp(o[key])
            if a is not None and b is not None and not self.volatile((*path, key)):
                stamps.append((key, a, b))
        for i, (k1, t1, o1) in enumerate(stamps):
            for k2, t2, o2 in stamps[i + 1 :]:
                dt, do = (t2 - t1).total_seconds(), (o2 - o1).total_seconds()
                if _sign(dt) != _sign(do) and abs(dt - do) > TIME_TOLERANCE:
                    self.diffs.append(Diff((*path, f"{k1}..{k2}"), "timestamp", f"order {dt:+.0f}s", f"{do:+.0f}s"))
                elif abs(dt - do) > TIME_TOLERANCE + 0.01 * abs(do) and not self._across_the_start(o1, o2):
                    self.diffs.append(Diff((*path, f"{k1}..{k2}"), "timestamp", f"{dt:+.0f}s", f"{do:+.0f}s"))

    def _across_the_start(self, o1: datetime, o2: datetime) -> bool:
        """One of two sibling readings of the oracle's was made before the session began (a fixture) and the
        other in it, and the oracle's clock could not follow the target's: how far apart they are measures how
        long before the session each side's data was made (a seed token's `created_at` beside its
        `last_used_at`), no behaviour the two can share. Their order still compares."""
        return self.since is not None and (o1 < self.since) != (o2 < self.since)


def _in_motion(t: dict[str, Any], o: dict[str, Any]) -> bool:
    """An object with an id and a lifecycle field that the two sides read at different points of its course:
    the time from its creation to its last change differs (by more than the two sides' reading of the same
    moment can: `MOTION`), since each side took another step of its course last."""
    if not any(k in t for k in ("id", "uuid", "slug")) or not any(k in t for k in LIFECYCLE_NAMES):
        return False
    created = next((k for k in t if "created" in k and k in o), None)
    updated = next((k for k in t if "updated" in k and k in o), None)
    if created is None or updated is None:
        return False
    stamps = [timestamp(side.get(k)) for side in (t, o) for k in (created, updated)]
    if any(s is None for s in stamps):
        return False
    t_age = (stamps[1] - stamps[0]).total_seconds()  # type: ignore[operator]
    o_age = (stamps[3] - stamps[2]).total_seconds()  # type: ignore[operator]
    return abs(t_age - o_age) > MOTION


def _ties(rows: dict[Any, Any], one: list[Any], other: list[Any]) -> bool:
    """The two orders differ only among rows made at the same moment (their creation timestamps equal): a tie
    each side breaks by its own made-up ids, so not an order the two can agree on."""
    stamps = []
    for order in (one, other):
        seq = []
        for key in order:
            row = rows[key]
            created = next((row[k] for k in row if "created" in k and timestamp(row[k]) is not None), None)
            if created is None:
                return False
            seq.append(created)
        stamps.append(seq)
    return stamps[0] == stamps[1]


def _scalar_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _url_shape(value: Any) -> tuple[str, ...] | None:
    """What two unpaired links must still share: scheme, host and the number of path segments."""
    if not isinstance(value, str) or not ("://" in value or value.startswith("/")):
        return None
    parts = urlsplit(value)
    return (parts.scheme, parts.netloc, str(len(parts.path.rstrip("/").split("/"))))


def _spelling(value: str) -> str:
    """A timestamp with its digits masked: `0000-00-00T00:00:00.000000+00:00`."""
    return re.sub(r"\d", "0", value)


def _duration_slack(name: str | None, oracle: float) -> float:
    """A duration counted from when each side's window or timer started (`reset_seconds`, `retry_after`)
    may differ by the moments the two requests reached each side: two seconds (or ms), and 5%."""
    if not name or not DURATION.search(name):
        return 0.0
    unit = 1000.0 if name.endswith(("ms", "Ms")) else 1.0
    return 2.0 * unit + 0.05 * abs(oracle)


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)
