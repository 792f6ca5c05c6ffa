"""BenchGen's state and the rules that change it.

Every public method either changes the store consistently or raises a `DomainError`
before changing anything. Time always comes in as an argument (the simulated clock's
`now`); nothing here reads the wall clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from . import simulation
from .errors import DomainError, does_not_exist, not_found
from .rows import (
    Competition,
    LeaderboardEntry,
    LlmModel,
    ModelSource,
    ParticipantStatus,
    Participation,
    Question,
    RunState,
    Submission,
    Token,
    User,
)
from .tokens import secret_sha256

# ids handed out after the fixtures' own (which stay below this)
FIRST_DYNAMIC_ID = 1000


def arithmetic_questions(count: int) -> tuple[Question, ...]:
    """Plain sums, for a competition nobody gave questions to."""
    return tuple(
        Question(index=i, question=f"What is {i + 2} + {3 * i + 1}?", answer=str(4 * i + 3)) for i in range(count)
    )


@dataclass(slots=True, kw_only=True)
class RunRequest:
    """A queue request's model source, already shape-checked against the spec's schema."""

    competition_id: int
    source: ModelSource
    model_id: int | None = None
    model: str | None = None
    model_name: str | None = None
    model_token: str | None = None  # used for fingerprinting this run only; never kept


@dataclass(slots=True, kw_only=True)
class RunView:
    """What `run_status` reports about a run at one moment."""

    submission: Submission
    state: RunState
    check_again_seconds: int | None

    @property
    def done(self) -> bool:
        return self.state.done


@dataclass(slots=True)
class Store:
    users: dict[int, User] = field(default_factory=dict)
    tokens: dict[int, Token] = field(default_factory=dict)
    token_ids_by_hash: dict[str, int] = field(default_factory=dict)
    competitions: dict[int, Competition] = field(default_factory=dict)
    participations: dict[tuple[int, int], Participation] = field(default_factory=dict)
    models: dict[int, LlmModel] = field(default_factory=dict)
    submissions: dict[int, Submission] = field(default_factory=dict)
    active_submissions: set[int] = field(default_factory=set)
    leaderboards: dict[int, list[LeaderboardEntry]] = field(default_factory=dict)
    # submission id -> SHA-256 of the external endpoint's key, only while that run is in
    # flight (B-31): which key a run used, without keeping the key itself
    run_credentials: dict[int, str] = field(default_factory=dict)
    # (token id, submission id) -> (when polled, check_again_seconds answered)
    polls: dict[tuple[int, int], tuple[datetime, int]] = field(default_factory=dict)
    next_id: int = FIRST_DYNAMIC_ID
    # what the control surface falls back on: the user a token is minted for when none is named,
    # and the questions a competition created there asks (the seed sets both)
    default_user_id: int | None = None
    template_questions: tuple[Question, ...] = field(default_factory=lambda: arithmetic_questions(8))

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    # -- users and tokens (out of band: the web app, the mock's control surface) --

    def add_user(self, credits: int, user_id: int | None = None) -> User:
        if credits < 0:
            raise DomainError(400, "invalid", "credits must be a non-negative integer.", field="credits")
        user = User(id=self._new_id() if user_id is None else user_id, credits=credits)
        self.users[user.id] = user
        return user

    def add_token(
        self, user_id: int, scopes: tuple[str, ...], secret: str, now: datetime, token_id: int | None = None
    ) -> Token:
        if user_id not in self.users:
            raise DomainError(404, "not_found", f"No user {user_id}.")
        digest = secret_sha256(secret)
        if digest in self.token_ids_by_hash:
            raise DomainError(400, "invalid", "That secret is already in use.")
        token = Token(
            id=self._new_id() if token_id is None else token_id,
            user_id=user_id,
            scopes=tuple(dict.fromkeys(scopes)),
            secret_sha256=digest,
            created_at=now,
        )
        self.tokens[token.id] = token
        self.token_ids_by_hash[digest] = token.id
        return token

    def token_for_secret(self, secret: str) -> Token | None:
        token_id = self.token_ids_by_hash.get(secret_sha256(secret))
        return None if token_id is None else self.tokens[token_id]

    def revoke_token(self, token_id: int, now: datetime) -> Token:
        """Revoke; a second revocation keeps the first time (the window never restarts)."""
        token = self.tokens.get(token_id)
        if token is None:
            raise not_found(f"No token {token_id}.")
        if token.revoked_at is None:
            token.revoked_at = now
        return token

    # -- competitions and joining them --

    def add_competition(
        self,
        *,
        name: str,
        slug: str,
        description: str = "",
        auto_approve: bool = True,
        published: bool = True,
        run_cost_credits: int = 10,
        questions: tuple[Question, ...],
        competition_id: int | None = None,
    ) -> Competition:
        comp = Competition(
            id=self._new_id() if competition_id is None else competition_id,
            name=name,
            slug=slug,
            description=description,
            auto_approve=auto_approve,
            published=published,
            run_cost_credits=run_cost_credits,
            questions=questions,
        )
        self.competitions[comp.id] = comp
        self.leaderboards.setdefault(comp.id, [])
        return comp

    def public_competitions(self, search: str | None) -> list[Competition]:
        """Published competitions (B-08), by id; `search` matches name or slug, case-insensitively (B-06)."""
        needle = (search or "").strip().casefold()
        rows = [c for c in self.competitions.values() if c.published]
        if needle:
            rows = [c for c in rows if needle in c.name.casefold() or needle in c.slug.casefold()]
        return sorted(rows, key=lambda c: c.id)

    def published_competition(self, competition_id: int) -> Competition:
        comp = self.competitions.get(competition_id)
        if comp is None or not comp.published:
            raise not_found()
        return comp

    def register(self, competition_id: int, user_id: int) -> Participation:
        """Join (B-11…B-16): approved where the competition auto-approves, else pending; a repeat changes nothing."""
        comp = self.published_competition(competition_id)
        key = (comp.id, user_id)
        if key in self.participations:
            raise DomainError(400, "already_applied", "You have already applied to this competition.")
        status = ParticipantStatus.APPROVED if comp.auto_approve else ParticipantStatus.PENDING
        participation = Participation(competition_id=comp.id, user_id=user_id, status=status)
        self.participations[key] = participation
        return participation

    def approve(self, competition_id: int, user_id: int) -> Participation:
        """An organizer approves a pending participant (out of band); approving twice is harmless."""
        participation = self.participations.get((competition_id, user_id))
        if participation is None:
            raise not_found(f"User {user_id} has not applied to competition {competition_id}.")
        participation.status = ParticipantStatus.APPROVED
        return participation

    # -- models --

    def visible_models(self, user_id: int) -> list[LlmModel]:
        return sorted((m for m in self.models.values() if m.visible_to(user_id)), key=lambda m: m.id)

    def _resolve_platform_model(self, user_id: int, request: RunRequest) -> LlmModel:
        if request.model_id is not None:
            model = self.models.get(request.model_id)
            if model is None or not model.visible_to(user_id):
                raise does_not_exist("model_id", request.model_id)
            return model
        for model in self.visible_models(user_id):
            if request.model in (model.name, model.catalogue_id):
                return model
        raise does_not_exist("model", request.model)

    # -- runs --

    def queue_run(
        self, user_id: int, request: RunRequest, now: datetime, submission_id: int | None = None
    ) -> Submission:
        """Queue a run (B-18…B-31, B-49): every check first, then charge and create, so a refusal changes nothing."""
        user = self.users[user_id]
        comp = self.competitions.get(request.competition_id)
        if comp is None or not comp.published:
            raise does_not_exist("competition_id", request.competition_id)
        if request.source is ModelSource.PLATFORM:
            model = self._resolve_platform_model(user_id, request)
            model_id, label, key, skill = model.id, model.name, f"model:{model.id}", model.skill
        else:
            assert request.model_name is not None
            model_id, label = None, request.model_name
            key = f"{request.source.value}:{request.model_name}"
            skill = simulation.skill_for_name(key)
        participation = self.participations.get((comp.id, user_id))
        if participation is None:
            raise DomainError(400, "not_participant", "You have not joined this competition.")
        if participation.status is not ParticipantStatus.APPROVED:
            raise DomainError(400, "participation_pending", "Your participation is pending approval by an organizer.")
        if user.credits < comp.run_cost_credits:
            raise DomainError(
                402,
                "insufficient_credits",
                "Not enough credits.",
                credits_required=comp.run_cost_credits,
                credits_available=user.credits,
            )
        user.credits -= comp.run_cost_credits
        sub = Submission(
            id=self._new_id() if submission_id is None else submission_id,
            competition_id=comp.id,
            user_id=user_id,
            source=request.source,
            model_id=model_id,
            model_label=label,
            model_key=key,
            skill=skill,
            credits_charged=comp.run_cost_credits,
            queued_at=now,
        )
        self.submissions[sub.id] = sub
        self.active_submissions.add(sub.id)
        if request.model_token is not None:
            self.run_credentials[sub.id] = secret_sha256(request.model_token)
        return sub

    def submission_for(self, user_id: int, submission_id: int) -> Submission:
        """The caller's own run; another user's is 404, so existence does not leak."""
        sub = self.submissions.get(submission_id)
        if sub is None or sub.user_id != user_id:
            raise not_found()
        return sub

    def advance(self, now: datetime) -> None:
        """Bring every run in flight up to `now`."""
        for submission_id in sorted(self.active_submissions):
            self._advance_one(self.submissions[submission_id], now)

    def _advance_one(self, sub: Submission, now: datetime) -> None:
        if sub.state.done:
            return
        comp = self.competitions[sub.competition_id]
        state = simulation.state_at(sub, comp, now)
        if state is RunState.COMPLETED:
            self._complete(sub, comp, simulation.completes_at(sub, comp))
        else:
            sub.state = state

    def _complete(self, sub: Submission, comp: Competition, at: datetime, score: float | None = None) -> None:
        sub.items = simulation.results(sub, comp, len(comp.questions))
        sub.score = simulation.score_of(sub.items) if score is None else score
        sub.state = RunState.COMPLETED
        sub.finished_at = at
        board = self.leaderboards.setdefault(comp.id, [])
        board.append(
            LeaderboardEntry(
                submission_id=sub.id, user_id=sub.user_id, model_label=sub.model_label, score=sub.score, finished_at=at
            )
        )
        board.sort(key=lambda e: (-e.score, e.finished_at, e.submission_id))
        self._retire(sub)

    def _fail(self, sub: Submission, comp: Competition, at: datetime, error: str) -> None:
        sub.items = simulation.results(sub, comp, simulation.answered_at(sub, comp, at))
        sub.state = RunState.FAILED
        sub.error = error
        sub.finished_at = at
        self._retire(sub)

    def _retire(self, sub: Submission) -> None:
        """A finished run drops its endpoint credential and its poll pacing."""
        self.active_submissions.discard(sub.id)
        self.run_credentials.pop(sub.id, None)
        for key in [k for k in self.polls if k[1] == sub.id]:
            del self.polls[key]

    def finish(self, submission_id: int, now: datetime, *, score: float | None, error: str | None) -> Submission:
        """Force a run to finish now (the mock's control surface): with `score`, `error`, or as simulated."""
        sub = self.submissions.get(submission_id)
        if sub is None:
            raise not_found(f"No submission {submission_id}.")
        self._advance_one(sub, now)
        if sub.state.done:
            raise DomainError(409, "conflict", "The run has already finished.")
        if score is not None and error is not None:
            raise DomainError(400, "invalid", "Give a score or an error, not both.")
        if score is not None and not 0 <= score <= 1:
            raise DomainError(400, "invalid", "score must be between 0 and 1.", field="score")
        comp = self.competitions[sub.competition_id]
        if error is not None:
            self._fail(sub, comp, now, error)
        elif score is not None:
            sub.forced_correct = round(score * len(comp.questions))
            self._complete(sub, comp, now, score=score)
        else:
            self._complete(sub, comp, now)
        return sub

    def run_view(self, sub: Submission, now: datetime) -> RunView:
        self._advance_one(sub, now)
        comp = self.competitions[sub.competition_id]
        return RunView(
            submission=sub, state=sub.state, check_again_seconds=simulation.check_again_seconds(sub, comp, now)
        )

    def poll(self, token_id: int, sub: Submission, now: datetime) -> RunView:
        """`run_status` for one token: an early poll of a run in flight is throttled (B-37) and not counted."""
        view = self.run_view(sub, now)
        key = (token_id, sub.id)
        if view.done:
            self.polls.pop(key, None)
            return view
        last = self.polls.get(key)
        if last is not None:
            allowed_at = last[0] + timedelta(seconds=last[1])
            if now < allowed_at:
                wait = max(1, math.ceil((allowed_at - now).total_seconds()))
                raise DomainError(
                    429, "throttled", f"Request was throttled. Expected available in {wait} seconds.", wait=wait
                )
        assert view.check_again_seconds is not None
        self.polls[key] = (now, view.check_again_seconds)
        return view

    def item_results(self, sub: Submission, now: datetime) -> list:
        """A finished run's per-question results (B-39…B-41); before done, 400 run_not_finished."""
        self._advance_one(sub, now)
        if not sub.state.done:
            raise DomainError(400, "run_not_finished", "The run has not finished yet.")
        return list(sub.items)
