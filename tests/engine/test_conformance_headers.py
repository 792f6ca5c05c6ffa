"""What the contract runner sends with a generated case (`contracts/runner/conformance.py`): the
session's credentials, and never a generated header that frames the HTTP message."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis.errors import UnsatisfiedAssumption

from contracts.runner.conformance import FRAMING_HEADERS, Conformance

CREDENTIALS = {"Authorization": "Bearer t"}


class _Session:
    def headers(self, op, env):
        return dict(CREDENTIALS)


def _case(headers):
    return SimpleNamespace(headers=headers, meta=None)


def test_a_positive_case_goes_out_with_the_credentials():
    """§2.4 (auth): the session's credential is added to the generated headers."""
    sent = Conformance.case_headers(_Session(), _case({"X-Trace": "a"}), {}, {})
    assert sent == {"X-Trace": "a", **CREDENTIALS}


@pytest.mark.parametrize("name", ["content-length", "Content-Length", "Transfer-Encoding", "host"])
def test_a_case_that_generated_a_framing_header_is_discarded(name):
    """A generated `Content-Length: k` is answered 400 by the HTTP layer of any server before the API sees
    it (seed 27 met one on `GET /v1/tokens`); such a case checks no API claim, so it is not sent."""
    assert name.lower() in FRAMING_HEADERS
    with pytest.raises(UnsatisfiedAssumption):
        Conformance.case_headers(_Session(), _case({name: "k"}), {}, {})
