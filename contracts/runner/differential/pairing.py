"""Pairing: the values each side made up for the same thing (ids, tokens, signed URLs, ETags,
page cursors), learned as they appear, so later references compare through the pairing.

A value is paired when it first appears on both sides at the same place of an answer to a request
that created something (a 2xx to POST, PUT or PATCH: body and `Location`) or that read below
something already paired (`GET /runs/{paired}/tasks`: its rows are the run's). A value both
sides share (a seed fixture's id on a mock target) pairs with itself. What cannot be paired (a
live account's existing rows, the oracle's seed fixtures) is *unpaired*: counted, never compared.

`to_oracle` rewrites what the target's client sends (path segments, query values, header
credentials, JSON body values); `to_target` rewrites what the oracle answered into the target's
terms, so both answers compare as if from one server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

# names of fields whose values identify something a side made up (snake_case and camelCase)
ID_NAME = re.compile(
    r"(?:^|_)(?:id|ids|token|tokens|key|secret|slug|cursor|url|urls|href|uri|etag|cookie)$"
    r"|(?<=[a-z])(?:Id|Ids|Token|Cursor|Url|Href|Uri|Slug|Key)$"
)


# a page cursor: each side's handle on the next page of the same list, paired from any answer to the same
# request (not only below something paired), so the next page's request reaches the oracle with its own
CURSOR_NAME = re.compile(r"cursor|page_?token|next_?token", re.I)
HEADER_PART = re.compile(r"[^\s;,=]+")
MATCHED = 60  # rows matched by their values when pairing by position; longer lists pair in order
FRACTION = re.compile(r"T[\d:]+\.(\d+)")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$")  # RFC 3339
PREFIXED = re.compile(r"^([a-z]{2,8}_)([0-9a-f]{8}-[0-9a-f-]{27})$")  # a kind prefix on a UUID (`top_…`)
EMBEDDED = re.compile(r"[A-Za-z0-9_-]{8,}")  # a made-up value inside a sentence: an id, a handle, a token
SECRET_NAME = re.compile(r"token|secret|key|password|credential|signature", re.I)
OPERATOR = re.compile(r"^[a-z]{1,8}$")  # a filter operator before its operands: `lte:`, `in:`


def is_id_name(name: str | None) -> bool:
    return bool(name) and bool(ID_NAME.search(name))  # type: ignore[arg-type]


def _shared(target: dict[str, Any], oracle: dict[str, Any]) -> tuple[int, int]:
    """How alike two rows are: first the references they hold alike (an id both sides share, a seed fixture's
    run that two ledger rows name), then the other values they hold alike."""
    alike = [k for k in target.keys() & oracle.keys() if _scalar(target[k]) and target[k] == oracle[k]]
    references = sum(1 for k in alike if is_id_name(k))
    return references, len(alike) - references


def _stamps(target: Any, oracle: Any) -> bool:
    """Two different RFC 3339 timestamps."""
    return (
        isinstance(target, str)
        and isinstance(oracle, str)
        and target != oracle
        and bool(STAMP.match(target) and STAMP.match(oracle))
    )


def _instant(value: Any) -> datetime | None:
    """The moment an RFC 3339 timestamp names (any spelling), else None."""
    if not isinstance(value, str) or not STAMP.match(value):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _spelt(moment: datetime, like: str) -> str:
    """`moment` in the spelling of the timestamp `like`: its offset (`Z` or `+hh:mm`) and its fraction's digits."""
    shown = moment.astimezone(datetime.fromisoformat(like).tzinfo)
    digits = len(FRACTION.search(like)[1]) if FRACTION.search(like) else 0
    text = shown.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text += "." + f"{shown.microsecond:06d}"[:digits].ljust(digits, "0")
    return text + ("Z" if like.endswith(("Z", "z")) else shown.strftime("%z")[:3] + ":" + shown.strftime("%z")[3:])


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


