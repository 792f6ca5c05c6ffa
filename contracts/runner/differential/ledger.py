"""The differences a differential session found, and what it could not pair, rendered as the drift
report's "Behavioural drift" section: by claim (through each operation's claims, the `x-reference`
sections and `x-claims` ids of its spec operation), then by operation. Each entry shows the two
answers side by side, the values paired to send the oracle the same request, and a curl line that
reproduces the target's side (credentials redacted)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from contracts.runner.claims import Claim, claim_of, register

DIFFERENTIAL = Claim(
    "differential", "spec", "the target answers as the oracle (the reference's executable model, the mock) does"
)
register([DIFFERENTIAL])
EXCERPT = 600  # characters of each answer shown side by side


@dataclass
class Difference:
    api: str
    operation: str  # `METHOD /template`
    claims: list[str]
    aspect: str  # status | content-type | header | body | etag | counter | lifecycle
    detail: str
    target: str = ""  # the target's answer: status line and excerpt
    oracle: str = ""  # the oracle's answer, in the target's terms
    paired: list[tuple[str, str]] = field(default_factory=list)  # (target value, oracle value) used
    curl: str = ""
    count: int = 1

    @property
    def claim(self) -> str:
        return self.claims[0] if self.claims else DIFFERENTIAL.id

    def line(self) -> str:
        return f"{self.operation}: {self.aspect}: {self.detail}"


@dataclass
class Ledger:
    api: str
    differences: dict[tuple[str, str, str], Difference] = field(default_factory=dict)
    unpaired: Counter[str] = field(default_factory=Counter)  # why something was left out, never drift
    compared: int = 0  # exchanges compared
    mirrored: int = 0  # control-surface calls mirrored onto the oracle

    def add(self, difference: Difference) -> Difference:
        key = (difference.operation, difference.aspect, difference.detail.partition(":")[0])
        if key in self.differences:
            self.differences[key].count += 1
            return self.differences[key]
        self.differences[key] = difference
        return difference

    def items(self) -> list[Difference]:
        return list(self.differences.values())


def render(ledgers: list[Ledger]) -> list[str]:
    """The "Behavioural drift" section of the drift report (empty when no differential session ran)."""
    if not ledgers:
        return []
    found = [d for ledger in ledgers for d in ledger.items()]
    compared = sum(ledger.compared for ledger in ledgers)
    unpaired: Counter[str] = Counter()
    for ledger in ledgers:
        unpaired.update(ledger.unpaired)
    lines = ["## Behavioural drift", ""]
    lines.append(
        f"The target and the oracle (a fresh mock of the same API) answered the same {compared} request(s);"
        f" **{len(found)} difference(s)** across {len({d.claim for d in found})} claim(s)."
        if found
        else f"The target and the oracle (a fresh mock of the same API) answered the same {compared} request(s)"
        " alike: no behavioural drift."
    )
    lines.append("")
    if unpaired:
        lines += ["Left out, as unpaired (never drift):", ""]
        lines += [f"- {reason}: {count}" for reason, count in sorted(unpaired.items())]
        lines.append("")
    if not found:
        return lines
    lines += ["### By claim", ""]
    by_claim: dict[str, list[Difference]] = defaultdict(list)
    for difference in found:
        by_claim[difference.claim].append(difference)
    for claim_id, differences in sorted(by_claim.items()):
        claim = claim_of(claim_id)
        lines += [f"#### {claim.section} {claim.text} (`{claim_id}`)", ""]
        for d in differences:
            lines += _entry(d)
    lines += ["### By operation", "", "| operation | differences | claims |", "|---|---:|---|"]
    by_op: dict[str, list[Difference]] = defaultdict(list)
    for difference in found:
        by_op[difference.operation].append(difference)
    for op, differences in sorted(by_op.items()):
        claims = sorted({c for d in differences for c in (d.claims or [DIFFERENTIAL.id])})
        lines.append(f"| {op} | {sum(d.count for d in differences)} | {', '.join(f'`{c}`' for c in claims)} |")
    lines.append("")
    return lines


def _cell(text: str) -> str:
    return text[:EXCERPT].replace("|", "\\|").replace("\n", " ") or "(empty)"


def _entry(d: Difference) -> list[str]:
    times = f" ({d.count}×)" if d.count > 1 else ""
    lines = [f"- **{d.operation}** {d.aspect}: {d.detail}{times}", ""]
    lines += ["  | target | oracle |", "  |---|---|", f"  | {_cell(d.target)} | {_cell(d.oracle)} |", ""]
    if d.paired:
        shown = ", ".join(f"`{t}` → `{o}`" for t, o in d.paired[:6]) + (" …" if len(d.paired) > 6 else "")
        lines += [f"  paired: {shown}", ""]
    if d.curl:
        lines += ["  ```", f"  {d.curl}", "  ```", ""]
    return lines
