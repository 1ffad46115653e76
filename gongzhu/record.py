"""Game records: writing, reading, checking and replaying them.

All serialisation of hands and matches is here.  A **hand record** is the
JSON object :func:`hand_record` writes (format ``gongzhu-hand/1``); a
**match record** is the object :func:`match_record` writes (format
``gongzhu-match/1``): its hands plus the totals and the losers.
:meth:`HandState.to_record <gongzhu.hand.HandState.to_record>` and
:meth:`Match.to_record <gongzhu.match.Match.to_record>` are the same
functions as methods (they import this module when called: it sits above
the hand and the match, since replaying builds them).  Many hands go in JSON
Lines, one object a line.  Their JSON Schemas ship in the package (:func:`schema`).

Records are written strictly (canonical card text: ``QS``, ``TC``) and read
leniently: card text may be any form :meth:`Card.parse <gongzhu.cards.Card.parse>`
accepts (``10C``, ``♣10``, ``梅花10``, ``黑桃Q``, ``红心A``, ``方片J``).

Reading checks everything: the structure, the ruleset, the deal, every
action's legality, and every stored derived value (shows, tricks, scores,
match totals and losers).  A bad record raises
:class:`~gongzhu.errors.InvalidRecord` naming the hand, the action index and
the reason; nothing half-loaded is returned.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

import attrs

from .actions import SINGLE_PLAYS, parse_action, play_of_key
from .cards import Card
from .deal import Deal
from .errors import GongzhuError, IllegalAction, InvalidCard, InvalidRecord
from .hand import RECORD_FORMAT, HandState
from .match import MATCH_FORMAT, Match
from .rules import DEFAULT_BASE, Rules, load_rules
from .view import Phase

__all__ = [
    "RecordEntry",
    "hand_record",
    "match_record",
    "read_records",
    "replay",
    "replay_match",
    "scan_record_lines",
    "scan_records",
    "schema",
]

# -- writing ---------------------------------------------------------------------------------

_TEXT: Final = tuple(str(Card.from_index(i)) for i in range(52))
"""Card index -> its canonical text (both copies of a two-deck card read the same)."""
_SINGLE_PLAY_TEXT: Final = {id(play): str(play) for play in SINGLE_PLAYS}
"""The interned single-card plays (most actions of a hand) -> their text, by identity."""


def hand_record(hand: HandState) -> dict[str, Any]:
    """A JSON-ready record of ``hand`` that :func:`replay` rebuilds (``gongzhu-hand/1``).

    :meth:`HandState.to_record <gongzhu.hand.HandState.to_record>` calls this.
    A finished hand's record holds its ``result``: the raw and final scores
    and each seat's captured scoring cards.
    """
    text = _TEXT
    single = _SINGLE_PLAY_TEXT
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "rules": hand.rules.spec(),
        "seed": hand.seed,
        "first_seat": hand.deal.first_seat,
        "deal": [text[card.index] for card in hand.deal.order],
        "leader": hand.explicit_leader,
        "actions": [
            {"seat": seat, "action": single.get(id(action)) or str(action)}
            for seat, action in hand.history
        ],
        "shows": [
            {
                "seat": show.seat,
                "kind": show.kind.value,
                "cards": [text[card.index] for card in show.cards or ()],
                "forced": show.forced,
            }
            for show in hand.shows  # every show, secret ones included
        ],
        "tricks": [  # from the engine's keys: no Trick objects made for the record
            {
                "leader": leader,
                "cards": [text[card.index] for key in keys for card in play_of_key(key).cards],
                "winner": winner,
                "taker": taker,
            }
            for leader, keys, winner, taker in hand.trick_log
        ],
    }
    if hand.phase is Phase.OVER:
        sheet = hand.score()
        record["result"] = {
            "raw": list(sheet.raw),
            "final": list(sheet.final),
            "captured": [[text[card.index] for card in cards] for cards in sheet.captured],
        }
    return record


def match_record(match: Match) -> dict[str, Any]:
    """A JSON-ready record of ``match`` that :func:`replay_match` rebuilds (``gongzhu-match/1``):
    every hand's record, the totals and (when over) the losers.

    :meth:`Match.to_record <gongzhu.match.Match.to_record>` calls this.
    """
    return {
        "format": MATCH_FORMAT,
        "rules": match.rules.spec(),
        "seed": match.seed,
        "target": match.target,
        "max_hands": match.max_hands,
        "hands": [hand_record(hand) for hand in match.hands],
        "totals": list(match.totals),
        "losers": list(match.losers) if match.is_over else None,
    }


# -- reading ---------------------------------------------------------------------------------

_HAND_FIELDS: dict[str, type | tuple[type, ...]] = {
    "format": str,
    "rules": dict,
    "seed": (int, type(None)),
    "first_seat": int,
    "deal": list,
    "leader": (int, type(None)),
    "actions": list,
}


def schema(kind: str = "hand") -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a ``"hand"`` or ``"match"`` record."""
    if kind not in ("hand", "match"):
        raise ValueError(f"no schema for {kind!r}: 'hand' or 'match'")
    from importlib import resources  # here: importing gongzhu need not pay for it

    text = resources.files("gongzhu").joinpath("schemas", f"{kind}.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """isinstance, with booleans never passing for integers (JSON keeps them apart)."""
    if isinstance(value, bool):
        return kind is bool or (isinstance(kind, tuple) and bool in kind)
    return isinstance(value, kind)


_JSON_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "true or false"),
    ((int, float), "a number"),
    (str, "a string"),
    ((list, tuple), "an array"),
    (Mapping, "an object"),
)


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words: ``"null"``, ``"a string"``..."""
    for kind, words in _JSON_KINDS:
        if isinstance(value, kind):
            return words
    return type(value).__name__


def _check_structure(record: Any, hand: int) -> None:
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"a hand record is a JSON object, not {json_kind(record)}", hand=hand)
    fmt = record.get("format")
    if fmt != RECORD_FORMAT:
        raise InvalidRecord(
            f"unknown record format {fmt!r} (expected {RECORD_FORMAT!r})", hand=hand
        )
    for name, kind in _HAND_FIELDS.items():
        if name not in record:
            if name in ("seed", "leader", "first_seat"):
                continue
            raise InvalidRecord(f"missing field {name!r}", hand=hand)
        if not _is(record[name], kind):
            raise InvalidRecord(
                f"field {name!r} has the wrong type ({json_kind(record[name])})", hand=hand
            )
    spec = record["rules"]
    variants = spec.get("variants", [])
    options = spec.get("options", {})
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise InvalidRecord("rules.variants must be a list of names", hand=hand)
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise InvalidRecord("rules.options must be an object", hand=hand)
    for index, entry in enumerate(record["actions"]):
        if (
            not isinstance(entry, Mapping)
            or not isinstance(entry.get("action"), str)
            or not _is(entry.get("seat"), int)
        ):
            raise InvalidRecord("an action is {'seat': n, 'action': text}", hand=hand, index=index)
    result = record.get("result")
    if result is not None:
        if not isinstance(result, Mapping):
            raise InvalidRecord("result must be an object", hand=hand)
        for name in ("raw", "final"):
            scores = result.get(name)
            if scores is not None and (
                not isinstance(scores, list) or not all(_is(s, int) for s in scores)
            ):
                raise InvalidRecord(f"result.{name} must be a list of integers", hand=hand)


