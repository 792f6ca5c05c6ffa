"""The state machine over token → join → run → poll → results (research §B.4).

Hypothesis drives a sequence of rules against a target and a small model of what the
reference promises; every answer is also judged by the conventions check (through
`Exchange`), so a leaked endpoint key or an undocumented code is a drift wherever it
shows up. What it walks:

- joining: 201 approved/pending by the competition's auto-approval, a repeat is 400
  already_applied and changes nothing (B-11…B-16);
- queueing on a platform model by id or name, or on an external endpoint with and
  without a key: 403 without benchmark:run, 400 not_participant / participation_pending
  before an approved join, 402 once credits run out, else 201 and the cost is spent
  (B-17…B-31, B-49);
- polling: 403 without benchmark:read, 404 for another user's run, 429 when sooner than
  check_again_seconds (P-throttle), done is terminal (B-32…B-38);
- results: 400 run_not_finished before done, after it the fraction right is the score
  (B-39…B-41);
- revocation: a revoked token keeps working while now < revoked_at + 60 s, then 401
  (B-48).

Against the embedded mock the machine mints users and tokens, creates its own
competitions, approves, revokes and moves the simulated clock through `/__mock`. Against
a live target it uses the one token it was given and real time: it joins and queues only
when the policy allows spending, never polls sooner than it was told, and queues at most
`LIVE_MAX_RUNS` runs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, multiple, precondition, rule

from .exchange import Answer, Control, Exchange, drift

READ, RUN = "benchmark:read", "benchmark:run"
SCOPE_SETS = ([READ, RUN], [READ], [RUN], [])
LIVE_MAX_RUNS = 2
EXTERNAL_URL = "https://llm.example.com/v1/chat/completions"


@dataclass
class Context:
    """What one machine run needs; set on the class before running it."""

    exchange: Exchange
    control: Control | None  # None: a live target
    token: str  # the target's token (BENCHGEN_TOKEN), assumed to carry both scopes
    revocation_seconds: float
    allow_spend: bool = False


@dataclass(eq=False)
class TokenM:
    secret: str
    user: Any
    scopes: frozenset[str]
    token_id: int | None = None
    revoked_at: datetime | None = None

    def __repr__(self) -> str:  # never print a secret in a falsifying example
        return f"TokenM(user={self.user!r}, scopes={sorted(self.scopes)}, revoked={self.revoked_at is not None})"


@dataclass(eq=False)
class RunM:
    submission_id: int
    user: Any
    done: bool = False
    score: float | None = None
    status: str | None = None
    polls: dict[int, tuple[datetime, int]] = field(default_factory=dict)  # id(token) -> (when, wait)

    def __repr__(self) -> str:
        return f"RunM({self.submission_id}, done={self.done})"


@dataclass
class CompetitionM:
    id: int
    auto_approve: bool | None
    cost: int | None


class BenchgenLifecycle(RuleBasedStateMachine):
    context: ClassVar[Context]
    tokens = Bundle("tokens")
    runs = Bundle("runs")

    def __init__(self) -> None:
        super().__init__()
        ctx = type(self).context
        self.x = ctx.exchange
        self.control = ctx.control
        self.window = timedelta(seconds=ctx.revocation_seconds)
        self.allow_spend = ctx.allow_spend
        self.credits: dict[Any, int | None] = {}
        self.joined: dict[tuple[Any, int], str | None] = {}  # None: unknown (a live account may have joined)
        self.competitions: dict[str, CompetitionM] = {}
        self.model: dict[str, Any] = {}
        self.queued = 0
        self.canaries = (f"sk-contract-{n:04d}-9f2c" for n in itertools.count())

    # -- time --

    def now(self) -> datetime:
        return self._now if self.control is not None else datetime.now(UTC)

    @property
    def embedded(self) -> bool:
        return self.control is not None

    # -- setup --

    @initialize(target=tokens)
    def start(self) -> TokenM:
        ctx = type(self).context
        if self.control is not None:
            self.control.reset()
            self._now = self.control.now()
            self.competitions["auto"] = self._made("Contract auto", True)
            self.competitions["manual"] = self._made("Contract manual", False)
        else:
            found = self.x.call("listPublicCompetitions", token=None, query={"search": "gsm8k", "page_size": 5})
            self.x.expect(found, "B-05", 200)
            if not found.body["results"]:
                raise drift("B-06", "listPublicCompetitions", "search=gsm8k (the reference's example) finds nothing")
            item = found.body["results"][0]
            self.competitions["auto"] = CompetitionM(item["id"], item.get("auto_approve"), item.get("run_cost_credits"))
        demo = TokenM(ctx.token, "given", frozenset({READ, RUN}))
        self.credits[demo.user] = None
        models = self.x.expect(self.x.call("listUserLlmModels", token=demo.secret), "B-19", 200).body["results"]
        platform = [m for m in models if m.get("kind", "platform") == "platform"] or models
        if not platform:
            raise drift("B-19", "listUserLlmModels", "no model to run on")
        self.model = platform[0]
        return demo

    def _made(self, name: str, auto: bool) -> CompetitionM:
        assert self.control is not None
        cid = self.control.competition(name, auto)
        listing = self.x.call("listPublicCompetitions", token=None, query={"search": name, "page_size": 100})
        [item] = [c for c in listing.body["results"] if c["id"] == cid]
        return CompetitionM(cid, auto, item.get("run_cost_credits"))

    # -- helpers --

    def _dead(self, token: TokenM) -> bool:
        return token.revoked_at is not None and self.now() >= token.revoked_at + self.window

    def _refused_by_auth(self, answer: Answer, token: TokenM, scope: str) -> bool:
        """401 for a dead token, 403 for a missing scope; True when the request stopped there."""
        if self._dead(token):
            self.x.expect(answer, "B-48", 401, "authentication_failed")
            return True
        if answer.status == 401:
            raise drift("B-48", answer.operation_id, "a token inside its revocation window was refused", answer.curl)
        if scope not in token.scopes:
            self.x.expect(answer, "B-44", 403, "permission_denied")
            return True
        if answer.status == 403:
            raise drift("B-43", answer.operation_id, f"a token carrying {scope} was refused", answer.curl)
        return False

    # -- rules: out of band (embedded only) --

    @precondition(lambda self: self.embedded)
    @rule(target=tokens, scopes=st.sampled_from(SCOPE_SETS), credits=st.sampled_from([0, 10, 25, 100]))
    def new_user_and_token(self, scopes: list[str], credits: int) -> TokenM:
        assert self.control is not None
        uid = self.control.user(credits)
        token_id, secret = self.control.token(uid, scopes)
        self.x.secrets.add(secret)
        self.credits[uid] = credits
        return TokenM(secret, uid, frozenset(scopes), token_id)

    @precondition(lambda self: self.embedded)
    @rule(token=tokens, scopes=st.sampled_from(SCOPE_SETS))
    def another_token_same_user(self, token: TokenM, scopes: list[str]) -> None:
        """B-43: a second token of the same user carries only its own scopes."""
        if token.token_id is None:
            return
        assert self.control is not None
        token_id, secret = self.control.token(token.user, scopes)
        self.x.secrets.add(secret)
        fresh = TokenM(secret, token.user, frozenset(scopes), token_id)
        answer = self.x.call("listUserLlmModels", token=fresh.secret)
        if not self._refused_by_auth(answer, fresh, READ):
            self.x.expect(answer, "B-19", 200)

    @precondition(lambda self: self.embedded)
    @rule(token=tokens)
    def revoke(self, token: TokenM) -> None:
        if token.token_id is None or token.revoked_at is not None:
            return
        assert self.control is not None
        self.control.revoke(token.token_id)
        token.revoked_at = self.now()

    @precondition(lambda self: self.embedded)
    @rule(seconds=st.sampled_from([1, 2, 5, 30, 59, 60, 600]))
    def advance(self, seconds: int) -> None:
        assert self.control is not None
        self._now = self.control.advance(seconds)

    @precondition(lambda self: self.embedded)
    @rule(token=tokens)
    def organizer_approves(self, token: TokenM) -> None:
        key = (token.user, self.competitions["manual"].id)
        if isinstance(token.user, int) and self.joined.get(key) == "pending":  # the given token's user id is unknown
            assert self.control is not None
            self.control.approve(key[1], token.user)
            self.joined[key] = "approved"

    # -- rules: the API --

    @precondition(lambda self: self.embedded or self.allow_spend)
    @rule(token=tokens, which=st.sampled_from(["auto", "manual"]))
    def join(self, token: TokenM, which: str) -> None:
        comp = self.competitions.get(which)
        if comp is None:
            return
        key = (token.user, comp.id)
        answer = self.x.call("registerForCompetition", token=token.secret, path={"id": comp.id})
        if self._refused_by_auth(answer, token, RUN):
            return
        if key in self.joined or (not self.embedded and answer.code == "already_applied"):
            self.x.expect(answer, "B-15", 400, "already_applied")
            self.joined.setdefault(key, None)
            return
        self.x.expect(answer, "B-11", 201)
        status = answer.body["participant_status"]
        if comp.auto_approve is not None and status != ("approved" if comp.auto_approve else "pending"):
            raise drift("B-14", "registerForCompetition", f"auto_approve={comp.auto_approve} but {status}", answer.curl)
        self.joined[key] = status

    @precondition(lambda self: self.embedded or (self.allow_spend and self.queued < LIVE_MAX_RUNS))
    @rule(
        target=runs,
        token=tokens,
        which=st.sampled_from(["auto", "manual"]),
        source=st.sampled_from(["model_id", "model", "external", "external_no_key"]),
    )
    def queue(self, token: TokenM, which: str, source: str):
        comp = self.competitions.get(which)
        if comp is None:
            return multiple()
        body: dict[str, Any] = {"competition_id": comp.id}
        if source == "model_id":
            body["model_id"] = self.model["id"]
        elif source == "model":
            body["model"] = self.model.get("name") or self.model.get("catalogue_id")
        else:
            body.update(model_source="external", model_url=EXTERNAL_URL, model_name="contract-model")
            if source == "external":
                key = next(self.canaries)
                self.x.secrets.add(key)
                body["model_token"] = key
        answer = self.x.call("queueBenchmarkRun", token=token.secret, body=body)
        if self._refused_by_auth(answer, token, RUN):
            return multiple()
        joined = self.joined.get((token.user, comp.id), "absent" if self.embedded else None)
        if joined is None and answer.code in ("not_participant", "participation_pending"):
            return multiple()  # live: an account whose participation the suite cannot read (B.3-9)
        if joined == "absent":
            self.x.expect(answer, "B-49", 400, "not_participant")
            return multiple()
        if joined == "pending":
            self.x.expect(answer, "B-13", 400, "participation_pending")
            return multiple()
        credits = self.credits.get(token.user)
        if credits is not None and comp.cost is not None:
            expected = 201 if credits >= comp.cost else 402
            self.x.expect(answer, "B-27" if expected == 402 else "B-26", expected)
        else:
            self.x.expect(answer, "B-26", {201, 402})
        if answer.status == 402:
            self.credits[token.user] = answer.body.get("credits_available", credits)
            return multiple()
        self.queued += 1
        remaining = answer.body.get("credits_remaining")
        if credits is not None and comp.cost is not None and remaining is not None and remaining != credits - comp.cost:
            raise self.x.fail("B-29", answer, f"credits {credits} - cost {comp.cost} != {remaining}")
        self.credits[token.user] = remaining
        return RunM(answer.body["submission_id"], token.user)

    def _poll_allowed_now(self, run: RunM, token: TokenM) -> bool:
        last = run.polls.get(id(token))
        return last is None or run.done or self.now() >= last[0] + timedelta(seconds=last[1])

    @rule(run=runs, token=tokens)
    def poll(self, run: RunM, token: TokenM) -> None:
        if not self.embedded and not self._poll_allowed_now(run, token):
            return  # live: never sooner than check_again_seconds said (B-37)
        answer = self.x.call("getRunStatus", token=token.secret, path={"submission_id": run.submission_id})
        if self._refused_by_auth(answer, token, READ):
            return
        if token.user != run.user:
            self.x.expect(answer, "B-32", 404, "not_found")
            return
        if not self._poll_allowed_now(run, token):
            if answer.status == 429 or (answer.status == 200 and answer.body["done"]):
                if answer.status == 200:
                    self._saw_status(run, answer)
                return
            raise self.x.fail("P-throttle", answer, "a poll sooner than check_again_seconds was answered")
        self.x.expect(answer, "B-33", 200)
        self._saw_status(run, answer)
        if not answer.body["done"]:
            run.polls[id(token)] = (self.now(), answer.body["check_again_seconds"])

    def _saw_status(self, run: RunM, answer: Answer) -> None:
        body = answer.body
        if run.done and not body["done"]:
            raise drift("B-38.1", "getRunStatus", "a finished run is not done any more", answer.curl)
        if run.done and body.get("score") != run.score:
            raise drift("B-38.2", "getRunStatus", f"the score changed after done: {run.score} -> {body.get('score')}")
        if body["done"]:
            run.done, run.score, run.status = True, body.get("score"), body.get("status")

    @rule(run=runs, token=tokens)
    def results(self, run: RunM, token: TokenM) -> None:
        answer = self.x.call("getItemResults", token=token.secret, path={"submission_id": run.submission_id})
        if self._refused_by_auth(answer, token, READ):
            return
        if token.user != run.user:
            self.x.expect(answer, "B-39", 404, "not_found")
            return
        if not run.done:
            self.x.expect(answer, "B-40", {200, 400})
            if answer.status == 400:
                self.x.expect(answer, "B-40", 400, "run_not_finished")
            return
        self.x.expect(answer, "B-39", 200)
        items = list(answer.body["results"])
        page = 1
        while answer.body.get("next"):
            page += 1
            answer = self.x.call(
                "getItemResults", token=token.secret, path={"submission_id": run.submission_id}, query={"page": page}
            )
            self.x.expect(answer, "B-39", 200)
            items += answer.body["results"]
        if run.score is not None and items:
            right = sum(1 for item in items if item["correct"])
            if abs(right / len(items) - run.score) > 1 / (2 * len(items)) + 1e-9:
                raise drift("B-34", "getItemResults", f"{right}/{len(items)} right but the score is {run.score}")

    def teardown(self) -> None:
        """B-31.1, B-46.1: on the embedded mock, the journal holds no key or token this run handed out."""
        if self.control is None:
            return
        journal = self.control.journal()
        leaked = [s for s in self.x.secrets if s in journal]
        if leaked:
            raise drift("B-31.1", "GET /__mock/requests", f"{len(leaked)} submitted secret(s) in the request journal")
