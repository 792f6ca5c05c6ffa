"""Runs of every kind, credit accounting, joins and the token surface.

- One run call covers every kind of model (B-25): a platform model by id (B-19), by name and by catalogue id
  (B-20), an OpenAI-compatible endpoint with and without its key (B-21, B-22), a Hugging Face model (B-23);
  each run is charged once, the credits left are the start less every charge, a refusal charges nothing,
  and each run finishes with a score (B-29, B-34).
- Polling sooner than `check_again_seconds` is 429 with `Retry-After`, and the early poll does not count
  (B-37, P-throttle).
- A join answers approved or pending (B-12); repeating it changes nothing (B-16); an unpublished benchmark is
  neither listed nor joinable (B-08).
- One token serves every operation it has scopes for (B-02); the API has no token operations (B-42, B-47).
- A run followed to its results: no score, error or item results before done, its own run_path, done and its
  score terminal (B-35.2, B-36, B-38, B-39, B-40, B-50); a failed run says why (B-35.1); credits of exactly
  one run's cost run it and the next is 402 (B-27); a connected agent runs like any model (B-24).

Runs spend credits: they run in a `World` (`contracts/benchgen/world.py`), a fresh user and benchmark on the
mock, the run's own account and a public benchmark on a deployment with --allow-spend. The join checks need
benchmarks that approve by hand and unpublished drafts, which only the mock's control surface makes; the
token-surface checks only read.
"""

from __future__ import annotations

import pytest

from ..exchange import Control, Exchange, drift
from ..world import World, json_body_accepted
from .conftest import BUNDLE

READ, RUN = "benchmark:read", "benchmark:run"
SCOPES = tuple(BUNDLE["x-scopes"]["scopes"])
# paths a token API would live at: none is documented, so each must be an ordinary 404 (or 405)
TOKEN_PATHS = ("/api/tokens/", "/api/platform_tokens/", "/api/auth/tokens/", "/api/user/tokens/")


def _credits_left(exchange: Exchange, token: str, cid: int, model_id: int):
    """One more platform run: its answer is the only place the API states a user's credits."""
    answer = exchange.call("queueBenchmarkRun", token=token, body={"competition_id": cid, "model_id": model_id})
    return exchange.expect(answer, "B-26", 201)


def check_every_kind_of_model_runs(exchange: Exchange, world: World) -> None:
    token, cid = world.token, world.competition
    listed = exchange.call("listUserLlmModels", token=token)
    models = [m for m in listed.body["results"] if m["kind"] == "platform"]
    if not models:
        raise exchange.fail("B-19", listed, "no platform model to run on")
    m = models[0]
    key = "sk-contract-" + "0" * 24
    exchange.secrets.add(key)
    url = "https://llm.example.com/v1/chat/completions"
    bodies = [
        ("B-19", {"model_id": m["id"]}),
        ("B-20", {"model": m["name"]}),
        ("B-20", {"model": m["catalogue_id"]}),
        ("B-21.1", {"model_source": "external", "model_url": url, "model_token": key, "model_name": "contract-model"}),
        ("B-21.2", {"model_source": "external", "model_url": url, "model_name": "contract-keyless"}),
        ("B-23", {"model_source": "huggingface", "model_name": "Qwen/Qwen2.5-0.5B-Instruct"}),
    ]
    # the credits before the first run: known on the mock; on a deployment, which states a user's credits only in a
    # run's answer, the first answer's remaining plus its charge (so a drift in that first answer goes unseen)
    start = world.credits
    spent = 0
    runs: list[tuple[str, int]] = []
    for claim, body in bodies:
        answer = exchange.call("queueBenchmarkRun", token=token, body={"competition_id": cid, **body})
        world.affordable(answer)
        json_body_accepted(exchange, answer)
        exchange.expect(answer, claim, 201)
        if start is None:
            start = answer.body["credits_remaining"] + answer.body["credits_charged"]
        spent += answer.body["credits_charged"]
        if answer.body["credits_charged"] <= 0 or answer.body["credits_remaining"] != start - spent:
            raise exchange.fail(
                "B-29", answer, f"charged {answer.body['credits_charged']}, left {answer.body['credits_remaining']}"
            )
        runs.append((claim, answer.body["submission_id"]))
    assert start is not None
    # refusals charge nothing: an unknown model, a URL that is not an https endpoint
    for claim, body in (
        ("B-20", {"model": "contract/no-such-model"}),
        ("B-22", {"model_source": "external", "model_url": "http://llm.example.com/v1/chat", "model_name": "x"}),
    ):
        answer = exchange.call("queueBenchmarkRun", token=token, body={"competition_id": cid, **body})
        exchange.expect(answer, claim, 400)
    last = _credits_left(exchange, token, cid, m["id"])
    charged, remaining = last.body["credits_charged"], last.body["credits_remaining"]
    if remaining != start - spent - charged:
        raise exchange.fail("B-29", last, f"refused runs were charged: {start - spent - charged} != {remaining}")
    for claim, sid in runs:
        world.finish(exchange, sid)
        polled = exchange.expect(exchange.call("getRunStatus", token=token, path={"submission_id": sid}), "B-33", 200)
        status = polled.body
        if status["done"] is not True or not isinstance(status["score"], int | float) or status["error"] is not None:
            raise exchange.fail("B-25", polled, f"a {claim} run did not finish with a score: {status}")


