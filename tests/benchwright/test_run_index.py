"""The runs listing read off the per-owner index (`model/run_index.py`) answers exactly what
the general path (filter, stable sort, cursor) answers: same runs, same order, same cursors
(§3.4, §3.5: newest first; runs created at the same instant in creation order)."""

from __future__ import annotations

from datetime import timedelta

from mock_server.app import create_app
from mock_server.benchwright.model.run_index import RunIndex
from tests.benchwright.conftest import SpecCheckedClient

LAUNCH = {"request": "Run MMLU Abstract Algebra via OpenRouter", "model": {"model": "qwen/qwen3-32b"}}
EVERY_STATUS = "status=in:running,ok,error"  # a filter every run passes: the general path, same order


def _pages(api: SpecCheckedClient, query: str, limit: int) -> list[tuple[list[str], dict]]:
    pages, token = [], None
    while True:
        url = f"/v1/runs?limit={limit}&{query}" + (f"&page_token={token}" if token else "")
        body = api.get(url).json()
        pages.append(([run["id"] for run in body["data"]], body["pagination"]))
        token = body["pagination"].get("next_page_token")
        if not body["pagination"]["has_more"]:
            return pages


def _launches(api: SpecCheckedClient, count: int) -> list[str]:
    ids = []
    for _ in range(count):
        response = api.post("/v1/runs", json=LAUNCH)
        assert response.status_code == 202, response.text
        ids.append(response.json()["id"])
    return ids


def test_index_and_general_path_agree_page_by_page():
    api = SpecCheckedClient(create_app()).as_token(["full"])  # the default user: seeded runs in the past
    _launches(api, 3)  # three at one instant (the clock is frozen)
    api.advance(1)
    _launches(api, 2)
    api.advance(0.5)
    _launches(api, 1)
    for limit in (1, 2, 3, 7, 100):
        fast, general = _pages(api, "sort=-created_at", limit), _pages(api, EVERY_STATUS, limit)
        assert fast == general, limit
    ids = [run_id for ids, _ in _pages(api, "", 100) for run_id in ids]
    created = [api.get(f"/v1/runs/{run_id}").json()["created_at"] for run_id in ids]
    assert created == sorted(created, reverse=True)


def test_a_cursor_whose_run_was_deleted_resumes_as_the_general_path_does():
    api = SpecCheckedClient(create_app()).as_token(["full"])
    _launches(api, 4)
    first = api.get("/v1/runs?limit=2").json()
    gone = first["data"][-1]["id"]
    assert api.delete(f"/v1/runs/{gone}").status_code == 200
    token = first["pagination"]["next_page_token"]
    resumed = api.get(f"/v1/runs?limit=2&page_token={token}").json()
    general = api.get(f"/v1/runs?limit=2&page_token={token}&{EVERY_STATUS}").json()
    assert resumed == general


def test_an_admin_listing_everyone_merges_every_owner_in_order():
    app = create_app()
    dev = SpecCheckedClient(app).as_token(["full"])  # the default user
    user = dev.user(admin=True, balance_cents=10**6, tier="scale")
    boss = dev.anonymous().as_token(["full"], user_id=user["id"])
    assert boss.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-x"}).status_code == 201
    _launches(boss, 2)
    _launches(dev, 2)
    for limit in (3, 100):
        assert _pages(boss, "scope=all", limit) == _pages(boss, f"scope=all&{EVERY_STATUS}", limit)


class _Run:
    def __init__(self, name: str, user_id: str, created_at) -> None:
        self.id, self.user_id, self.created_at, self.seq = name, user_id, created_at, 0


def test_runs_at_one_instant_list_in_creation_order_and_past_runs_slot_in():
    from mock_server.state.clock import DEFAULT_EPOCH as t

    index = RunIndex()
    runs = [
        _Run("a", "u", t),
        _Run("b", "u", t),
        _Run("c", "v", t + timedelta(seconds=1)),
        _Run("d", "u", t - timedelta(hours=1)),  # created in the past (a fixture)
        _Run("e", "v", t),
    ]
    for run in runs:
        index.add(run)
    assert [r.id for r in index.newest_first(["u", "v"])] == ["c", "a", "b", "e", "d"]
    assert [r.id for r in index.newest_first(["u", "v"], after=runs[1])] == ["e", "d"]
    assert [r.id for r in index.newest_first(["u"], after=runs[2])] == ["a", "b", "d"]
    index.remove(runs[0])
    assert [r.id for r in index.newest_first(["u"])] == ["b", "d"]
    assert [r.id for r in index.in_creation_order(["u", "v"])] == ["b", "c", "d", "e"]


def test_a_remembered_page_is_forgotten_when_a_run_is_added_or_removed():
    """§3.4, §3.5: a page read again after a launch or a delete holds the runs the walk would give."""
    from mock_server.state.clock import DEFAULT_EPOCH as t

    index = RunIndex()
    a, b = _Run("a", "u", t), _Run("b", "u", t + timedelta(seconds=1))
    index.add(a)
    assert [r.id for r in index.page(("u",), None, 2)] == ["a"]
    index.add(b)
    assert [r.id for r in index.page(("u",), None, 2)] == ["b", "a"]
    assert [r.id for r in index.page(("u",), b, 2)] == ["a"]
    index.remove(a)
    assert [r.id for r in index.page(("u",), None, 2)] == ["b"]
    assert index.page(("u",), b, 2) == []
    assert [r.id for r in index.page(("u",), None, 1)] == ["b"]


def test_pages_read_again_through_the_api_follow_launches_and_deletes():
    """§3.4, §4.3: the same `GET /v1/runs` before and after a launch and a delete answers the current runs."""
    api = SpecCheckedClient(create_app()).as_token(["full"])
    before = [run["id"] for run in api.get("/v1/runs?limit=3").json()["data"]]
    assert before == [run["id"] for run in api.get("/v1/runs?limit=3").json()["data"]]
    new = _launches(api, 1)[0]
    after = [run["id"] for run in api.get("/v1/runs?limit=3").json()["data"]]
    assert after == [new, *before[:2]]
    assert api.delete(f"/v1/runs/{new}").status_code == 200
    assert [run["id"] for run in api.get("/v1/runs?limit=3").json()["data"]] == before