def _rules_of(record: Mapping[str, Any], rules: Rules | None, hand: int | None) -> Rules:
    """The record's ruleset.  ``rules.variants`` defaults to ``[]`` (the default
    base alone) and ``rules.options`` to ``{}`` (every option at its default)."""
    variants = list(record["rules"].get("variants", []))
    options = dict(record["rules"].get("options", {}))
    if rules is None:
        try:
            return load_rules(*variants, **options)
        except GongzhuError as exc:
            raise InvalidRecord(f"rules: {exc}", hand=hand) from None
    defaults = {o.name: o.default for o in rules.option_specs}
    same_names = list(rules.names) in (variants, [DEFAULT_BASE, *variants])
    same_options = set(options) <= set(defaults) and all(
        rules.options[name] == options.get(name, default) for name, default in defaults.items()
    )
    if not (same_names and same_options):
        raise InvalidRecord(
            f"rules: the record was played under {variants} {options}, not {rules!r}",
            hand=hand,
        )
    return rules


def replay(record: Mapping[str, Any], *, hand: int = 0, rules: Rules | None = None) -> HandState:
    """Rebuild a hand from its record, checking every action's legality.

    A record of an unfinished hand gives the state after its last action.  A
    stored result, and the stored shows and tricks, are compared with the
    replayed hand.

    :param record: a mapping as :func:`hand_record` returns (or its JSON).
    :param hand: the hand's number within a larger record, for error messages.
    :param rules: the ruleset to replay under, for plug-ins that are not
        installed (:meth:`Rules.from_plugins`); it must match the record's
        plug-in names and options.  By default the record's ruleset is loaded
        by entry-point name.
    :raises InvalidRecord: naming the hand, the action index and the reason;
        nothing half-loaded is returned.
    """
    _check_structure(record, hand)
    rules = _rules_of(record, rules, hand)
    try:
        deal = Deal(tuple(record["deal"]), record.get("first_seat", 0))
    except (InvalidCard, TypeError) as exc:
        raise InvalidRecord(f"deal: {exc}", hand=hand) from None
    try:
        state = rules.new_hand(record.get("seed"), deal=deal, leader=record.get("leader"))
    except InvalidCard as exc:  # a deal of other decks than the ruleset's, or not its seed's
        raise InvalidRecord(f"deal: {exc}", hand=hand) from None
    except GongzhuError as exc:
        raise InvalidRecord(f"leader: {exc}", hand=hand) from None
    for index, entry in enumerate(record["actions"]):
        if entry["seat"] != state.to_move:
            raise InvalidRecord(
                f"action by seat {entry['seat']!r}, but "
                + ("the hand is over" if state.is_over else f"seat {state.to_move} is to move"),
                hand=hand,
                index=index,
            )
        try:
            state.apply(parse_action(entry["action"]))
        except (InvalidCard, IllegalAction) as exc:
            raise InvalidRecord(str(exc), hand=hand, index=index) from None
    result = record.get("result")
    if result is not None and not state.is_over:
        raise InvalidRecord(
            "the record has a result but its actions do not finish the hand", hand=hand
        )
    replayed = hand_record(state)
    if result is not None:
        for name in ("raw", "final"):
            stored, value = result.get(name), replayed["result"][name]
            if stored is not None and stored != value:
                raise InvalidRecord(
                    f"stored {name} scores {stored} differ from the replayed {value}", hand=hand
                )
    for name in ("shows", "tricks"):
        stored = record.get(name)
        if stored is not None and stored != replayed[name]:
            raise InvalidRecord(f"stored {name} differ from the replayed hand", hand=hand)
    stored_captured = None if result is None else result.get("captured")
    if stored_captured is not None and stored_captured != replayed["result"]["captured"]:
        raise InvalidRecord("stored captured cards differ from the replayed hand", hand=hand)
    return state