def check_polling_is_throttled(exchange: Exchange, world: World) -> None:
    token = world.token
    sid = world.queue(exchange)
    first = exchange.expect(exchange.call("getRunStatus", token=token, path={"submission_id": sid}), "B-33", 200)
    wait = first.body["check_again_seconds"]
    if first.body["done"] or not isinstance(wait, int) or wait < 1:
        raise exchange.fail("B-37.1", first, f"a queued run asks to poll again in {wait!r}")
    early = exchange.call("getRunStatus", token=token, path={"submission_id": sid}, expect_429=True)
    exchange.expect(early, "P-throttle", 429, "throttled")
    retry = int(early.response.headers.get("retry-after", "0"))
    if not 1 <= retry <= wait:
        raise exchange.fail("P-throttle", early, f"Retry-After {retry} for check_again_seconds {wait}")
    world.advance(retry)
    # the early poll did not count: a poll Retry-After later is answered
    exchange.expect(exchange.call("getRunStatus", token=token, path={"submission_id": sid}), "P-throttle", 200)


def check_joins(exchange: Exchange, control: Control) -> None:
    user = control.user(100)
    _, token = control.token(user, [READ, RUN])
    exchange.secrets.add(token)
    models = exchange.call("listUserLlmModels", token=token).body["results"]
    queue = {"model_id": models[0]["id"]}

    def run(cid: int):
        return exchange.call("queueBenchmarkRun", token=token, body={"competition_id": cid, **queue})

    for auto, status in ((True, "approved"), (False, "pending")):
        cid = control.competition(f"Contract join {status}", auto)
        if auto:  # the join comes before the run
            exchange.expect(run(cid), "B-49", 400, "not_participant")
        first = exchange.call("registerForCompetition", token=token, path={"id": cid})
        if first.status == 404:
            raise exchange.fail("B-10", first, f"the documented join route answers 404 for published benchmark {cid}")
        exchange.expect(first, "B-11", 201)
        if first.body.get("participant_status") not in ("approved", "pending"):
            raise exchange.fail("B-12", first, f"participant_status {first.body.get('participant_status')!r}")
        if first.body["participant_status"] != status:
            raise exchange.fail("B-14", first, f"auto_approve={auto} joined as {first.body['participant_status']}")
        if not auto:  # pending: an organizer approves first
            exchange.expect(run(cid), "B-13.1", 400, "participation_pending")
        exchange.expect(
            exchange.call("registerForCompetition", token=token, path={"id": cid}), "B-15", 400, "already_applied"
        )
        # the repeat changed nothing: an approved participant still runs, a pending one still waits
        if auto:
            exchange.expect(run(cid), "B-16", 201)
        else:
            exchange.expect(run(cid), "B-16", 400, "participation_pending")
            control.approve(cid, user)
            exchange.expect(run(cid), "B-13.2", 201)
    draft = control.competition("Contract unpublished draft", False, published=False)
    listed = exchange.call("listPublicCompetitions", token=None, query={"search": "Contract unpublished"})
    if any(row["id"] == draft for row in listed.body["results"]):
        raise exchange.fail("B-08", listed, f"the unpublished benchmark {draft} is listed")
    exchange.expect(exchange.call("registerForCompetition", token=token, path={"id": draft}), "B-08", 404)


