"""Retention (`model/retention.py`): a mock up for days keeps the newest finished runs of
each owner, never one still in flight nor one the fixtures seeded."""

from __future__ import annotations

from mock_server.app import create_app
from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model.retention import DEFAULT_KEEP
from tests.benchwright.conftest import SpecCheckedClient

LAUNCH = {"request": "Run MMLU Abstract Algebra via OpenRouter", "model": {"model": "qwen/qwen3-32b"}}


def _client(**config) -> SpecCheckedClient:
    return SpecCheckedClient(create_app(**config)).as_token(["full"])


def _account(api: SpecCheckedClient) -> SpecCheckedClient:
    """A fresh account of its own (no seeded runs), with the §13 ceilings raised."""
    quota = {"read_rpm": 10**6, "write_rpm": 10**6, "max_run_concurrency": 100}
    user = api.user(tier="scale", balance_cents=10**6, quota_overrides=quota)
    own = api.anonymous().as_token(["full"], user_id=user["id"])
    assert own.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-x"}).status_code == 201
    return own


def _launch(api: SpecCheckedClient) -> str:
    response = api.post("/v1/runs", json=LAUNCH)
    assert response.status_code == 202, response.text
    return response.json()["id"]


def _finish(api: SpecCheckedClient, run_id: str) -> None:
    assert api.http.post(f"/__mock/runs/{run_id}/finish", json={"status": "ok"}).status_code == 200


def _listed(api: SpecCheckedClient) -> list[str]:
    return [run["id"] for run in api.get("/v1/runs?limit=100").json()["data"]]


def test_the_default_keeps_a_thousand_finished_runs_per_owner():
    assert DEFAULT_KEEP == 1000
    assert create_app().state.api.config.keep_finished_runs == DEFAULT_KEEP


def test_the_newest_finished_runs_are_kept_with_their_events_and_the_oldest_let_go():
    api = _account(_client(keep_finished_runs=2))
    runs = [_launch(api) for _ in range(4)]
    for run_id in runs:
        _finish(api, run_id)
    kept, gone = runs[2:], runs[:2]
    assert sorted(_listed(api)) == sorted(kept)
    for run_id in kept:
        assert api.get(f"/v1/runs/{run_id}").status_code == 200
        assert api.get(f"/v1/runs/{run_id}/events").status_code == 200
        assert api.get(f"/v1/runs/{run_id}/tasks").status_code == 200
    for run_id in gone:  # gone as a deleted run is gone: run, events, tasks, artifacts
        for tail in ("", "/events", "/tasks", "/artifacts"):
            assert api.get(f"/v1/runs/{run_id}{tail}").status_code == 404, tail


def test_the_rule_counts_finish_order_as_the_clock_runs_them():
    api = _account(_client(keep_finished_runs=3))
    runs = [_launch(api) for _ in range(5)]
    api.advance(3600)  # every run goes through its phases and finishes
    api.get("/v1/runs")
    assert len(_listed(api)) == 3
    assert all(api.get(f"/v1/runs/{r}").json()["status"] == "ok" for r in _listed(api))
    assert set(_listed(api)) <= set(runs)


def test_a_run_still_in_flight_is_never_let_go():
    api = _account(_client(keep_finished_runs=1))
    running = [_launch(api) for _ in range(3)]
    finished = [_launch(api) for _ in range(3)]
    for run_id in finished:
        _finish(api, run_id)
    assert sorted(_listed(api)) == sorted([*running, finished[-1]])
    assert all(api.get(f"/v1/runs/{r}").json()["status"] == "running" for r in running)


def test_seeded_runs_are_never_let_go():
    api = _client(keep_finished_runs=1)
    seeded = [r for key, r in RUN_IDS.items() if key != "other_private"]
    launched = [_launch(api) for _ in range(3)]
    for run_id in launched:
        _finish(api, run_id)
    listed = _listed(api)
    assert set(seeded) <= set(listed)
    assert [r for r in listed if r in launched] == [launched[-1]]


def test_a_deleted_run_no_longer_counts_toward_the_rule():
    api = _account(_client(keep_finished_runs=2))
    first, second, third = (_launch(api) for _ in range(3))
    _finish(api, first)
    _finish(api, second)
    assert api.delete(f"/v1/runs/{second}").status_code == 200
    _finish(api, third)
    assert sorted(_listed(api)) == sorted([first, third])


def test_owners_are_counted_apart():
    base = _client(keep_finished_runs=1)
    one, two = _account(base), _account(base)
    mine = [_launch(one) for _ in range(2)]
    theirs = _launch(two)
    for run_id in [*mine, theirs]:
        _finish(base, run_id)
    assert _listed(one) == [mine[-1]]
    assert _listed(two) == [theirs]


def test_none_keeps_every_run():
    api = _account(_client(keep_finished_runs=None))
    runs = [_launch(api) for _ in range(5)]
    for run_id in runs:
        _finish(api, run_id)
    assert sorted(_listed(api)) == sorted(runs)
