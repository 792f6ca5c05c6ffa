"""The drift log: every violation the proxy saw, grouped by claim, each with a redacted curl line.

Two files, rewritten as exchanges complete so they are current even if the proxy is stopped
hard: `<stem>.jsonl` (one violation a line, appended) and `<stem>.md` (the Markdown summary,
grouped by claim, then a table by operation).
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from contracts.runner.claims import claim_of

from .checks import Exchange
from .redact import Redactor

CURL_HEADERS = (
    "authorization", "cookie", "x-api-key", "content-type", "idempotency-key", "if-match", "last-event-id",
    "x-org-slug", "accept",
)  # fmt: skip


def curl(exchange: Exchange, base_url: str, redactor: Redactor) -> str:
    url = f"{base_url.rstrip('/')}{exchange.path}" + (f"?{exchange.query}" if exchange.query else "")
    parts = ["curl", "-sS"]
    if exchange.method != "GET":
        parts += ["-X", exchange.method]
    parts.append(shlex.quote(redactor.text(url)))
    for name in CURL_HEADERS:
        value = exchange.request_headers.get(name)
        if value is not None:
            parts += ["-H", shlex.quote(f"{_title(name)}: {redactor.header(name, value)}")]
    if exchange.request_body:
        text = exchange.request_body[:2000].decode("utf-8", "replace")
        data = _json_text(text, redactor)
        parts += ["--data-raw", shlex.quote(data)]
    return " ".join(parts)


def _json_text(text: str, redactor: Redactor) -> str:
    try:
        return orjson.dumps(redactor.json(orjson.loads(text))).decode()
    except orjson.JSONDecodeError:
        return redactor.text(text)


def _title(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-")).replace("Api-Key", "Api-Key")


class DriftLog:
    def __init__(self, stem: Path, api: str, upstream: str, redactor: Redactor) -> None:
        self.jsonl = stem.with_suffix(".jsonl")
        self.markdown = stem.with_suffix(".md")
        self.api = api
        self.upstream = upstream
        self.redactor = redactor
        self.entries: list[dict[str, Any]] = []
        self.exchanges = 0
        stem.parent.mkdir(parents=True, exist_ok=True)
        self.jsonl.write_text("", encoding="utf-8")
        self._render()

    def add(self, exchange: Exchange) -> None:
        self.exchanges += 1
        if not exchange.violations:
            if self.exchanges % 50 == 0:
                self._render()
            return
        line = curl(exchange, self.upstream, self.redactor)
        new = []
        for violation in exchange.violations:
            claim = claim_of(violation.claim)
            entry = {
                "seq": exchange.seq,
                "claim": claim.id,
                "section": claim.section,
                "claim_text": claim.text,
                "operation": exchange.operation.operation_id if exchange.operation else None,
                "request": f"{exchange.method} {exchange.path}",
                "status": exchange.status,
                "message": self.redactor.text(violation.message),
                "curl": line,
            }
            new.append(entry)
        self.entries.extend(new)
        with self.jsonl.open("ab") as out:
            for entry in new:
                out.write(orjson.dumps(entry) + b"\n")
        self._render()

    def close(self) -> None:
        self._render()

    def _render(self) -> None:
        lines = [f"# Drift log: {self.api} at {self.redactor.text(self.upstream)}", ""]
        if not self.entries:
            lines += [f"No violations in {self.exchanges} exchange(s).", ""]
        else:
            claims = {e["claim"] for e in self.entries}
            lines += [
                f"**{len(self.entries)} violation(s)** of {len(claims)} claim(s) in {self.exchanges} exchange(s).",
                "",
                "## By claim",
                "",
            ]
            by_claim: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for entry in self.entries:
                by_claim[entry["claim"]].append(entry)
            for claim_id, entries in sorted(by_claim.items()):
                first = entries[0]
                lines += [f"### {first['section']} {first['claim_text']} (`{claim_id}`)", ""]
                for entry in entries:
                    lines.append(
                        f"- #{entry['seq']} **{entry['operation'] or entry['request']}** → {entry['status']}: "
                        f"{entry['message']}"
                    )
                    lines += ["", "  ```", f"  {entry['curl']}", "  ```"]
                lines.append("")
            lines += ["## By operation", "", "| operation | claims |", "|---|---|"]
            by_op: dict[str, set[str]] = defaultdict(set)
            for entry in self.entries:
                by_op[entry["operation"] or entry["request"]].add(f"`{entry['claim']}`")
            lines += [f"| {op} | {', '.join(sorted(c))} |" for op, c in sorted(by_op.items())]
            lines.append("")
        self.markdown.write_text("\n".join(lines), encoding="utf-8")
