"""The reference's curl walkthrough, read out of the vendored reference and replayed.

`parse(text)` finds the "API reference" section of `docs/reference/benchgen-api.md`,
splits its bash blocks into curl commands (joining `\\` continuations, dropping
comments) and also picks up the commented JSON body of the external-endpoint variant.
`Walkthrough.steps(...)` then yields each command as an HTTP request (method, path and
query, headers, `-d` body) exactly as printed, but for the base URL, the token and the
ids, which are substituted. If the reference's examples change shape, parsing or the
replay fails.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mock_server.datafiles import REFERENCE_DIR

REFERENCE = REFERENCE_DIR / "benchgen-api.md"
PRINTED_BASE = "https://api.benchgen.com"
SECTION = "## API reference"


@dataclass(frozen=True)
class Curl:
    """One printed curl command."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    data: str | None
    comment: str  # the comment lines just above it

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass(frozen=True)
class Walkthrough:
    commands: tuple[Curl, ...]
    token_env: str  # the variable the commands read the token from
    external_body: dict = field(default_factory=dict)

    def by_path(self, fragment: str) -> list[Curl]:
        return [c for c in self.commands if fragment in c.url]


def _section(text: str) -> str:
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end != -1 else len(text)]


def _blocks(section: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)


def _commented_json(block: str) -> dict | None:
    """The `# { ... }` body printed as a comment (the external-endpoint variant)."""
    lines = [ln.lstrip()[1:].strip() for ln in block.splitlines() if ln.lstrip().startswith("#")]
    text = "\n".join(lines)
    start = text.find("{")
    if start == -1:
        return None
    depth = 0
    for i, ch in enumerate(text[start:], start):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return json.loads(text[start : i + 1])
    raise ValueError("unbalanced JSON in a comment")


def _parse_curl(words: list[str], comment: str) -> Curl:
    if not words or words[0] != "curl":
        raise ValueError(f"not a curl command: {words!r}")
    method, url, data = None, None, None
    headers: list[tuple[str, str]] = []
    it = iter(words[1:])
    for word in it:
        if word in ("-X", "--request"):
            method = next(it)
        elif word in ("-H", "--header"):
            name, _, value = next(it).partition(":")
            headers.append((name.strip(), value.strip()))
        elif word in ("-d", "--data", "--data-raw"):
            data = next(it)
        elif word.startswith("-"):
            raise ValueError(f"curl option the replay does not know: {word}")
        elif url is None:
            url = word
        else:
            raise ValueError(f"a second URL in one curl command: {word}")
    if url is None:
        raise ValueError("curl command without a URL")
    return Curl(
        method=method or ("POST" if data is not None else "GET"),
        url=url,
        headers=tuple(headers),
        data=data,
        comment=comment,
    )


def parse(text: str) -> Walkthrough:
    commands: list[Curl] = []
    token_env = ""
    external: dict | None = None
    for block in _blocks(_section(text)):
        body = _commented_json(block)
        if body is not None and body.get("model_source") == "external":
            external = body
        joined = re.sub(r"\\\n\s*", " ", block)
        comment: list[str] = []
        for line in joined.splitlines():
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith("#"):
                comment.append(stripped.lstrip("# "))
                continue
            words = shlex.split(stripped, comments=True)
            if words[0] == "export":
                token_env = words[1].partition("=")[0]
            else:
                commands.append(_parse_curl(words, " ".join(comment)))
            comment = []
    if not token_env:
        raise ValueError("the walkthrough exports no token variable")
    return Walkthrough(commands=tuple(commands), token_env=token_env, external_body=external or {})


def load(path: Path = REFERENCE) -> Walkthrough:
    return parse(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # path and query, relative to the target's base URL
    headers: dict[str, str]
    body: bytes | None


def to_request(curl: Curl, *, token: str, token_env: str, ids: dict[str, int], data: str | None = None) -> Request:
    """The command as a request: base URL stripped, `$TOKEN` and `{placeholders}` filled, ids swapped.

    `ids` maps a path placeholder (`id`, `submission_id`) to its value; the same names as
    body fields (`competition_id`, `model_id`) replace the printed example ids in a JSON body.
    """
    if not curl.url.startswith(PRINTED_BASE):
        raise ValueError(f"the walkthrough's URL left the documented base: {curl.url}")
    path = curl.path
    for name in re.findall(r"\{(\w+)\}", path):
        if name not in ids:
            raise KeyError(f"no value for {{{name}}} in {curl.url}")
        path = path.replace(f"{{{name}}}", str(ids[name]))
    headers = {name: value.replace(f"${token_env}", token) for name, value in curl.headers}
    raw = curl.data if data is None else data
    body = None
    if raw is not None:
        payload = json.loads(raw)
        for key in ("competition_id", "model_id"):
            if key in payload and key in ids:
                payload[key] = ids[key]
        body = json.dumps(payload).encode("utf-8")
    return Request(method=curl.method, path=path, headers=headers, body=body)
