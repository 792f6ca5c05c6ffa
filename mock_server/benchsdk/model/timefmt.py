"""Timestamps on the wire: ISO-8601 UTC with milliseconds and `Z`; since/until filters (A-93)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import Refusal

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@lru_cache(maxsize=8192)  # rows are read far more often than stamped
def iso(dt: datetime | None) -> str | None:
    """`2026-09-21T10:00:00.000Z` (what the client sends and the platform stamps)."""
    if dt is None:
        return None
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_timestamp(text: object) -> datetime | None:
    """An ISO-8601 timestamp with an offset (or `Z`), as an aware datetime; None if it is not one."""
    if not isinstance(text, str) or "T" not in text:
        return None
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else None


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError) as exc:
        raise Refusal(400, "invalid_time_zone", f"unknown time zone {name!r}", parameter="timeZone") from exc


def bound(value: str, tz: ZoneInfo, *, upper: bool, parameter: str) -> tuple[datetime, bool]:
    """The instant a since/until value means, and whether the bound is exclusive.

    `YYYY-MM-DD` is 00:00 of that day in `tz`; as an upper bound it means the whole day, i.e.
    before 00:00 of the next day (exclusive). A timestamp with an offset is taken literally,
    one without is read in `tz`; both are inclusive.
    """
    if _DATE.match(value):
        try:
            day = datetime.strptime(value, "%Y-%m-%d")
        except ValueError as exc:
            raise Refusal(
                400, "invalid_date", f"{parameter}={value!r} is not a calendar date", parameter=parameter
            ) from exc
        start = day.replace(tzinfo=tz)
        if upper:
            nxt = (day + timedelta(days=1)).replace(tzinfo=tz)
            return nxt.astimezone(UTC), True
        return start.astimezone(UTC), False
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as exc:
        raise Refusal(
            400,
            "invalid_date",
            f"{parameter}={value!r} is neither YYYY-MM-DD nor an ISO-8601 timestamp",
            parameter=parameter,
        ) from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC), False


class Window:
    """since/until as an instant range over a run's createdAt."""

    def __init__(self, since: str | None, until: str | None, time_zone: str | None) -> None:
        tz = zone(time_zone or "UTC")
        self.lower = bound(since, tz, upper=False, parameter="since")[0] if since else None
        if until:
            self.upper, self.upper_exclusive = bound(until, tz, upper=True, parameter="until")
        else:
            self.upper, self.upper_exclusive = None, False

    def contains(self, instant: datetime) -> bool:
        """Whether a run created at `instant` is in the window, read at the millisecond precision the platform
        stamps `createdAt` with (`iso`): a client that passes a run's own `createdAt` as `until` finds the run."""
        instant = instant.replace(microsecond=instant.microsecond // 1000 * 1000)
        if self.lower is not None and instant < self.lower:
            return False
        if self.upper is not None:
            if self.upper_exclusive and instant >= self.upper:
                return False
            if not self.upper_exclusive and instant > self.upper:
                return False
        return True
