"""The drift catalogue (tests/drift) with every hand-written check switched off: the catalogue's own
session for a drift runs through the differential front with its verdict discarded, and the engine
alone must report the drift. The fast tests take a few drifts of each API across the aspects the
engine compares (status, documented headers by meaning, body values and types, counts, lifecycles);
the whole catalogue, per API, runs with `-m slow` or `HARNESS_DRIFT_SLOW=1` and must reach 80% of the
drifts that change any answer (`python -m tests.differential.catalogue` writes the full table)."""

from __future__ import annotations

import pytest

from tests.differential.catalogue import entries, measure, run
from tests.drifting import Rewrite

# (api, drift name): what each aspect of the comparison catches
SAMPLE = [
    ("bench", "undocumented-status"),  # status (spec.status)
    ("bench", "error-code-undocumented"),  # the error's code (C-53)
    ("bench", "version-moves-by-two"),  # a body value after a write (C-36)
    ("benchgen", "score-as-percent"),  # a value's scale
    ("benchgen", "done-as-string"),  # a type
    ("benchsdk", "timestamp-with-offset"),  # spelling of a timestamp is a value (RFC 3339, ms)
    ("benchsdk", "import-batch-undercounted"),  # a count after imports
    ("benchwright", "replay-header-missing"),  # §3.7 the replay marker
    ("benchwright", "etag-does-not-move"),  # §3.8 an ETag that does not move when the body does
    ("benchwright", "remaining-frozen"),  # §3.9 a rate-limit counter that does not count down
    ("benchwright", "429-without-retry-after"),  # Retry-After
]


def _entry(api: str, name: str):
    return next(e for e in entries(api) if e[0] == name)


@pytest.mark.parametrize(("api", "name"), SAMPLE, ids=[f"{a}:{n}" for a, n in SAMPLE])
def test_the_engine_alone_reports_the_drift(api, name):
    _, claim, wrap, check, app = _entry(api, name)
    outcome = measure(api, name, claim, wrap, check, app)
    assert outcome.changes, f"{name} changed no answer of its session"
    assert outcome.reported, f"{name} ({claim}): the differential engine reported nothing"


@pytest.mark.parametrize("api", ["bench", "benchsdk"])
def test_an_unmodified_wrapper_changes_nothing_and_nothing_is_reported(api):
    """The measurement's own baseline: the drift wrapper rewriting nothing changes no answer, and the
    engine reports nothing on the catalogue's sessions."""
    *_, check, app = entries(api)[0]
    outcome = measure(api, "unmodified", "-", lambda inner: Rewrite(inner, lambda *a: None), check, app)
    assert not outcome.changes and outcome.reported == [] and outcome.compared > 0


@pytest.mark.slow
@pytest.mark.parametrize("api", ["bench", "benchgen", "benchsdk", "benchwright"])
def test_the_catalogue_is_reported_at_80_percent(api):
    outcomes = run(api)
    changing = [o for o in outcomes if o.changes]
    reported = [o for o in changing if o.reported]
    share = len(reported) / len(changing)
    missed = [o.name for o in changing if not o.reported]
    assert share >= 0.8, f"{api}: {len(reported)} of {len(changing)} ({share:.0%}); missed {missed}"
