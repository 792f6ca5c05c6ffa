"""The spec's data (plans, links, limits, simulated durations), read once into a typed object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Config:
    plans: dict[str, dict[str, Any]]
    plan_order: tuple[str, ...]
    links: dict[str, str]
    environment: dict[str, Any]
    audience: str
    oauth_ttl: int
    session_ttl: int
    page: dict[str, int]
    simulation: dict[str, Any]
    providers: dict[str, list[str]]
    notice: dict[str, Any]
    login_providers: tuple[str, ...]
    catalog_version: int

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> Config:
        plans = spec["x-plans"]
        links = {k: v for k, v in spec["x-links"].items() if k != "description"}
        return cls(
            plans=plans["plans"],
            plan_order=tuple(plans["order"]),
            links=links,
            environment=spec["x-environment"],
            audience=spec["x-mcp-resource-audience"],
            oauth_ttl=spec["x-oauth-credential-ttl-seconds"],
            session_ttl=spec["x-session-ttl-seconds"],
            page={k: v for k, v in spec["x-page"].items() if k != "description"},
            simulation={k: v for k, v in spec["x-simulation"].items() if k != "description"},
            providers=spec["x-model-providers"],
            notice=spec["x-processing-notice"],
            login_providers=tuple(spec["x-login-providers"]),
            catalog_version=spec.get("x-catalog-version", 1),
        )

    def plan(self, plan_id: str) -> dict[str, Any]:
        return self.plans[plan_id]

    def price_plan(self, price_id: str) -> str | None:
        for plan_id, plan in self.plans.items():
            if plan.get("price_id") == price_id:
                return plan_id
        return None
