"""API reference 1 — Find a benchmark, 2 — Join it, through the app (B-05…B-17)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from mock_server.benchgen import fixtures

LISTING = "/api/competitions/public/"


def test_search_finds_the_published_gsm8k_only(bench):
    """B-06, B-08, B-09: search=gsm8k lists the published benchmark with an id; the draft stays out."""
    response = bench.client.get(LISTING, params={"search": "gsm8k"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1 and body["next"] is None and body["previous"] is None
    [item] = body["results"]
    assert item["id"] == fixtures.GSM8K_ID and item["slug"] == "gsm8k" and item["auto_approve"] is True
    assert fixtures.DRAFT_ID not in [c["id"] for c in bench.client.get(LISTING).json()["results"]]


def test_search_is_case_insensitive_and_may_match_nothing(bench):
    """B-06 (PROPOSAL B.3-5): a case-insensitive substring of name or slug."""
    assert [c["id"] for c in bench.client.get(LISTING, params={"search": "ARC chall"}).json()["results"]] == [
        fixtures.CURATED_ID
    ]
    empty = bench.client.get(LISTING, params={"search": "zzz-nothing"}).json()
    assert empty == {"count": 0, "next": None, "previous": None, "results": []}


def test_page_size_and_page_walk_every_item_once(bench):
    """B-07 (PROPOSAL B.3-4): page_size pages the list; following `next` yields each id once."""
    for i in range(4):
        assert bench.client.post("/__mock/competitions", json={"name": f"Extra {i}"}).status_code == 201
    everything = bench.client.get(LISTING, params={"page_size": 100}).json()
    seen, url = [], f"{LISTING}?page_size=2"
    while url:
        page = bench.client.get(url).json()
        assert len(page["results"]) <= 2
        seen += [c["id"] for c in page["results"]]
        url = page["next"]
        if url:
            parts = urlsplit(url)
            assert parse_qs(parts.query)["page_size"] == ["2"]
            url = parts.path + "?" + parts.query
    assert seen == [c["id"] for c in everything["results"]]
    assert len(seen) == everything["count"] == 7
    last = bench.client.get(LISTING, params={"page_size": 2, "page": 4}).json()
    assert last["next"] is None and last["previous"] is not None


def test_page_size_is_clamped_not_refused(bench):
    """B-07: the spec's x-clamp: above 100 is 100, below 1 is 1, absent is 20."""
    clamp = bench.api.spec["components"]["parameters"]["PageSize"]["x-clamp"]
    for _ in range(25):
        bench.client.post("/__mock/competitions", json={"name": "Filler"})
    assert len(bench.client.get(LISTING).json()["results"]) == clamp["default"]
    assert len(bench.client.get(LISTING, params={"page_size": 1000}).json()["results"]) == 28
    assert len(bench.client.get(LISTING, params={"page_size": 0}).json()["results"]) == clamp["minimum"]


def test_page_past_the_end_is_404_and_bad_numbers_are_400(bench):
    """DRF's "Invalid page." for a page past the last; a non-integer is the engine's 400 `invalid`."""
    response = bench.client.get(LISTING, params={"page": 99})
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page.", "code": "not_found"}
    response = bench.client.get(LISTING, params={"page": "two"})
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_join_auto_approved_is_201_approved(bench):
    """B-10, B-11, B-14: joining an auto-approving benchmark answers 201 approved."""
    response = bench.join(fixtures.GSM8K_ID)
    assert response.status_code == 201
    assert response.json() == {"participant_status": "approved", "competition_id": fixtures.GSM8K_ID}


def test_join_twice_is_400_already_applied_and_changes_nothing(bench):
    """B-15, B-16: the repeat answers 400 "already applied"; the participation is the same."""
    assert bench.join(fixtures.CURATED_ID).json()["participant_status"] == "pending"
    before = dict(bench.store.participations)
    response = bench.join(fixtures.CURATED_ID)
    assert response.status_code == 400
    assert response.json()["code"] == "already_applied"
    assert "already applied" in response.json()["detail"]
    assert {k: (v.status,) for k, v in bench.store.participations.items()} == {
        k: (v.status,) for k, v in before.items()
    }


def test_join_needing_approval_is_pending_and_blocks_runs_until_approved(bench):
    """B-12, B-13, B-49: pending until an organizer approves; a run is refused meanwhile."""
    assert bench.join(fixtures.CURATED_ID).json()["participant_status"] == "pending"
    run = {"competition_id": fixtures.CURATED_ID, "model_id": fixtures.GPT_MINI_ID}
    refused = bench.queue(run)
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "Your participation is pending approval by an organizer.",
        "code": "participation_pending",
    }
    approve = f"/__mock/competitions/{fixtures.CURATED_ID}/participants/{fixtures.DEMO_USER_ID}/approve"
    assert bench.client.post(approve).status_code == 200
    assert bench.queue(run).status_code == 201


def test_join_unknown_or_unpublished_is_404(bench):
    """B-08, PROPOSAL B.3-8: only published benchmarks can be joined."""
    for cid in (fixtures.DRAFT_ID, 4242):
        response = bench.join(cid)
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_join_path_is_exact(bench):
    """Trailing slashes as documented, never a redirect (PROPOSAL B.3-23)."""
    response = bench.client.post(
        f"/api/competitions/{fixtures.GSM8K_ID}/register", headers=bench.auth(), follow_redirects=False
    )
    assert response.status_code == 404
    response = bench.client.get(f"/api/competitions/{fixtures.GSM8K_ID}/register/", headers=bench.auth())
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"
    response = bench.client.post("/api/competitions/abc/register/", headers=bench.auth())
    assert response.status_code == 400 and response.json()["code"] == "invalid"