def check_one_token_serves_the_api(exchange: Exchange, token: str, http, probe: bool = True) -> None:
    """Every operation the token has scopes for accepts it, the public listing too (B-02), and none returns its
    secret (B-46.1: the exchange holds the token among its secrets and scans every answer); the API offers no
    token operations: `probe` sends the POSTs that would create one (B-42) and the DELETEs that would revoke
    one (B-47)."""
    exchange.expect(exchange.call("listPublicCompetitions", token=token), "B-02", 200)
    exchange.expect(exchange.call("listUserLlmModels", token=token), "B-02", 200)
    for path in TOKEN_PATHS if probe else ():
        for method in ("POST", "DELETE"):
            target = path if method == "POST" else f"{path}1/"
            r = http.request(
                method, target, headers={"Authorization": f"Bearer {token}"}, json={"scopes": list(SCOPES)}
            )
            if r.status_code not in (404, 405):
                raise drift(
                    "B-42" if method == "POST" else "B-47",
                    f"{method} {target}",
                    f"a token operation answered {r.status_code}: {r.text[:200]}",
                    f"curl -X {method} '$BENCHGEN_API_URL{target}' -H 'Authorization: Bearer $BENCHGEN_TOKEN'",
                )


def _status(exchange: Exchange, token: str, sid: int):
    """The caller's own run's status: 404 is the documented route not serving it (B-32.1)."""
    answer = exchange.call("getRunStatus", token=token, path={"submission_id": sid})
    if answer.status == 404:
        raise exchange.fail("B-32.1", answer, f"run_status does not know the caller's own run {sid}")
    return exchange.expect(answer, "B-33", 200)


def check_a_run_to_its_results(exchange: Exchange, world: World) -> None:
    """Two runs followed from queued to their item results."""
    token = world.token
    sids = [world.queue(exchange), world.queue(exchange)]
    paths: dict[int, str] = {}
    for sid in sids:
        first = _status(exchange, token, sid)
        path = first.body.get("run_path")
        if not isinstance(path, str) or not path:
            raise exchange.fail("B-36.1", first, f"run_status carries no run_path: {path!r}")
        paths[sid] = path
        if first.body["done"]:
            continue  # a deployment may finish a run before its first poll
        if first.body.get("error") is not None:
            raise exchange.fail("B-35.2", first, f"an error before the run is done: {first.body['error']!r}")
        if first.body.get("score") is not None:
            raise exchange.fail("B-50", first, f"a score before done: {first.body['score']!r}")
        early = exchange.call("getItemResults", token=token, path={"submission_id": sid})
        exchange.expect(early, "B-40", 400, "run_not_finished")
    if paths[sids[0]] == paths[sids[1]]:
        raise exchange.fail("B-36.2", first, f"two runs share the run_path {paths[sids[0]]!r}")
    for sid in sids:
        world.finish(exchange, sid)
        done = _status(exchange, token, sid)
        if done.body["done"] is not True:
            raise exchange.fail("B-33", done, f"run {sid} is not done after the wait it asked for")
        if done.body.get("run_path") != paths[sid]:
            raise exchange.fail("B-36.2", done, f"run_path moved from {paths[sid]!r} to {done.body.get('run_path')!r}")
        if world.embedded:  # a minute on; a deployment's next poll is later anyway
            world.advance(60)
        again = _status(exchange, token, sid)
        if again.body["done"] is not True:
            raise exchange.fail("B-38.1", again, "a finished run is not done any more")
        if again.body.get("score") != done.body.get("score"):
            raise exchange.fail(
                "B-38.2", again, f"the score changed after done: {done.body['score']} -> {again.body['score']}"
            )
        exchange.expect(exchange.call("getItemResults", token=token, path={"submission_id": sid}), "B-39", 200)


def check_failed_run_says_why(exchange: Exchange, world: World, control: Control) -> None:
    """A run the platform fails (the mock's hook ends it with an error) is done, with error a message."""
    sid = world.queue(exchange)
    control.finish(sid, "The model endpoint did not answer.")
    failed = _status(exchange, world.token, sid)
    error = failed.body.get("error")
    if failed.body["done"] is not True or not isinstance(error, str) or not error:
        raise exchange.fail(
            "B-35.1", failed, f"a failed run does not say why: done={failed.body['done']}, error={error!r}"
        )