@dataclass
class Pairing:
    """Target value <-> oracle value, for one oracle."""

    target_base: str
    oracle_base: str
    forward: dict[Any, Any] = field(default_factory=dict)  # target value -> oracle value
    back: dict[Any, Any] = field(default_factory=dict)  # oracle value -> target value
    shown: set[str] = field(default_factory=set)  # paired target values a report may show (no credentials)
    made_up: frozenset[str] = frozenset()  # other field names the spec declares made up (`x-volatile: paired`)
    ready: set[str] = field(default_factory=set)  # the credentials the session started with (not minted in it)
    chosen: set[str] = field(default_factory=set)  # what the client sent in the exchange being learned: not made up
    instants: dict[datetime, str] = field(default_factory=dict)  # a paired clock reading's moment -> the oracle's
    unordered: bool = False  # a request's filter bound was a reading the oracle's clock orders otherwise
    readings: dict[datetime, datetime] = field(default_factory=dict)  # the session's clock readings, each side's

    # -- learning -----------------------------------------------------------------------
    def pair(self, target: Any, oracle: Any, name: str | None = None) -> None:
        if not (_scalar(target) and _scalar(oracle)) or target in self.forward or oracle in self.back:
            return
        self.forward[target] = oracle
        self.back[oracle] = target
        self.forward.setdefault(str(target), str(oracle))
        self.back.setdefault(str(oracle), str(target))
        moment = _instant(target) if isinstance(oracle, str) and STAMP.match(oracle) else None
        if moment is not None:
            self.instants.setdefault(moment, oracle)
        if target != oracle and not SECRET_NAME.search(name or ""):
            self.shown.add(str(target))
        prefixed = PREFIXED.match(str(target)), PREFIXED.match(str(oracle))
        if prefixed[0] and prefixed[1] and prefixed[0][1] == prefixed[1][1]:  # `top_<uuid>`: the bare `<uuid>` too
            self.pair(prefixed[0][2], prefixed[1][2], name)

    def known(self, target: Any) -> bool:
        return target in self.forward

    def credentials(self, target: dict[str, str], oracle: dict[str, str]) -> None:
        """The target's credentials onto the oracle's, variable by variable."""
        for name, value in target.items():
            if value and oracle.get(name):
                self.pair(value, oracle[name], "credential")
                self.ready.add(value)

    def learn(
        self, target: Any, oracle: Any, eligible: bool, name: str | None = None, clock: bool = False
    ) -> list[Any]:
        """Pair the made-up values of two answers to the same request; returns the target's values
        left unpaired (rows only the target has, where nothing says they are this session's)."""
        unpaired: list[Any] = []
        if isinstance(target, dict) and isinstance(oracle, dict):
            for key in target.keys() & oracle.keys():
                unpaired += self.learn(target[key], oracle[key], eligible, key, clock)
        elif isinstance(target, list) and isinstance(oracle, list):
            unpaired += self._learn_list(target, oracle, eligible, name, clock)
        elif (is_id_name(name) or name in self.made_up) and _scalar(target) and _scalar(oracle):
            mine = str(target) not in self.chosen and str(oracle) not in self.chosen
            if target == oracle and not self.known(target) and oracle not in self.back:
                self.pair(target, oracle, name)  # shared by both sides (a fixture of a mock target)
            elif mine and (eligible or bool(CURSOR_NAME.search(name or ""))):
                self.pair(target, oracle, name)
                self._segments(target, oracle)
            elif not self.known(target):
                unpaired.append(target)
        elif (eligible or clock) and _stamps(target, oracle) and target not in self.chosen:
            # each side's clock reading for the same moment of a resource of the session: a client that sends
            # it back (`?since=<a run's createdAt>`) reaches the oracle with the oracle's
            self.pair(target, oracle, name)
            self._reading(target, oracle)
        elif target == oracle and isinstance(target, str) and target not in self.chosen:
            # the same reading on both sides, in any answer: existing data both hold (a seed fixture of a mock
            # target), or a moment both clocks share; an instant near it reaches the oracle as it is
            self._reading(target, oracle)
        return unpaired

    def _learn_list(
        self, target: list[Any], oracle: list[Any], eligible: bool, name: str | None, clock: bool = False
    ) -> list[Any]:
        key = row_key(target) or row_key(oracle)
        if key is None:
            if len(target) == len(oracle):
                return [u for t, o in zip(target, oracle, strict=True) for u in self.learn(t, o, eligible, name, clock)]
            return []
        unpaired: list[Any] = []
        by_id = {row.get(key): row for row in oracle if isinstance(row, dict)}
        rest_t, matched = [], set()
        for row in target:
            if not isinstance(row, dict):
                continue
            mine = row.get(key)
            other = self.forward.get(mine, mine if mine in by_id and mine not in self.back else None)
            if other is not None and other in by_id:
                matched.add(other)
                # a row of a resource made in this session (its id paired with another) on a plain read: its
                # clock readings pair (a client bounds a filter at its `started_at`), its other values do not
                ours = mine in self.forward and self.forward[mine] != mine
                unpaired += self.learn(row, by_id[other], eligible, None, clock or ours)
            else:
                rest_t.append(row)
        rest_o = [row for row in oracle if isinstance(row, dict) and row.get(key) not in matched]
        if eligible and len(rest_t) == len(rest_o):
            for t, o in self._by_position(rest_t, rest_o):
                unpaired += self.learn(t, o, True, None)
        else:
            unpaired += [row.get(key) for row in rest_t if not self.known(row.get(key))]
        return unpaired

    def _by_position(self, rest_t: list[dict[str, Any]], rest_o: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
        """Rows nothing pairs yet, on each side, matched: each target row with the oracle row left whose
        already-paired references agree with it (a ledger row's `reference_id`) and that shares the most of
        its other values (a host rule's `host_pattern`), the first such in order; so rows the two sides list
        in another order (sorted by made-up ids, or equal sort keys) are not crossed. Long lists (`MATCHED`)
        pair in order only."""
        left = list(rest_o)
        out = []
        for row in rest_t:
            if not left:
                break
            if len(rest_t) > MATCHED:
                match = left[0]
            else:
                agreeing = [o for o in left if self._agrees(row, o)] or left
                match = max(agreeing, key=lambda o: _shared(row, o))  # the first of the best
            left.remove(match)
            out.append((row, match))
        return out

    def _agrees(self, target: dict[str, Any], oracle: dict[str, Any]) -> bool:
        return all(
            self.forward[target[k]] == oracle[k]
            for k in target.keys() & oracle.keys()
            if is_id_name(k) and _scalar(target[k]) and self.known(target[k])
        )

    def learn_location(self, target: str | None, oracle: str | None) -> None:
        if not target or not oracle:
            return
        self._segments(target, oracle)
        self.pair(target, oracle)

    def _segments(self, target: Any, oracle: Any) -> None:
        """Two paired links (a `Location`, a checkout `url`): the path segments where they differ are paired
        too, so a later request naming one (`/__mock/topups/{checkout session}/pay`) reaches the oracle with its
        own."""
        if not (isinstance(target, str) and isinstance(oracle, str) and "/" in target and "/" in oracle):
            return
        t_path, o_path = urlsplit(target).path.split("/"), urlsplit(oracle).path.split("/")
        if len(t_path) == len(o_path):
            for t, o in zip(t_path, o_path, strict=True):
                if t != o:
                    self.pair(unquote(t), unquote(o))

    # -- rewriting ----------------------------------------------------------------------
    def to_oracle(self, value: Any) -> Any:
        """A request body's value for the oracle: paired values replaced, and an instant the client chose
        (`expires_at`: an hour from the target's now) as far from the oracle's readings as from the target's."""
        return _mapped(value, self.forward, self.target_base, self.oracle_base, instant=self._instant_to_oracle)

    def _instant_to_oracle(self, item: str) -> str:
        moment = _instant(item)
        if moment is None:
            return item
        return self.instants[moment] if moment in self.instants else self._shifted(item, moment)

    def to_target(self, value: Any) -> Any:
        """The oracle's value in the target's terms, its clock readings excepted: timestamps compare by order
        and difference with their siblings, each side on its own clock, so a paired reading read back beside
        an unpaired sibling would mix the two clocks (against a deployment, whose clock the oracle cannot
        follow, a run's `created_at` read back as the target's and its `started_at` left the oracle's were
        seconds out of order)."""
        return _mapped(value, self.back, self.oracle_base, self.target_base, keep=STAMP)

    def text_to_target(self, value: Any) -> Any:
        """An error body's sentences with each paired value they name (8 characters or more: an id, an
        epoch-millisecond handle) read as the target's: `no outstanding message <ts>` names the oracle's `ts`."""
        if isinstance(value, dict):
            return {k: self.text_to_target(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.text_to_target(v) for v in value]
        if isinstance(value, str) and " " in value:
            return EMBEDDED.sub(lambda m: str(self.back.get(m[0], m[0])), value)
        return value

    def path_to_oracle(self, path: str) -> str:
        """A raw (percent-encoded) path with each paired segment replaced; the others kept as sent."""
        return "/".join(self._segment(s) for s in path.split("/"))

    def _segment(self, raw: str) -> str:
        """One raw path segment for the oracle: paired as a whole, or a paired value before a custom method's
        `:verb` (`/v1/tokens/{id}:rotate`)."""
        if unquote(raw) in self.forward:
            return quote(str(self.forward[unquote(raw)]), safe="~@:")
        head, sep, verb = raw.rpartition(":")
        if sep and unquote(head) in self.forward:
            return quote(str(self.forward[unquote(head)]), safe="~@:") + sep + verb
        return raw

    def query_to_oracle(self, query: str) -> str:
        if not query:
            return ""
        return urlencode([(k, self.query_value(v)) for k, v in parse_qsl(query, keep_blank_values=True)])

    def query_value(self, value: str) -> str:
        """A query value for the oracle: paired as a whole, or, in a filter's syntax (`lte:<instant>`,
        `in:<id>,<id>`), each paired operand after the operator. An instant pairs by the moment it names, so a
        client that re-spells a run's `started_at` (`.446Z` as `.446000+00:00`) still reaches the oracle with
        the oracle's reading of it."""
        head, sep, rest = value.partition(":")
        operator = head + sep if sep and OPERATOR.match(head) else ""
        operands = (rest if operator else value).split(",")
        if value in self.forward:
            self._check_order(value, str(self.forward[value]))
            return str(self.forward[value])
        mapped = [self._operand(item) for item in operands]
        return value if mapped == operands else operator + ",".join(mapped)

    def _operand(self, item: str) -> str:
        if item in self.forward:
            mapped = str(self.forward[item])
        else:
            moment = _instant(item)
            if moment is None:
                return item
            mapped = self.instants[moment] if moment in self.instants else self._shifted(item, moment)
        self._check_order(item, mapped)
        return mapped

    def _shifted(self, item: str, moment: datetime) -> str:
        """An instant no reading of the session names (`<a run's createdAt> - 1 ms`, the start of its day): the
        oracle's is as far from the oracle's reading of the nearest moment of the session as the target's is
        from that moment, spelt as the client spelt it. Against a deployment the oracle's clock is seconds or
        months off the target's, so the instant as sent would mean another moment of the oracle's session."""
        if not self.readings:
            return item
        near = min(self.readings, key=lambda reading: abs(reading - moment))
        offset = self.readings[near] - near
        if not offset or _spelt(moment, item) != item:
            return item  # no distance to keep, or a spelling this cannot write again (`-00:00`, 7 digits)
        return _spelt(moment + offset, item)

    def _reading(self, target: Any, oracle: Any) -> None:
        mine, theirs = _instant(target), _instant(oracle)
        if mine is not None and theirs is not None:
            self.readings.setdefault(mine, theirs)

    def _check_order(self, item: str, mapped: str) -> None:
        """Note (`unordered`) a filter bound that does not keep its place on the oracle among the session's
        clock readings: the oracle replays each request a little after the target answered it, so two readings
        a millisecond apart on the target can fall in one millisecond on the oracle, or swap. The bound cannot
        mean on the oracle what it meant on the target (`until=<a run's createdAt - 1 ms>`, itself another
        resource's reading, selected the oracle's twin of the run)."""
        moment, theirs = _instant(item), _instant(mapped)
        if moment is None or theirs is None:
            return
        for other, twin in self.readings.items():
            if (other > moment and twin <= theirs) or (other < moment and twin >= theirs):
                self.unordered = True
                return

    def holds_header(self, value: str) -> bool:
        """The pairing knows this header value (a credential, with or without its scheme, a cookie's value)."""
        return value in self.forward or any(part in self.forward for part in HEADER_PART.findall(value))

    def header_to_oracle(self, value: str) -> str:
        """A header value with each paired part replaced: `Bearer <token>`, `name=<cookie>; other=<cookie>`."""
        if value in self.forward:
            return str(self.forward[value])
        return HEADER_PART.sub(lambda m: str(self.forward.get(m.group(0), m.group(0))), value)

    def used(self, path: str, query: str) -> list[tuple[str, str]]:
        """The paired values a request names (path segments, query values), as the report shows them."""
        names = path_names(path) + [v for _, v in parse_qsl(query)]
        return [(n, str(self.forward[n])) for n in dict.fromkeys(names) if n in self.shown]

    def minted(self, credentials: list[str]) -> bool:
        """A credential header names a principal made in this session (a user, token or browser session
        created through calls both sides saw): what it reads is this session's, paired by position like a
        read below a resource of the session."""
        return any(
            part in self.forward and part not in self.ready and self.forward[part] != part
            for value in credentials
            for part in HEADER_PART.findall(value)
        )

    def references(self, path: str, query: str) -> bool:
        """The request names something already paired (a read below a resource of this session)."""
        names = path_names(path) + [v for _, v in parse_qsl(query)]
        return any(n in self.forward and self.forward[n] != n for n in names)


def path_names(path: str) -> list[str]:
    """The values a raw path names: each segment, decoded, and the value before a custom method's `:verb`."""
    out = []
    for raw in path.split("/"):
        if raw:
            out.append(unquote(raw))
            head, sep, _ = raw.rpartition(":")
            if sep and head:
                out.append(unquote(head))
    return out


def row_key(rows: list[Any]) -> str | None:
    """The field that identifies a list's rows, if they are objects: `id`, else the first id-like field
    every row holds with a value of its own (a `participantSlug` shared by rows identifies none)."""
    keys = row_keys(rows)
    return keys[0] if keys else None


def row_keys(rows: list[Any]) -> list[str]:
    """Every field that identifies a list's rows, `id` first."""
    objects = [r for r in rows if isinstance(r, dict)]
    if not objects:
        return []
    candidates = ["id", *(k for k in objects[0] if k != "id" and is_id_name(k) and not k.endswith(("url", "Url")))]
    out = []
    for key in candidates:
        values = [r.get(key) for r in objects]
        if all(_scalar(v) for v in values) and len(set(values)) == len(values):
            out.append(key)
    return out


def _mapped(
    value: Any,
    table: dict[Any, Any],
    base_from: str,
    base_to: str,
    keep: re.Pattern[str] | None = None,
    instant: Callable[[str], str] | None = None,
) -> Any:
    """`value` with each paired value replaced through `table`; strings matching `keep` left as they are, and
    timestamps `table` does not hold given to `instant`."""
    if isinstance(value, dict):
        return {k: _mapped(v, table, base_from, base_to, keep, instant) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(v, table, base_from, base_to, keep, instant) for v in value]
    if isinstance(value, bool) or not isinstance(value, str | int):
        return value
    if keep is not None and isinstance(value, str) and keep.match(value):
        return value
    if instant is not None and isinstance(value, str) and value not in table and STAMP.match(value):
        return instant(value)
    if value in table:
        return table[value]
    if isinstance(value, str) and base_from and base_from in value:
        value = value.replace(base_from, base_to)
        if value in table:
            return table[value]
        if "/" in value:
            head, sep, query = value.partition("?")
            head = "/".join(str(table.get(unquote(s), s)) if s else s for s in head.split("/"))
            if sep:
                query = urlencode([(k, table.get(v, v)) for k, v in parse_qsl(query, keep_blank_values=True)])
            return head + sep + query
    elif isinstance(value, str) and value.startswith("/") and len(value) < 500:
        head, sep, query = value.partition("?")
        return "/".join(str(table.get(unquote(s), s)) if s else s for s in head.split("/")) + sep + query
    return value


def sent(path: str, query: str, body: Any) -> set[str]:
    """The values a client chose for a request: path segments, query values, JSON body scalars."""
    out = set(path_names(path)) | {v for _, v in parse_qsl(query)}
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack += list(value.values())
        elif isinstance(value, list):
            stack += value
        elif _scalar(value):
            out.add(str(value))
    return out