def replay_match(record: Mapping[str, Any], *, rules: Rules | None = None) -> Match:
    """Rebuild a match from its record, replaying and checking every hand.

    :raises InvalidRecord: for a bad hand (named by its number), a hand
        played under other rules, or stored totals or losers that differ.
    """
    if not isinstance(record, Mapping) or record.get("format") != MATCH_FORMAT:
        if isinstance(record, Mapping):
            found = f"format {record.get('format')!r}"
        else:
            found = json_kind(record)
        raise InvalidRecord(f"not a match record ({found}; expected {MATCH_FORMAT!r})", hand=None)
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise InvalidRecord("a match record has a non-empty list of hands", hand=None)
    target = record.get("target")
    if target is not None and not _is(target, int):
        raise InvalidRecord("target must be an integer or null", hand=None)
    seed = record.get("seed")
    if seed is not None and not _is(seed, int):
        raise InvalidRecord("seed must be an integer or null", hand=None)
    spec = record.get("rules")
    if (
        not isinstance(spec, Mapping)
        or not isinstance(spec.get("variants", []), list)
        or not isinstance(spec.get("options", {}), Mapping)
    ):
        raise InvalidRecord("rules must be an object of variants and options", hand=None)
    first = replay(hands[0], hand=0, rules=rules)
    _rules_of(record, first.rules, hand=None)  # the match's rules are its hands'
    max_hands = record.get("max_hands")
    if max_hands is not None and not _is(max_hands, int):
        raise InvalidRecord("max_hands must be an integer or null", hand=None)
    if seed is None:
        raise InvalidRecord(
            "seed: a match's hands are dealt from its seed; a match record needs it", hand=None
        )
    try:  # its first hand says who was dealt first and led (a match after another: 当猪)
        match = Match(
            first.rules,
            seed=seed,
            target=target,
            hands=max_hands,
            first_dealer=first.deal.first_seat,
            leader=first.explicit_leader,
        )
    except GongzhuError as exc:
        raise InvalidRecord(f"match: {exc}", hand=None) from None
    for number, entry in enumerate(hands):
        state = first if number == 0 else replay(entry, hand=number, rules=first.rules)
        if not state.is_over:
            raise InvalidRecord("a match holds finished hands only", hand=number)
        if number:
            expected = first.rules.next_leader(match.hands[-1])
            if expected is not None and state.explicit_leader != expected:
                raise InvalidRecord(
                    f"led by seat {state.leader}, but the ruleset gives seat {expected}",
                    hand=number,
                )
        if match.is_over:
            raise InvalidRecord("the match was already over before this hand", hand=number)
        try:
            match.record_hand(state)
        except GongzhuError as exc:  # not the hand the match deals next
            raise InvalidRecord(str(exc), hand=number) from None
    for name, value in (
        ("totals", match.totals),
        ("losers", list(match.losers) if match.is_over else None),
    ):
        if name in record and record[name] != value:
            raise InvalidRecord(
                f"stored {name} {record[name]!r} differ from the replayed {value!r}", hand=None
            )
    return match