def check_credits_run_out(exchange: Exchange, control: Control) -> None:
    """Credits of exactly one run's cost: the run is queued (the boundary), the next is 402."""
    cid = control.competition("Contract credits", True)
    listed = exchange.call("listPublicCompetitions", token=None, query={"search": "Contract credits"})
    [item] = [row for row in listed.body["results"] if row["id"] == cid]
    cost = item["run_cost_credits"]
    user = control.user(cost)
    _, token = control.token(user, [READ, RUN])
    exchange.secrets.add(token)
    exchange.expect(exchange.call("registerForCompetition", token=token, path={"id": cid}), "B-11", 201)
    models = exchange.call("listUserLlmModels", token=token).body["results"]
    body = {"competition_id": cid, "model_id": models[0]["id"]}
    exchange.expect(exchange.call("queueBenchmarkRun", token=token, body=body), "B-26", 201)
    exchange.expect(exchange.call("queueBenchmarkRun", token=token, body=body), "B-27", 402, "insufficient_credits")


def check_agent_runs(exchange: Exchange, world: World, required: bool) -> None:
    """A connected agent is listed among the models (kind `agent`) and queued by its id like any model.
    `required`: the account is known to have one (the mock's seeded account); else no agent skips."""
    listed = exchange.expect(exchange.call("listUserLlmModels", token=world.token), "B-19", 200)
    agents = [m for m in listed.body["results"] if m.get("kind") == "agent"]
    if not agents:
        if required:
            raise exchange.fail("B-24", listed, "the account's connected agent is not listed with its models")
        pytest.skip("the account has no connected agent to run")
    sid = world.queue(exchange, claim="B-24", model_id=agents[0]["id"])
    _status(exchange, world.token, sid)


def test_a_run_to_its_results(exchange, world):
    """B-32.1, B-33, B-35.2, B-36.1, B-36.2, B-38.1, B-38.2, B-39, B-40, B-41.1, B-41.2, B-41.3, B-50: the run's
    status at its route; before done no score, no error and no item results (400 run_not_finished); each run has
    its own run_path, kept to the end; done stays done with its score; then the item results are served, each
    with the expected answer, the model's and whether it was right (the exchange's conventions check)."""
    check_a_run_to_its_results(exchange, world(name="Contract results"))


def test_a_failed_run_says_why(control, exchange, world):
    """B-35.1: a failed run is done and its error is a message."""
    check_failed_run_says_why(exchange, world(name="Contract failure"), control)


def test_credits_run_out(control, exchange):
    """B-27, B-29: the exact cost still runs; below it the run is 402 insufficient_credits."""
    check_credits_run_out(exchange, control)


def test_a_connected_agent_runs_like_any_model(target, http, exchange, token, spend):
    """B-24, B-09.2: the account's connected agent, listed with its models, queues through the same call, on the
    first listed benchmark (joined by its listed id)."""
    if target.embedded:
        Control(http).reset()
    check_agent_runs(exchange, World.on_deployment(exchange, token), required=target.embedded)


def test_every_kind_of_model_runs(exchange, world):
    """B-25, B-19, B-20, B-21.1, B-21.2, B-22, B-23, B-29, B-34: every model source queues through one call, each
    charged once, refusals charged nothing, and each finishes with a score."""
    check_every_kind_of_model_runs(exchange, world(credits=1000, name="Contract every model"))


def test_polling_is_throttled(exchange, world):
    """B-37.1, P-throttle: an early poll is 429 with Retry-After within check_again_seconds, and does not count."""
    check_polling_is_throttled(exchange, world(name="Contract throttle"))


def test_joins(control, exchange):
    """B-10, B-11, B-12, B-14, B-15, B-16, B-08, B-13.1, B-13.2, B-49: the join route answers 201 approved or
    pending; a run before joining, or while pending, is refused, and runs once approved; a repeat changes
    nothing; drafts are hidden."""
    check_joins(exchange, control)


def test_one_token_serves_the_api(target, http, exchange, token):
    """B-02, B-42, B-46.1, B-47: the one token reads everything it has scopes for, and no answer returns it;
    there is no token API."""
    # probing token-creating paths sends POSTs: against a live target only with --allow-writes
    check_one_token_serves_the_api(exchange, token, http, probe=target.embedded or target.policy.allow_writes)
