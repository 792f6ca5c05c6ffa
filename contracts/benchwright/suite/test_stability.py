"""§17 deprecation headers: a response that announces a deprecation carries the whole set
the reference shows (`Deprecation: true`, an HTTP-date `Sunset`, a `Link` with
`rel="deprecation"`), never a part of it. Pre-GA nothing need be deprecated, so a target
that announces nothing passes; the check reads the account's main collections only.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import expect
from contracts.benchwright.suite.conftest import OPERATIONS

# read operations without path parameters: what any client calls first
READS = sorted(
    (operation_id, path)
    for operation_id, (method, path, _) in OPERATIONS.items()
    if method == "GET" and "{" not in path and ":" not in path.rsplit("/", 1)[-1] and "stream" not in operation_id
)


def _http_date(value: str) -> bool:
    try:
        return parsedate_to_datetime(value) is not None
    except (TypeError, ValueError):
        return False


def test_deprecations_are_announced_whole(client):
    """§17: `Deprecation` or `Sunset` on a response comes with all three headers, well formed:
    `Deprecation: true` (§17#1, `deprecation.headers`), an HTTP-date `Sunset` (§17#2), a `Link` with
    `rel="deprecation"` (§17#3)."""
    for operation_id, path in READS:
        response = client.get(path)
        headers = response.headers
        if "deprecation" not in headers and "sunset" not in headers:
            continue
        links = headers.get("link", "")
        shown = (
            f"{operation_id} announces Deprecation={headers.get('deprecation')!r} Sunset={headers.get('sunset')!r} "
            f"Link={links!r}"
        )
        expect(headers.get("deprecation") == "true", "deprecation.headers", f"GET {path}", shown, response)
        expect(_http_date(headers.get("sunset", "")), "§17#2", f"GET {path}", shown, response)
        expect('rel="deprecation"' in links.replace("'", '"'), "§17#3", f"GET {path}", shown, response)
