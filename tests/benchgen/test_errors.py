"""The DRF error body, and the rule that a validation message never quotes a submitted value (B-31).

The engine's validators are built with jsonschema-rs' `mask`, so a 400 names the field
and the rule, never the value: an external endpoint's key sent where it does not belong
(or too long, or of the wrong type) never comes back in a response."""

from __future__ import annotations

import pytest

from mock_server.benchgen import fixtures
from mock_server.benchgen.profile import PROFILE
from mock_server.engine import Problem

SECRET = "sk-contract-never-echoed-0001"
GSM = 123


@pytest.mark.parametrize(
    "body",
    [
        {"competition_id": GSM, "model_source": "external", "model_url": "https://x.test/v1", "model_name": "m",
         "model_token": SECRET * 200},  # too long
        {"competition_id": GSM, "model_source": SECRET},  # not one of the sources
        {"competition_id": GSM, "model_id": SECRET},  # wrong type
        {"competition_id": SECRET, "model_token": SECRET},  # oneOf over the whole body
    ],
)  # fmt: skip
def test_validation_messages_never_quote_the_submitted_value(bench, body):
    """B-31: whatever keyword fails, the 400 keeps the field and the rule and drops the value."""
    response = bench.client.post("/models/api/queue_benchmark_run", json=body, headers=bench.auth())
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert SECRET not in response.text


def test_drf_shape_with_the_engine_code_renamed():
    """Error format: {"detail", "code", **fields}; the engine's invalid_argument is DRF's `invalid`."""
    response = PROFILE.errors.render(Problem(400, "invalid_argument", "body: bad", field="body"), None)
    assert response.status_code == 400
    assert response.body == b'{"detail":"body: bad","code":"invalid","field":"body"}'
    other = PROFILE.errors.render(Problem(402, "insufficient_credits", "Not enough credits.", wait=1), None)
    assert other.body == b'{"detail":"Not enough credits.","code":"insufficient_credits","wait":1}'
    assert fixtures.DEMO_TOKEN.startswith("bgn_")
