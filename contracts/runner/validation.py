"""Check one HTTP response against the spec: documented status, content type,
required headers and body schema (compiled once per bundle).

Used by the harness' own tests (every response they see is checked, so the
mock cannot drift from its spec unnoticed) and by the contract suite.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import orjson

from mock_server.apis import bundle
from mock_server.engine.compile import Compiler, compile_operations, resolve
from mock_server.engine.routing import Router


@dataclass
class Finding:
    operation_id: str
    status: int
    problem: str

    def __str__(self) -> str:
        return f"{self.operation_id} -> {self.status}: {self.problem}"


class ResponseValidator:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.compiler = Compiler(doc)
        self.router = Router(compile_operations(doc))
        self._validators: dict[int, Any] = {}

    def _validator(self, schema: dict[str, Any]) -> Any:
        key = id(schema)
        if key not in self._validators:
            self._validators[key] = self.compiler.validator(schema)
        return self._validators[key]

    def check(self, method: str, path: str, status: int, headers: dict[str, str], body: bytes) -> list[Finding]:
        op, _, _ = self.router.match(method.upper(), path)
        if op is None:
            return []
        name = op.operation_id
        responses = op.raw.get("responses", {})
        spec = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
        if spec is None:
            return [Finding(name, status, f"status {status} is not documented (documented: {sorted(responses)})")]
        spec = resolve(self.doc, spec)
        findings: list[Finding] = []
        lower = {k.lower(): v for k, v in headers.items()}
        for header, hspec in (spec.get("headers") or {}).items():
            hspec = resolve(self.doc, hspec)
            if hspec.get("required") and header.lower() not in lower:
                findings.append(Finding(name, status, f"required header {header} is missing"))
        content = spec.get("content") or {}
        if not content:
            if body.strip():
                findings.append(Finding(name, status, "a body was sent where none is documented"))
            return findings
        media = (lower.get("content-type") or "").split(";")[0].strip()
        media_spec = content.get(media) or _wildcard(content, media)
        if media_spec is None:
            findings.append(Finding(name, status, f"content type {media!r} is not documented ({sorted(content)})"))
            return findings
        schema = media_spec.get("schema")
        if schema is None or not (media == "application/json" or media.endswith("+json")):
            return findings
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return [*findings, Finding(name, status, "body is not valid JSON")]
        validator = self._validator(schema)
        for error in list(validator.iter_errors(data))[:5]:
            where = "/".join(str(p) for p in error.instance_path) or "(root)"
            findings.append(Finding(name, status, f"body {where}: {error.message}"))
        return findings


def _wildcard(content: dict[str, Any], media: str) -> dict[str, Any] | None:
    major = media.split("/")[0]
    return content.get(f"{major}/*") or content.get("*/*")


@functools.lru_cache(maxsize=2)
def default_validator() -> ResponseValidator:
    return ResponseValidator(bundle("benchwright"))
