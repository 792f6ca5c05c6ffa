"""What you can run — platform models and connected agents (`GET /api/user_llm_models/`)."""

from __future__ import annotations

from typing import Any

from mock_server.engine import Ctx

from ..model.rows import LlmModel
from .common import caller, drf_page, handlers


def model_view(model: LlmModel) -> dict[str, Any]:
    return {
        "id": model.id,
        "name": model.name,
        "catalogue_id": model.catalogue_id,
        "kind": model.kind,
        "provider": model.provider,
    }


@handlers("listUserLlmModels")
async def list_user_llm_models(ctx: Ctx) -> dict[str, Any]:
    """Every id here works as `model_id` (B-19); the caller's connected agents are listed too (B-24)."""
    chunk, envelope = drf_page(ctx, ctx.store.visible_models(caller(ctx).user_id))
    return {**envelope, "results": [model_view(m) for m in chunk]}
