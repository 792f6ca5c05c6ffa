"""The runs of each owner in listing order, kept as runs are added and removed.

`GET /v1/runs` lists newest first (§3.5: the default sort is `-created_at`), runs
created at the same instant in the order they were created. Each owner's runs are
kept ascending by (created_at, creation sequence); the listing walks them from the
newest instant down, each instant's runs in creation order, so a page costs its
size (plus a binary search per instant), not a scan and sort of every run.

The pages asked for are remembered (`page`) until a run is added or removed: a run's
owner, `created_at` and creation sequence never change once it is indexed, so nothing
else can move a run in or out of a page, and a client polling its list pays for the
walk once.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import islice
from operator import attrgetter
from typing import Any

_KEY = attrgetter("created_at", "seq")  # each owner's list is ascending by this
_PAGES_KEPT = 256  # remembered pages (owner sets × cursors × sizes) before the memo starts over


class RunIndex:
    __slots__ = ("_pages", "_seq", "by_owner")

    def __init__(self) -> None:
        self.by_owner: dict[str, list[Any]] = {}
        self._seq = 0
        self._pages: dict[tuple[tuple[str, ...], int, int], list[Any]] = {}

    def add(self, run: Any) -> None:
        """Index a run (its `seq` is its place in creation order)."""
        self._seq += 1
        run.seq = self._seq
        self._pages.clear()
        runs = self.by_owner.setdefault(run.user_id, [])
        if not runs or runs[-1].created_at <= run.created_at:
            runs.append(run)
        else:  # a run created in the past (fixtures)
            insort(runs, run, key=_KEY)

    def remove(self, run: Any) -> None:
        runs = self.by_owner.get(run.user_id)
        if not runs:
            return
        at = bisect_left(runs, (run.created_at, run.seq), key=_KEY)
        if at < len(runs) and runs[at] is run:
            del runs[at]
            self._pages.clear()

    def owners(self) -> list[str]:
        return list(self.by_owner)

    def newest_first(self, owners: Iterable[str], after: Any = None) -> Iterator[Any]:
        """The owners' runs, newest first (same instant: creation order), from just after
        the run `after` when given (it need not be one of theirs)."""
        anchor = (after.created_at, after.seq) if after is not None else None
        walks = [_walk(self.by_owner[o], anchor) for o in owners if self.by_owner.get(o)]
        if len(walks) == 1:
            return walks[0]
        return heapq.merge(*walks, key=lambda run: (run.created_at, -run.seq), reverse=True)

    def page(self, owners: tuple[str, ...], after: Any, size: int) -> list[Any]:
        """The first `size` runs of `newest_first(owners, after)`, remembered until a run is
        added or removed (the list is shared: the caller must not change it)."""
        key = (owners, 0 if after is None else after.seq, size)
        found = self._pages.get(key)
        if found is None:
            if len(self._pages) >= _PAGES_KEPT:
                self._pages.clear()
            found = self._pages[key] = list(islice(self.newest_first(owners, after), size))
        return found

    def in_creation_order(self, owners: Iterable[str]) -> list[Any]:
        """The owners' runs, oldest created first (the order they were added in)."""
        runs = [run for o in owners for run in self.by_owner.get(o, ())]
        runs.sort(key=attrgetter("seq"))
        return runs


def _walk(runs: list[Any], anchor: tuple[datetime, int] | None) -> Iterator[Any]:
    """One owner's runs, newest instant first, each instant's in creation order."""
    hi = len(runs)
    if anchor is not None:
        at, seq = anchor
        lo = bisect_left(runs, (at,), hi=hi, key=_KEY)
        top = bisect_left(runs, (at, math.inf), lo, hi, key=_KEY)
        for i in range(bisect_left(runs, (at, seq + 1), lo, top, key=_KEY), top):
            yield runs[i]
        hi = lo
    while hi:
        lo = bisect_left(runs, (runs[hi - 1].created_at,), hi=hi, key=_KEY)
        for i in range(lo, hi):
            yield runs[i]
        hi = lo
