"""The toy's one semantic check: a body-key get-or-create (`client_key`)."""

from contracts.runner.claims import Drift
from contracts.runner.session import current

TOY = "tests.engine.toy.contract:CONTRACT"  # the runner names it; plain pytest (make test) too


def test_a_repeated_client_key_answers_the_first_widget():
    session = current(TOY)
    with session.client(headers={"X-Api-Key": session.env["TOY_API_KEY"]}) as client:
        first = client.post("/widgets/", json={"name": "a", "client_key": "k-1"})
        again = client.post("/widgets/", json={"name": "b", "client_key": "k-1"})
    if (first.status_code, again.status_code) != (201, 200) or again.json()["id"] != first.json()["id"]:
        raise Drift("toy.get_or_create", "POST /widgets/", f"{first.status_code} then {again.status_code}")
