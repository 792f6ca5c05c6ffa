"""Typed rows of BenchGen's state. Ids are integers, as in the reference's examples."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class ParticipantStatus(StrEnum):
    APPROVED = "approved"
    PENDING = "pending"


class RunState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"

    @property
    def done(self) -> bool:
        return self in (RunState.COMPLETED, RunState.FAILED)


class ModelSource(StrEnum):
    PLATFORM = "platform"
    EXTERNAL = "external"
    HUGGINGFACE = "huggingface"


@dataclass(slots=True, kw_only=True)
class User:
    id: int
    credits: int


@dataclass(slots=True, kw_only=True)
class Token:
    """Only the secret's SHA-256 is kept (Security & control, B-46)."""

    id: int
    user_id: int
    scopes: tuple[str, ...]
    secret_sha256: str
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(slots=True, kw_only=True)
class Question:
    index: int
    question: str
    answer: str


@dataclass(slots=True, kw_only=True)
class Competition:
    id: int
    name: str
    slug: str
    description: str
    auto_approve: bool
    published: bool
    run_cost_credits: int
    questions: tuple[Question, ...]
    # the run simulation's pace, in simulated seconds
    queue_seconds: int = 5
    seconds_per_question: int = 2
    poll_interval_seconds: int = 5


@dataclass(slots=True, kw_only=True)
class Participation:
    competition_id: int
    user_id: int
    status: ParticipantStatus


@dataclass(slots=True, kw_only=True)
class LlmModel:
    """A platform model, or a connected agent (`kind="agent"`, owned by one user)."""

    id: int
    name: str
    catalogue_id: str
    kind: str
    provider: str
    skill: float  # the simulated chance of answering a question right
    owner_id: int | None = None

    def visible_to(self, user_id: int) -> bool:
        return self.owner_id is None or self.owner_id == user_id


@dataclass(slots=True, kw_only=True)
class ItemResult:
    index: int
    question: str
    expected_answer: str
    model_answer: str | None
    correct: bool


@dataclass(slots=True, kw_only=True)
class Submission:
    """One run. Holds no credential of an external endpoint (B-31)."""

    id: int
    competition_id: int
    user_id: int
    source: ModelSource
    model_id: int | None
    model_label: str
    model_key: str  # what the simulation keys answers on
    skill: float
    credits_charged: int
    queued_at: datetime
    state: RunState = RunState.QUEUED
    finished_at: datetime | None = None
    score: float | None = None
    error: str | None = None
    items: list[ItemResult] = field(default_factory=list)
    forced_correct: int | None = None  # set when a finish is forced with a score


@dataclass(slots=True, kw_only=True)
class LeaderboardEntry:
    submission_id: int
    user_id: int
    model_label: str
    score: float
    finished_at: datetime
