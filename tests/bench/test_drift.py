"""The three-way catalog drift report (C-07, C-08): the SDK's pinned catalog, the target's list_operations,
our spec. A mock serving an altered copy of the spec must be reported; the real one must be clean."""

from __future__ import annotations

import shutil

import yaml
from starlette.testclient import TestClient

from contracts.bench.drift import pinned_catalog, render, spec_catalog, three_way
from mock_server.app import create_app
from mock_server.bench.spec_catalog import SPEC_DIR


def test_the_mock_and_the_spec_agree_with_the_pinned_catalog():
    served = TestClient(create_app(api="bench")).get("/api/headless/operations").json()
    report = three_way(pinned_catalog(), served, spec_catalog())
    assert report["clean"], render(report)


def test_a_target_that_drifted_is_reported(tmp_path):
    copy = tmp_path / "bench"
    shutil.copytree(SPEC_DIR, copy)
    systems = copy / "paths" / "systems.yaml"
    doc = yaml.safe_load(systems.read_text())
    doc["paths"]["/api/ai-systems"]["get"]["parameters"] = [
        {"name": "archived", "in": "query", "required": False, "schema": {"type": "string"}}
    ]
    del doc["paths"]["/api/ai-systems/{id}/edges"]
    systems.write_text(yaml.safe_dump(doc, sort_keys=False))
    served = TestClient(create_app(api="bench", spec_dir=copy)).get("/api/headless/operations").json()
    report = three_way(pinned_catalog(), served, spec_catalog())
    rows = {r["id"]: r for r in report["drift"]}
    assert not report["clean"]
    assert rows["list_systems"]["differs"] == {"target": ["query"]}
    assert rows["add_system_connection"]["target"] is False and rows["add_system_connection"]["spec"] is True
    assert "| add_system_connection | yes | MISSING | yes |" in render(report)
