"""Token expiry values (§2.4): a bare date means the END of that day UTC; a full
RFC 3339 timestamp is taken literally.

We store and report the effective deadline, so `expires_at: "2026-12-31"` is
reported as `2026-12-31T23:59:59.999999+00:00`: a client comparing `expires_at`
with its clock then gets the same answer the server does.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from mock_server.policies.problems import invalid

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_expiry(raw: str) -> datetime:
    try:
        if _DATE.match(raw):
            day = datetime.fromisoformat(raw).date()
            return datetime.combine(day, time.max, tzinfo=UTC)
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise invalid("expires_at: a date (YYYY-MM-DD) or an RFC 3339 timestamp", field="expires_at") from None
    if moment.tzinfo is None:
        raise invalid("expires_at: a timestamp needs a UTC offset", field="expires_at")
    return moment.astimezone(UTC)


def end_of_day(moment: datetime) -> datetime:
    return datetime.combine(moment.date(), time.max, tzinfo=UTC) + timedelta(0)
