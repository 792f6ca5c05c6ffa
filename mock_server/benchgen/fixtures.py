"""Seed data: the same ids, token and answers on every start and after every reset.

- user 1, the demo user, with 1000 credits left after its seeded run (a hundred runs), and the demo token
  `DEMO_TOKEN` carrying `benchmark:read benchmark:run`;
- competitions: 121 "MMLU Mini" (auto-approve; user 1 joined it and has finished run 789),
  123 "GSM8K Grade-School Math" (auto-approve, the one `search=gsm8k` finds),
  124 "ARC Challenge (curated)" (an organizer approves each participant),
  125 "GSM8K Hard (draft)" (unpublished: never listed, never joinable);
- models: 456 gpt-4o-mini and 457 llama-3.1-8b-instruct (platform), 458 user 1's connected
  OpenClaw agent.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from .model.rows import LlmModel, ModelSource, Question
from .model.state import RunRequest, Store

DEMO_USER_ID = 1
DEMO_TOKEN_ID = 1
DEMO_TOKEN = "bgn_demo_0123456789abcdef0123456789abcdef"
DEMO_SCOPES = ("benchmark:read", "benchmark:run")
DEMO_CREDITS = 1000
# Narrower tokens of the demo user, printed beside DEMO_TOKEN so a contract run against a
# deployment (or this mock with its control surface off) can check the scopes (B-43, B-44):
# tokens are minted in the web app only (B-42), so a deployment's operator hands them over.
ROLE_TOKENS = {
    "BENCHGEN_TOKEN_READ": (2, "bgn_demo_read_0123456789abcdef012345678", ("benchmark:read",)),
    "BENCHGEN_TOKEN_RUN": (3, "bgn_demo_run_0123456789abcdef0123456789", ("benchmark:run",)),
    "BENCHGEN_TOKEN_NOSCOPE": (4, "bgn_demo_none_0123456789abcdef01234567", ()),
}

MMLU_ID = 121
GSM8K_ID = 123
CURATED_ID = 124
DRAFT_ID = 125
GPT_MINI_ID = 456
LLAMA_ID = 457
AGENT_ID = 458
FINISHED_RUN_ID = 789

GSM8K_QUESTIONS = (
    ("A baker fills 12 trays with 8 rolls each and sells 30 rolls. How many rolls are left?", "66"),
    ("Mia reads 15 pages a day. How many pages does she read in two weeks?", "210"),
    ("A bus holds 48 people. How many buses are needed for 200 people?", "5"),
    ("Tom has 3 times as many stamps as Ana, who has 14. How many stamps do they have together?", "56"),
    ("A shirt costs $25 and is 20% off. What does it cost now, in dollars?", "20"),
    ("A garden is 9 m by 7 m. A path takes 15 square metres. How many square metres are left for plants?", "48"),
    ("Sam saves $6 a week. After how many weeks does he have $84?", "14"),
    ("Four friends share 3 pizzas cut into 8 slices each equally. How many slices does each get?", "6"),
)
ARC_QUESTIONS = (
    ("Which gas do plants take in for photosynthesis? A) oxygen B) nitrogen C) carbon dioxide D) helium", "C"),
    ("What makes a compass needle point north? A) gravity B) Earth's magnetic field C) wind D) sunlight", "B"),
    ("Which is a renewable resource? A) coal B) oil C) natural gas D) wind", "D"),
    ("What state of matter has a fixed volume but no fixed shape? A) liquid B) solid C) gas D) plasma", "A"),
    ("Which organ pumps blood through the body? A) lungs B) liver C) heart D) kidney", "C"),
    ("What happens to water at 0 °C at sea level? A) it boils B) it freezes C) it evaporates D) nothing", "B"),
)
MMLU_QUESTIONS = (
    ("Which number is prime? A) 21 B) 27 C) 29 D) 33", "C"),
    ("Who wrote 'On the Origin of Species'? A) Darwin B) Newton C) Curie D) Mendel", "A"),
    ("What is the derivative of x^2? A) x B) 2x C) x^3 D) 2", "B"),
    ("Which planet is largest? A) Mars B) Venus C) Earth D) Jupiter", "D"),
    ("In economics, GDP stands for? A) Gross Domestic Product B) General Debt Plan C) Gold Deposit D) none", "A"),
    ("What is the chemical symbol of sodium? A) S B) So C) Na D) Sd", "C"),
)


def _questions(pairs: tuple[tuple[str, str], ...]) -> tuple[Question, ...]:
    return tuple(Question(index=i, question=q, answer=a) for i, (q, a) in enumerate(pairs))


def seed(now: datetime) -> Store:
    """A fresh store holding the fixtures, as of simulated time `now`."""
    store = Store(default_user_id=DEMO_USER_ID, template_questions=_questions(GSM8K_QUESTIONS))
    store.add_user(credits=DEMO_CREDITS + 10, user_id=DEMO_USER_ID)
    store.add_token(DEMO_USER_ID, DEMO_SCOPES, DEMO_TOKEN, now, token_id=DEMO_TOKEN_ID)
    for token_id, secret, scopes in ROLE_TOKENS.values():
        store.add_token(DEMO_USER_ID, scopes, secret, now, token_id=token_id)
    store.add_competition(
        competition_id=MMLU_ID,
        name="MMLU Mini",
        slug="mmlu-mini",
        description="Six multiple-choice questions across subjects.",
        run_cost_credits=10,
        questions=_questions(MMLU_QUESTIONS),
    )
    store.add_competition(
        competition_id=GSM8K_ID,
        name="GSM8K Grade-School Math",
        slug="gsm8k",
        description="Multi-step grade-school arithmetic word problems.",
        run_cost_credits=10,
        questions=_questions(GSM8K_QUESTIONS),
    )
    store.add_competition(
        competition_id=CURATED_ID,
        name="ARC Challenge (curated)",
        slug="arc-challenge-curated",
        description="Grade-school science; an organizer approves each participant.",
        auto_approve=False,
        run_cost_credits=20,
        questions=_questions(ARC_QUESTIONS),
    )
    store.add_competition(
        competition_id=DRAFT_ID,
        name="GSM8K Hard (draft)",
        slug="gsm8k-hard",
        description="Not published yet.",
        published=False,
        run_cost_credits=10,
        questions=_questions(GSM8K_QUESTIONS),
    )
    store.models[GPT_MINI_ID] = LlmModel(
        id=GPT_MINI_ID, name="gpt-4o-mini", catalogue_id="openai/gpt-4o-mini", kind="platform", provider="openai",
        skill=0.75,
    )  # fmt: skip
    store.models[LLAMA_ID] = LlmModel(
        id=LLAMA_ID, name="llama-3.1-8b-instruct", catalogue_id="meta-llama/Llama-3.1-8B-Instruct", kind="platform",
        provider="meta", skill=0.55,
    )  # fmt: skip
    store.models[AGENT_ID] = LlmModel(
        id=AGENT_ID, name="my-openclaw-agent", catalogue_id="openclaw/agent-458", kind="agent", provider="openclaw",
        skill=0.65, owner_id=DEMO_USER_ID,
    )  # fmt: skip
    # user 1's finished run on MMLU Mini, queued an hour ago
    store.register(MMLU_ID, DEMO_USER_ID)
    request = RunRequest(competition_id=MMLU_ID, source=ModelSource.PLATFORM, model_id=LLAMA_ID)
    store.queue_run(DEMO_USER_ID, request, now - timedelta(hours=1), submission_id=FINISHED_RUN_ID)
    store.advance(now)
    return store
