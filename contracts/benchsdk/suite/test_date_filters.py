"""The run listing's filters (A-93, A-94): `since`/`until` take a calendar date, read in `timeZone`
(UTC by default) as the whole day, or an ISO timestamp taken literally and inclusively (A-93); the
listing narrows by `participant` and takes no `steps` filter (A-94). Each read is of a run this check
creates under a benchmark slug of its own, compared with the run's own `createdAt`."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from ._client import Platform, enc
from .test_scenarios import claimed

FAR_EAST = "Pacific/Kiritimati"  # UTC+14: its calendar day differs from UTC's for most of the day


def _listed(platform: Platform, slug: str, claim: str, **params: str) -> list[str]:
    rows = platform.json("GET", f"/benchmarks/{slug}/runs", params=params, claim=claim)["items"]
    return [row.get("id") for row in rows]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def test_since_and_until_read_dates_in_the_time_zone_and_timestamps_literally(platform):
    """A-93.1, A-93.2, A-93.3, A-94.1, A-94.2."""
    slug, run_id, _ = claimed(platform)
    run = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run_id)}", claim="A-93.3")["run"]
    created = datetime.fromisoformat(run["createdAt"].replace("Z", "+00:00"))
    day = created.date()
    local = created.astimezone(ZoneInfo(FAR_EAST)).date()
    cases = [
        ("A-93.1", {"since": day.isoformat(), "until": day.isoformat()}, True, "its UTC day as since and until"),
        ("A-93.1", {"since": (day + timedelta(days=1)).isoformat()}, False, "since the next UTC day"),
        ("A-93.1", {"until": (day - timedelta(days=1)).isoformat()}, False, "until the previous UTC day"),
        ("A-93.3", {"since": _stamp(created)}, True, "since its own createdAt (inclusive)"),
        ("A-93.3", {"until": _stamp(created)}, True, "until its own createdAt (inclusive)"),
        ("A-93.3", {"until": _stamp(created - timedelta(milliseconds=1))}, False, "until a millisecond before it"),
        ("A-93.2", {"since": local.isoformat(), "until": local.isoformat(), "timeZone": FAR_EAST}, True,
         f"its {FAR_EAST} day"),
        ("A-93.2", {"since": (local + timedelta(days=1)).isoformat(), "timeZone": FAR_EAST}, False,
         f"the next {FAR_EAST} day"),
    ]  # fmt: skip
    for clause, params, present, what in cases:
        if (run_id in _listed(platform, slug, clause, **params)) != present:
            raise platform.drift(clause, "listRuns", f"{what} ({params}) {'drops' if present else 'lists'} the run")
    if run_id not in _listed(platform, slug, "A-94.1", participant="e2b"):
        raise platform.drift("A-94.1", "listRuns", "participant=e2b drops a run of e2b")
    if run_id in _listed(platform, slug, "A-94.1", participant="modal"):
        raise platform.drift("A-94.1", "listRuns", "participant=modal lists a run of e2b alone")
    if run_id not in _listed(platform, slug, "A-94.2", steps="no-such-step"):
        raise platform.drift("A-94.2", "listRuns", "the run listing narrowed by steps, which it does not take")
