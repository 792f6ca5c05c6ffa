"""The drift catalogue against staging: each drift a client can see through the public operations
is caught when the drifted mock is served as a deployment (its control surface off, its clock in
real time, only the credentials it printed), as it is against the mock in embedded mode.

The drifts taken are those each catalogue checks with the crawl or, for Bench, the conventions
check of every read: checks that read the target's own data through its public operations. The
catalogues' other drifts are caught by checks that make their world through `/__mock` (fresh
users, benchmarks, the simulated clock); `tests/modes` runs the suites themselves in staging mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mock_server.apis import profile
from mock_server.app import create_app
from tests.drift import test_bench, test_benchgen, test_benchsdk, test_benchwright
from tests.drift.harness import caught, crawl_drifts, served


def _staging(api: str, wrap: Callable[[Any], Any]) -> tuple[Any, dict[str, str]]:
    chosen = profile(api)
    app = create_app(api=api, control=False, clock_scale=1.0, **chosen.serve_options)
    printed = dict(chosen.ready_credentials(app.state.api)) if chosen.ready_credentials else {}
    return wrap(app), printed


def _cases() -> list[tuple[str, str, str, Any, Callable[[str, dict[str, str]], Any]]]:
    cases = []
    for name, _, claim, wrap, check in test_benchwright.DRIFTS:
        if check is test_benchwright.CRAWL:
            cases.append(("benchwright", name, claim, wrap, lambda url, env: crawl_drifts("benchwright", url, env)))
    for name, _, claim, wrap, check in test_bench.DRIFTS:
        cases.append(("bench", name, claim, wrap, lambda url, env, check=check: check(url)))
    for api, module in (("benchsdk", test_benchsdk), ("benchgen", test_benchgen)):
        for name, _, claim, wrap in module.DRIFTS:
            cases.append((api, name, claim, wrap, lambda url, env, api=api: crawl_drifts(api, url, env)))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("api", "name", "claim", "wrap", "check"), CASES, ids=[f"{c[0]}:{c[2]}:{c[1]}" for c in CASES])
def test_a_drift_visible_through_public_operations_is_caught_on_staging(api, name, claim, wrap, check):
    app, printed = _staging(api, wrap)
    with served(app) as url:
        found = caught(lambda: check(url, printed))
    assert claim in found, f"{api} {name} on staging: expected {claim!r}; reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("api", ["benchwright", "bench", "benchsdk", "benchgen"])
def test_the_clean_server_shows_no_drift_on_staging(api):
    app, printed = _staging(api, lambda app: app)
    with served(app) as url:
        found = caught(lambda: crawl_drifts(api, url, printed))
    assert not found, f"{api}: drift reported on the clean server served as staging: {sorted(found)}"
