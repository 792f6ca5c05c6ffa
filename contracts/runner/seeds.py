"""Contract runs over hypothesis seeds: fixed seeds per commit, random seeds nightly, and the
regression corpus every commit replays (docs/testing.md).

- `harness-contract --seeds N` (`make contract SEEDS=N`): seeds 1 to N in a row, stopping at the
  first drift. A seed's run sends the same requests every time (`contracts.runner.fingerprint`,
  listed per seed), so a commit's result depends on the commit alone.
- `harness-contract --explore N` (`make explore`, nightly): N seeds drawn at random, every one run
  to its end. Each API that drifts under a seed is written to `<report-dir>/regressions-found.toml`
  as an entry of the corpus (API, profile, seed, the failing checks and hypothesis' minimal
  example), after a replay of just those checks shows it reproduces; the entries are what a
  maintainer appends to `contracts/regressions.toml` once the mock or the suite is fixed.
- `harness-contract --regressions` (`make contract-regressions`, per commit): every corpus entry
  replayed at its API, profile and seed; an entry whose checks no longer exist fails as stale.

Each run is a fresh process of `contracts.runner.cli` (the caller's options passed on), with a
fixed `PYTHONHASHSEED`.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "regressions.toml"
VERDICT = {0: "no drift", 1: "DRIFT", 2: "setup error"}


@dataclass(frozen=True)
class Regression:
    """One corpus entry: a run that once found drift, replayed on every commit."""

    api: str
    profile: str
    seed: int
    check: str  # a pytest -k expression naming the checks that failed ("" = the API's whole suite)
    found: str  # when and what: the drift the run found, in a line
    example: str = ""  # hypothesis' minimal example or the failing request, as the run printed it

    def options(self) -> list[str]:
        options = ["--api", self.api, "--profile", self.profile, "--seed", str(self.seed)]
        return [*options, "-k", self.check] if self.check else options


def load(path: Path = CORPUS) -> list[Regression]:
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Regression(**entry) for entry in data.get("regression", [])]


def child_env() -> dict[str, str]:
    """A run's processes hash strings the same way every time (`PYTHONHASHSEED`), so no set's order varies
    between two runs of one seed (the caller's own setting wins)."""
    return {**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}


def _run(options: list[str], report_dir: Path) -> int:
    command = [sys.executable, "-m", "contracts.runner.cli", *options, "--report-dir", str(report_dir)]
    return subprocess.call(command, env=child_env())


def _fingerprints(report_dir: Path) -> str:
    found = sorted(report_dir.glob("**/fingerprint.txt"))
    return ", ".join(f"{p.parent.name}: {p.read_text().strip()}" for p in found)


def _table(title: str, summary: str, header: str, rows: list[str]) -> str:
    rule = "|" + "|".join("---" for _ in header.strip("|").split("|")) + "|"
    return "\n".join([f"# {title}", "", f"**{summary}**", "", header, rule, *rows, ""])


def _summary(path: Path, title: str, summary: str, header: str, rows: list[str]) -> None:
    """A run's Markdown summary, written and announced."""
    path.write_text(_table(title, summary, header, rows), encoding="utf-8")
    print(f"\n{summary} {path}")


def run_seeds(count: int, options: list[str], report_dir: Path) -> int:
    """Seeds 1..count in a row, each a whole run in its own process; stop at the first drift."""
    rows, code = [], 0
    report_dir.mkdir(parents=True, exist_ok=True)
    for seed in range(1, count + 1):
        started = time.monotonic()
        code = _run([*options, "--seed", str(seed)], report_dir / f"seed-{seed}")
        verdict = VERDICT.get(code, f"exit {code}")
        elapsed = time.monotonic() - started
        prints = _fingerprints(report_dir / f"seed-{seed}")
        rows.append(f"| {seed} | {verdict} | {elapsed:.0f} s | {prints} | [seed-{seed}](seed-{seed}/) |")
        if code != 0:
            break
    passed = sum(1 for row in rows if "| no drift |" in row)
    header = "| seed | result | wall time | fingerprints (requests-digest) | reports |"
    title = "Contract runs, one hypothesis seed each"
    _summary(report_dir / "seeds.md", title, f"{passed} of {count} seeds in a row passed.", header, rows)
    return code


def _failures(junit: Path) -> list[tuple[str, str]]:
    """The failed checks of one API's run, with what they printed (the falsifying example, the curl line)."""
    if not junit.exists():
        return []
    found = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        for problem in [*case.findall("failure"), *case.findall("error")]:
            found.append((case.get("name", ""), (problem.get("message") or "") + "\n" + (problem.text or "")))
    return found


def _example(text: str) -> str:
    """The part of a failure's text that reproduces it: hypothesis' falsifying example, else the curl line."""
    for pattern in (
        r"Falsifying (?:explicit )?example:.*?(?=\n\S|\Z)",
        r"curl [^\n]+",
        r"Reproduce with:.*?(?=\n\n|\Z)",
    ):
        match = re.search(pattern, text, re.S)
        if match:
            return match.group(0).strip()[:2000]
    return text.strip()[:600]


def _api_reports(report_dir: Path, api: str, several: bool) -> Path:
    return report_dir / api if several else report_dir


def explore(count: int, apis: list[str], options: list[str], profile: str, report_dir: Path) -> int:
    """`count` random seeds over `apis`, each run to its end; what drifts becomes a corpus entry."""
    # HARNESS_EXPLORE_SEED draws the same seeds again (a nightly's choice, reproduced; the tests' fixed draw)
    fixed = os.environ.get("HARNESS_EXPLORE_SEED")
    draw = random.Random(int(fixed)) if fixed else random.SystemRandom()
    seeds = [draw.randrange(1, 2**31) for _ in range(count)]
    report_dir.mkdir(parents=True, exist_ok=True)
    rows, entries = [], []
    for seed in seeds:
        started = time.monotonic()
        where = report_dir / f"seed-{seed}"
        code = _run([*options, "--seed", str(seed)], where)
        rows.append(
            f"| {seed} | {VERDICT.get(code, code)} | {time.monotonic() - started:.0f} s | [seed-{seed}](seed-{seed}/) |"
        )
        if code == 0:
            continue
        for api in apis:
            failed = _failures(_api_reports(where, api, len(apis) > 1) / "junit.xml")
            if not failed:
                continue
            # a check's function name: its case's name before the parameters and the claims it lists
            names = sorted({re.split(r"[\[ (]", name, maxsplit=1)[0] for name, _ in failed})
            check = " or ".join(names)
            base = ["--api", api, "--profile", profile, "--seed", str(seed)]
            # the failing checks alone, replayed: unless they drift again without the rest of the run, keep it all
            if _run([*base, "-k", check], where / f"replay-{api}") != 1:
                check = ""
            print(f"\n[explore] {api} drifted under seed {seed} ({profile}): {', '.join(names)}")
            print(_example(failed[0][1]))
            entries.append(Regression(api, profile, seed, check, f"{time.strftime('%Y-%m-%d')}: {', '.join(names)}",
                                      _example(failed[0][1])))  # fmt: skip
    found = report_dir / "regressions-found.toml"
    found.write_text("".join(render(entry) for entry in entries), encoding="utf-8")
    summary = f"{count - len({e.seed for e in entries})} of {count} random seeds found no drift."
    text = _table("Exploration: random seeds", summary, "| seed | result | wall time | reports |", rows)
    if entries:
        text += f"\nNew corpus entries (append to `contracts/regressions.toml` once fixed): `{found.name}`\n"
    (report_dir / "explore.md").write_text(text, encoding="utf-8")
    print(f"\n{summary} {report_dir / 'explore.md'}")
    return 1 if entries else 0


def _toml_string(text: str) -> str:
    if "\n" in text:
        return '"""\n' + text.replace("\\", "\\\\").replace('"""', '\\"""') + '"""'
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(entry: Regression) -> str:
    lines = ["", "[[regression]]"]
    for name in ("api", "profile", "seed", "check", "found", "example"):
        value = getattr(entry, name)
        lines.append(f"{name} = {value}" if isinstance(value, int) else f"{name} = {_toml_string(value)}")
    return "\n".join(lines) + "\n"


def replay(apis: list[str] | None, report_dir: Path, corpus: Path = CORPUS) -> int:
    """Every corpus entry (of `apis`, when named) at its API, profile and seed; 1 on drift, 2 on a stale entry."""
    entries = [entry for entry in load(corpus) if not apis or entry.api in apis]
    report_dir.mkdir(parents=True, exist_ok=True)
    rows, worst = [], 0
    for index, entry in enumerate(entries, 1):
        where = report_dir / f"regression-{index}"
        started = time.monotonic()
        code = _run(entry.options(), where)
        ran = sum(1 for _ in ElementTree.parse(where / "junit.xml").getroot().iter("testcase")) if (
            where / "junit.xml").exists() else 0  # fmt: skip
        if ran == 0:
            code = 2  # its checks are gone: the entry is stale, and guards nothing
        verdict = "stale: no check selected" if ran == 0 else VERDICT.get(code, f"exit {code}")
        rows.append(
            f"| {index} | {entry.api} | {entry.profile} | {entry.seed} | `{entry.check or '(whole suite)'}` | "
            f"{ran} | {verdict} | {time.monotonic() - started:.0f} s |"
        )
        worst = max(worst, code)
    passed = sum(1 for row in rows if "| no drift |" in row)
    header = "| # | API | profile | seed | checks | checks run | result | wall time |"
    title = "The regression corpus, replayed"
    _summary(report_dir / "regressions.md", title, f"{passed} of {len(entries)} entries passed.", header, rows)
    return worst
