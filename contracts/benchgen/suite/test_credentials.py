"""External endpoint credentials are used for their run only (B-31): 0 occurrences anywhere after.

Queues runs on an external endpoint with a key (so on a live target it needs
--allow-spend), then reads everything a client can read; the exchange scans every
response for the key. Embedded, the request journal is scanned as well.
"""

from __future__ import annotations

EXTERNAL = {"model_source": "external", "model_url": "https://llm.example.com/v1/chat/completions"}


def test_endpoint_key_is_never_echoed(target, http, exchange, token, spend):
    """B-31.1: the key comes back in no answer, accepted or refused, nor (embedded) in the journal."""
    key = "sk-contract-credential-5b1e"
    exchange.secrets.add(key)
    if target.embedded:
        http.post("/__mock/reset")
    listing = exchange.call("listPublicCompetitions", token=None, query={"search": "gsm8k"})
    cid = exchange.expect(listing, "B-05", 200).body["results"][0]["id"]
    exchange.expect(exchange.call("registerForCompetition", token=token, path={"id": cid}), "B-11", {201, 400})
    body = {"competition_id": cid, **EXTERNAL, "model_name": "contract-model", "model_token": key}
    first = exchange.expect(exchange.call("queueBenchmarkRun", token=token, body=body), "B-26", 201)
    if target.embedded:
        # refused bodies carrying the key: the error message must not quote it either (a live server
        # might accept these readings of the mock's and spend again, so only the mock is asked)
        for refused in ({**body, "model_id": 1}, {**body, "model_url": "ftp://x"}, {**body, "model_token": key * 500}):
            exchange.expect(exchange.call("queueBenchmarkRun", token=token, body=refused), "B-31.1", 400)
    sid = first.body["submission_id"]
    exchange.call("getRunStatus", token=token, path={"submission_id": sid})
    if target.embedded:
        http.post("/__mock/clock", json={"advance_seconds": 3600})
        exchange.expect(exchange.call("getRunStatus", token=token, path={"submission_id": sid}), "B-34", 200)
        exchange.expect(exchange.call("getItemResults", token=token, path={"submission_id": sid}), "B-39", 200)
        if key in http.get("/__mock/requests").text:
            raise exchange.fail("B-31.1", first, "the endpoint key is in the request journal")
    exchange.call("listUserLlmModels", token=token)
