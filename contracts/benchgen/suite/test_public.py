"""Reads that are safe against any target: the public listing, the model list, refusals without a token.

B-03…B-09, B-19 (`contracts/benchgen/claims.py`).
"""

from __future__ import annotations

import pytest

from .conftest import OPERATIONS


def test_listing_is_public_searchable_and_paged(exchange):
    """B-05, B-06, B-07, B-09.1: no token needed; search filters; page_size bounds the page; every item has an
    integer id (the exchange's conventions check of each listing)."""
    everything = exchange.expect(exchange.call("listPublicCompetitions", token=None), "B-05", 200)
    found = exchange.expect(
        exchange.call("listPublicCompetitions", token=None, query={"search": "gsm8k", "page_size": 5}), "B-06", 200
    )
    if len(found.body["results"]) > 5:
        raise exchange.fail("B-07", found, "page_size=5 answered more than 5 items")
    nothing = exchange.call("listPublicCompetitions", token=None, query={"search": "zz-no-such-benchmark-zz"})
    exchange.expect(nothing, "B-06", 200)
    if nothing.body["results"] or nothing.body["count"] >= max(1, everything.body["count"]):
        raise exchange.fail("B-06", nothing, "a search that matches nothing still lists benchmarks")
    one = exchange.expect(exchange.call("listPublicCompetitions", token=None, query={"page_size": 1}), "B-07", 200)
    if len(one.body["results"]) > 1:
        raise exchange.fail("B-07", one, "page_size=1 answered more than one item")


def test_models_list_ids(exchange, token):
    """B-19, B-24: the models the token's user can run on, each with an id."""
    models = exchange.expect(exchange.call("listUserLlmModels", token=token), "B-19", 200)
    if not models.body["results"]:
        raise exchange.fail("B-19", models, "no model to run on")


SCOPED = sorted(op for op, (_, _, raw) in OPERATIONS.items() if {} not in raw["security"])


@pytest.mark.parametrize("operation_id", SCOPED)
def test_no_token_is_401(exchange, operation_id):
    """B-03: every operation but the listing needs the bearer token; nothing happens without it."""
    path = {"id": 1, "submission_id": 1}
    body = {"competition_id": 1, "model_id": 1} if operation_id == "queueBenchmarkRun" else None
    answer = exchange.call(operation_id, token=None, path=path, body=body)
    exchange.expect(answer, "B-03", 401)


@pytest.mark.parametrize("operation_id", ["listUserLlmModels", "getRunStatus"])
def test_a_token_not_issued_is_401(exchange, operation_id):
    """B-03, B-04: a made-up bgn_ token is refused."""
    answer = exchange.call(operation_id, token="bgn_contract_not_a_token", path={"submission_id": 1})
    exchange.expect(answer, "B-04", 401)