@attrs.frozen
class RecordEntry:
    """One record of a text, where it was found, and the record or why it cannot be read.

    :ivar index: the record's position among the text's records, from 0.
    :ivar line: the physical line it starts on, from 1 (JSON Lines, or a text
        holding a single JSON object), or ``None`` for an element of a JSON array.
    :ivar record: the decoded JSON value, or ``None`` when it could not be decoded.
    :ivar error: why it could not be decoded, or ``None``.
    """

    index: int
    line: int | None
    record: Any
    error: InvalidRecord | None = None


_JSON_SPACE = " \t\r\n"
"""What JSON counts as white space (``str.strip()`` would take more: U+2028, U+0085...)."""


def _decode(text: str) -> Any:
    """``json.loads``, with every failure an :class:`InvalidRecord` (or JSONDecodeError)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InvalidRecord("the JSON is nested too deeply to read") from None
    except ValueError:  # json's only other failure: an integer too long to convert
        limit = sys.get_int_max_str_digits()
        raise InvalidRecord(f"an integer is too long to read (over {limit} digits)") from None


def scan_records(text: str) -> Iterator[RecordEntry]:
    """Every record of a JSON document or of JSON Lines text, in order, with its place.

    A text that is one JSON value gives that value (an array: each element);
    a JSON document written over several lines with a syntax error gives one
    entry, whose error names the line and column; otherwise each non-blank
    line is one record (JSON Lines; a line that cannot be decoded gives an
    entry with its :attr:`~RecordEntry.error`, and the scan goes on).  A text
    is read as such a broken document when its first non-blank line is no JSON
    value alone and the error lies on a later line that is no JSON value alone
    either.  Lines are counted as an editor counts them:
    ``\\n`` ends a line, blank lines count, and a ``\\r`` before it is ignored.

    A byte-order mark at the start (as some Windows editors write) is skipped.
    :func:`scan_record_lines` reads the same from lines as they come.

    :raises InvalidRecord: for a text with no record at all.
    """
    text = text.removeprefix("\ufeff")
    if not text.strip(_JSON_SPACE):
        raise InvalidRecord("no record: the text is empty")
    try:
        whole = _decode(text)
    except json.JSONDecodeError as exc:
        broken = _broken_document(text, exc)
        if broken is not None:
            yield broken
            return
    except InvalidRecord:
        pass
    else:
        if isinstance(whole, list):
            for index, item in enumerate(whole):
                yield RecordEntry(index, None, item)
        else:
            start = len(text) - len(text.lstrip(_JSON_SPACE))
            yield RecordEntry(0, text.count("\n", 0, start) + 1, whole)
        return
    yield from _line_entries(text.split("\n"))


def scan_record_lines(
    lines: Iterable[str], *, max_document: int | None = None
) -> Iterator[RecordEntry]:
    """:func:`scan_records` of the text made of ``lines``, read as they come.

    JSON Lines are decoded one line at a time, so a file of any length is
    scanned in the memory of one record, and each entry is given before the
    next line is read (a reader that fails there has given what came before).
    A text whose first non-blank line is not a JSON value by itself is
    gathered while it may still be one JSON document written over several
    lines, and scanned by :func:`scan_records` if it is; as soon as what was
    gathered cannot begin one (JSON Lines that start with a bad line), the
    rest is read a line at a time.

    :param lines: the text's lines (a ``\\n`` ending a line is ignored).
    :param max_document: the most characters gathered for a document over
        several lines; a longer text is read as JSON Lines.
    :raises InvalidRecord: for a text with no record at all.
    """
    lines = (line.removesuffix("\n") for line in lines)
    head: list[str] = []  # up to the first non-blank line, then the second, as read
    first = ""
    for line in lines:
        head.append(line)
        first = line.removeprefix("\ufeff") if len(head) == 1 else line
        if first.strip(_JSON_SPACE):
            break
    else:
        raise InvalidRecord("no record: the text is empty")
    try:
        value = _decode(first)
    except (json.JSONDecodeError, InvalidRecord):
        yield from _document_or_lines(head, lines, max_document)
        return
    if not isinstance(value, list):
        # the first record whether more follow or not: given before the next line is read
        yield RecordEntry(0, len(head), value)
        yield from _line_entries(lines, after=(1, len(head)))
        return
    for line in lines:
        head.append(line)
        if line.strip(_JSON_SPACE):  # a second record: JSON Lines
            head[0] = head[0].removeprefix("\ufeff")
            yield from _line_entries(itertools.chain(head, lines))
            return
    yield from scan_records("\n".join(head))  # a single JSON array


_FIRST_LOOK: Final = 1 << 12
"""Characters gathered before a text is first asked whether it may be one JSON document."""


def _document_or_lines(
    head: list[str], lines: Iterator[str], limit: int | None
) -> Iterator[RecordEntry]:
    """A text whose first non-blank line is no value alone: one document or JSON Lines."""
    text = io.StringIO()
    text.write("\n".join(head))
    size = text.tell()
    look_at = _FIRST_LOOK
    for line in lines:
        text.write("\n")  # what was gathered is followed by more: its lines are whole
        size += 1
        if size >= look_at or (limit is not None and size > limit):
            gathered = text.getvalue().removeprefix("\ufeff")
            too_long = limit is not None and size > limit
            error = None if too_long else _syntax_error(gathered)
            if isinstance(error, json.JSONDecodeError):
                broken = _broken_document(gathered, error)
                if broken is not None:  # what follows cannot mend it: the rest is not read
                    yield broken
                    return
            if too_long or error is not None:
                read = gathered.split("\n")[:-1]
                yield from _line_entries(itertools.chain(read, [line], lines))
                return
            look_at = 2 * size
        text.write(line)
        size += len(line)
    yield from scan_records(text.getvalue())


def _syntax_error(text: str) -> json.JSONDecodeError | InvalidRecord | None:
    """The error that ``text``, whole lines each ended by ``\\n``, has whatever follows
    them: ``None`` where they may begin one JSON value (or are one).

    A JSON token never spans lines (strings hold no raw line break), so a
    syntax error before the end of whole lines is an error of every text
    they begin, and with the same message (an unended string meets the
    ``\\n``, as it would in the whole text).
    """
    try:
        _decode(text)
    except json.JSONDecodeError as exc:
        return None if _ends_early(text, exc) else exc
    except InvalidRecord as exc:
        return exc
    return None


def _ends_early(text: str, error: json.JSONDecodeError) -> bool:
    """Whether ``error`` is at the end of ``text``: what follows may still mend it."""
    return error.pos >= len(text.rstrip(_JSON_SPACE))


def _broken_document(text: str, error: json.JSONDecodeError) -> RecordEntry | None:
    """The one entry of ``text`` read as a JSON document over several lines that has
    ``error``, or ``None`` where it reads as JSON Lines: its first non-blank line is a JSON
    value by itself or has the error, or the line with the error is a value by itself."""
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip(_JSON_SPACE))
    wrong = error.lineno - 1
    if wrong <= first or _is_value(lines[first]) or _is_value(lines[wrong]):
        return None
    if _ends_early(text, error):  # cut short: named by its last line
        last = max(i for i, line in enumerate(lines) if line.strip(_JSON_SPACE)) + 1
        reason = f"line {last}: the JSON document ends before it is complete ({error.msg})"
    else:
        reason = f"line {error.lineno} is not JSON: {error.msg} (column {error.colno})"
    return RecordEntry(0, first + 1, None, InvalidRecord(reason, hand=0))


def _is_value(line: str) -> bool:
    try:
        _decode(line)
    except (json.JSONDecodeError, InvalidRecord):
        return False
    return True


def _line_entries(lines: Iterable[str], after: tuple[int, int] = (0, 0)) -> Iterator[RecordEntry]:
    """JSON Lines: an entry for each non-blank line, numbered from 1.

    :param after: the records and the lines before ``lines``.
    """
    index, before = after
    for number, line in enumerate(lines, before + 1):
        if not line.strip(_JSON_SPACE):
            continue
        try:
            entry = RecordEntry(index, number, _decode(line))
        except json.JSONDecodeError as exc:
            reason = f"line {number} is not JSON: {exc.msg} (column {exc.colno})"
            entry = RecordEntry(index, number, None, InvalidRecord(reason, hand=index))
        except InvalidRecord as exc:
            reason = f"line {number}: {exc.reason}"
            entry = RecordEntry(index, number, None, InvalidRecord(reason, hand=index))
        yield entry
        index += 1


def read_records(text: str) -> Iterator[Mapping[str, Any]]:
    """The record objects of a JSON document or of JSON Lines text, in order.

    :func:`scan_records` says where each record is and goes on past a bad one.

    :raises InvalidRecord: for text that is neither, naming the physical line
        (and for JSON nested too deeply, or an integer too long, to read).
    """
    for entry in scan_records(text):
        if entry.error is not None:
            raise entry.error
        yield entry.record
