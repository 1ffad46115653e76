"""The record format: schema, lenient reading, round trips, match records, fuzzing."""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import random
from unittest import mock

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import record as record_module
from gongzhu.bots import RandomBot, play_hand
from gongzhu.errors import InvalidRecord
from gongzhu.record import scan_record_lines, scan_records, schema

from .test_huapai import COMBINATIONS as SHOW_FAMILY
from .test_table_rules import COMBINATIONS as TABLE_RULES

EVERY_COMBINATION = sorted(set(SHOW_FAMILY) | set(TABLE_RULES))


def played(names: tuple[str, ...], seed: int) -> gongzhu.HandState:
    hand = gongzhu.load_rules(*names).new_hand(seed)
    return play_hand(hand, [RandomBot(seed + seat) for seat in range(4)])


def test_schemas_are_valid_json_schema() -> None:
    for kind in ("hand", "match"):
        jsonschema.Draft202012Validator.check_schema(schema(kind))
    with pytest.raises(ValueError, match="no schema"):
        schema("tournament")


def hand_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema("hand"))


@pytest.mark.parametrize("names", EVERY_COMBINATION, ids="+".join)
def test_every_plugin_round_trips_and_matches_the_schema(names: tuple[str, ...]) -> None:
    for seed in (1, 2):
        hand = played(names, seed)
        record = json.loads(json.dumps(hand.to_record(), ensure_ascii=False))
        hand_validator().validate(record)
        again = gongzhu.replay(record)
        assert again.to_record() == record
        assert again.score() == hand.score()


def test_unfinished_records_match_the_schema() -> None:
    hand = gongzhu.load_rules("huapai", "anmai").new_hand(5)
    for _ in range(10):
        hand.apply(hand.legal_actions()[0])
    hand_validator().validate(hand.to_record())


def test_match_record_round_trip() -> None:
    match = gongzhu.load_rules("huapai", "shuangzhu").new_match(seed=2)
    match.play([RandomBot(seat) for seat in range(4)])
    record = json.loads(json.dumps(match.to_record()))
    store = {"hand.schema.json": schema("hand")}
    resolver_schema = schema("match")
    validator = jsonschema.Draft202012Validator(
        resolver_schema,
        registry=__import__("referencing")
        .Registry()
        .with_resources(
            [
                (
                    "https://gongzhu.invalid/schemas/hand.schema.json",
                    __import__("referencing").Resource.from_contents(store["hand.schema.json"]),
                )
            ]
        ),
    )
    validator.validate(record)
    again = gongzhu.replay_match(record)
    assert again.totals == match.totals and again.losers == match.losers
    assert again.to_record() == record


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r.__setitem__("totals", [0, 0, 0, 0]), "stored totals"),
        (
            lambda r: r.__setitem__("losers", [s for s in range(4) if s not in r["losers"]]),
            "stored losers",
        ),
        (lambda r: r["hands"].append(copy.deepcopy(r["hands"][0])), "already over|led by seat"),
        (lambda r: r.__setitem__("hands", []), "non-empty list of hands"),
        (lambda r: r.__setitem__("format", "gongzhu-hand/1"), "not a match record"),
        (lambda r: r["hands"][1]["actions"].pop(), "hand 1"),
        (lambda r: r.__setitem__("seed", "x"), "seed must be an integer or null"),
        (lambda r: r.__setitem__("seed", 1.5), "seed must be an integer or null"),
        (lambda r: r.__setitem__("rules", None), "rules must be an object of variants"),
        (
            lambda r: r.__setitem__("rules", {"variants": ["huapai"]}),
            r"rules: the record was played under \['huapai'\] \{\}, not load_rules\('39baobao'\)",
        ),
    ],
)
def test_bad_match_records(change, reason: str) -> None:
    match = gongzhu.load_rules().new_match(seed=2, hands=3)
    match.play([RandomBot(seat) for seat in range(4)])
    record = match.to_record()
    assert len(record["hands"]) == 3
    change(record)
    with pytest.raises(InvalidRecord, match=reason):
        gongzhu.replay_match(record)


def test_39baobao_match_leaders_are_checked() -> None:
    match = gongzhu.load_rules().new_match(seed=4, hands=3)
    match.play([RandomBot(seat) for seat in range(4)])
    record = match.to_record()
    assert gongzhu.replay_match(record).totals == match.totals
    record["hands"][1]["leader"] = (record["hands"][1]["leader"] + 1) % 4
    with pytest.raises(InvalidRecord):
        gongzhu.replay_match(record)


CHINESE = {"S": "黑桃", "H": "红桃", "D": "方片", "C": "梅花"}


def to_chinese(card: str) -> str:
    rank = "10" if card[0] == "T" else card[0]
    return CHINESE[card[1]] + rank


def test_read_leniently() -> None:
    hand = played(("39baobao",), 3)
    record = hand.to_record()
    lenient = copy.deepcopy(record)
    lenient["deal"] = [
        to_chinese(c) if i % 3 == 0 else c.replace("T", "10") for i, c in enumerate(record["deal"])
    ]
    for entry in lenient["actions"]:
        verb, _, rest = entry["action"].partition(" ")
        if verb == "play":
            entry["action"] = f"play {to_chinese(rest)}"
    again = gongzhu.replay(lenient)
    assert again.to_record() == record  # written back strictly


def test_read_records_json_jsonl_and_arrays() -> None:
    records = [played(("39baobao",), s).to_record() for s in (1, 2, 3)]
    jsonl = "\n".join(json.dumps(r) for r in records) + "\n"
    assert list(gongzhu.read_records(jsonl)) == records
    assert list(gongzhu.read_records(json.dumps(records))) == records
    assert list(gongzhu.read_records(json.dumps(records[0], indent=2))) == records[:1]
    with pytest.raises(InvalidRecord, match="line 2 is not JSON"):
        list(gongzhu.read_records(json.dumps(records[0]) + "\n{oops\n"))
    with pytest.raises(InvalidRecord, match="empty"):
        list(gongzhu.read_records("  \n"))
    with pytest.raises(InvalidRecord, match="line 4 is not JSON"):  # leading blank lines count
        list(gongzhu.read_records("\n\n" + json.dumps(records[0]) + "\n{oops\n"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "line 1: the JSON is nested too deeply to read"),
        (
            '{"seed": ' + "9" * 5000 + "}",
            r"line 1: an integer is too long to read \(over \d+ digits",
        ),
    ],
)
def test_unreadable_json_is_an_invalid_record(text: str, reason: str) -> None:
    with pytest.raises(InvalidRecord, match=reason):
        list(gongzhu.read_records(text))
    with pytest.raises(InvalidRecord, match=reason.replace("line 1", "line 3")):
        list(gongzhu.read_records("{}\n\n" + text))


def test_scan_records_goes_on_past_bad_lines() -> None:
    good = json.dumps(played(("39baobao",), 1).to_record())
    text = f"\n{good}\r\n\n{{oops\n\u2028\n{good}\n"
    entries = list(scan_records(text))
    assert [(e.index, e.line, e.error is None) for e in entries] == [
        (0, 2, True),
        (1, 4, False),
        (2, 5, False),
        (3, 6, True),
    ]
    assert entries[1].error is not None and entries[1].error.hand == 1
    array = list(scan_records(json.dumps([json.loads(good)] * 2)))
    assert [(e.index, e.line) for e in array] == [(0, None), (1, None)]
    assert [e.line for e in scan_records("\n\n  " + good)] == [3]


_PIECES = st.sampled_from(
    [
        "",
        "  \r",
        '{"a": 1}',
        "[1, 2]",
        "7",
        "{oops",
        "\ufeff{}",
        "\u2028",
        '{\n "a": [\n  1\n ]\n}',  # a document over several lines
        "[\n",
        "]",
        '{"a":',
        '"b"}',
        '"unended',
        "1,",
        "-",
        "tr",
        "ue",
        '  "k": [1,',  # the inside of a document, no value alone
        "oops",
    ]
)


def _scanned(scan: object) -> list[tuple[object, ...]] | str:
    try:
        return [
            (e.index, e.line, e.record, None if e.error is None else e.error.reason)
            for e in scan  # type: ignore[attr-defined]
        ]
    except InvalidRecord as exc:
        return exc.reason


@given(st.lists(_PIECES, max_size=8), st.booleans(), st.sampled_from([1, 5, 1 << 12]))
def test_scanning_lines_as_they_come_reads_what_scanning_the_text_reads(
    pieces: list[str], bom: bool, first_look: int
) -> None:
    """Whenever the lines are asked whether they may still begin one JSON document (after
    ``first_look`` characters, then twice as many), the answer is the whole text's."""
    text = ("\ufeff" if bom else "") + "\n".join(pieces)
    with mock.patch.object(record_module, "_FIRST_LOOK", first_look):
        assert _scanned(scan_record_lines(text.split("\n"))) == _scanned(scan_records(text))


def _fail(what: str) -> str:
    raise AssertionError(f"read {what}")


def test_scanning_lines_reads_json_lines_one_line_at_a_time() -> None:
    def lines():
        yield '{"a": 1}'
        yield '{"a": 2}'
        raise AssertionError("read past the record asked for")

    entries = scan_record_lines(lines())
    assert next(entries).record == {"a": 1}
    # the first record is given before the second line is read (a reader may fail there)
    first = scan_record_lines(itertools.chain(['{"a": 1}'], map(_fail, ["line 2"])))
    assert next(first).record == {"a": 1}
    with pytest.raises(AssertionError, match="line 2"):
        next(first)
    # a document over several lines is gathered up to max_document, then read as JSON Lines
    assert [e.record for e in scan_record_lines(["[", "1,", "2", "]"], max_document=10)] == [1, 2]
    long = list(scan_record_lines(["[", "1,", "2,", "3,", "4,", "5", "]"], max_document=10))
    assert [e.line for e in long] == list(range(1, 8)) and long[0].error is not None
    # lines that end in "\n" (a file's) are read as lines without it
    assert [e.line for e in scan_record_lines(["{oops\n", "\n", "{}\n"])] == [1, 3]


def test_a_document_over_several_lines_with_a_syntax_error_is_one_refused_entry() -> None:
    records = json.dumps([{"a": 1}, {"b": [2, 3]}], indent=1).split("\n")  # 11 lines
    typo = [*records[:5], records[5] + ",", *records[6:]]  # '  "b": [,' on line 6
    junk = [*records, "oops"]  # something after the document
    cut = [*records[:7], ""]  # a file cut short, after its line 7 and a line break
    for lines, at in (
        (typo, "line 6 is not JSON: Expecting value (column 9)"),
        (junk, "line 12 is not JSON: Extra data (column 1)"),
        (cut, "line 7: the JSON document ends before it is complete (Expecting value)"),
    ):
        for scan in (scan_records("\n".join(lines)), scan_record_lines(lines)):
            (entry,) = scan
            assert (entry.index, entry.line, entry.record) == (0, 1, None)
            assert entry.error is not None and entry.error.reason == at
    # JSON Lines whose first line is cut (or wrong), or a record followed by a bad line, are
    # still read a line at a time: the first line, or the line with the error, is a value
    for text in ('{"a": 1,\n{"b": 2}', '{"a": 1}\n {"b":'):
        assert [e.line for e in scan_records(text)] == [1, 2]
        assert [e.line for e in scan_record_lines(text.split("\n"))] == [1, 2]


def test_json_lines_starting_with_a_bad_line_are_still_read_a_line_at_a_time() -> None:
    good = json.dumps({"a": 1})

    def lines():
        yield "{oops"
        for _ in range(400):  # about 3,600 characters: past the first look
            yield good
        raise AssertionError("gathered past the point where it could not be one document")

    with mock.patch.object(record_module, "_FIRST_LOOK", 100):
        entries = scan_record_lines(lines())
        assert next(entries).error is not None
        assert next(entries).record == {"a": 1}


def test_a_record_without_variants_matches_the_schema() -> None:
    record = played(("39baobao",), 1).to_record()
    del record["rules"]["variants"]
    hand_validator().validate(record)
    assert gongzhu.replay(record).rules.names == ("39baobao",)


# -- fuzzing --------------------------------------------------------------------------------

BASE_RECORDS = [played(names, 7).to_record() for names in (("39baobao",), ("huapai", "anmai"))]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 60)
    | st.text(max_size=6)
    | st.sampled_from(["QS", "play 2C", "show -", "39baobao"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=8,
)


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(range(len(BASE_RECORDS))),
    picks=st.lists(
        st.tuples(st.integers(0, 10**6), st.sampled_from(["set", "delete"]), json_values),
        min_size=1,
        max_size=3,
    ),
)
def test_mutated_records_are_valid_or_refused(which: int, picks: list) -> None:
    record = copy.deepcopy(BASE_RECORDS[which])
    for number, how, value in picks:
        places = [p for p in paths(record) if p]
        path = places[number % len(places)]
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if how == "delete":
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    with contextlib.suppress(InvalidRecord):
        gongzhu.replay(record)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
        max_leaves=10,
    )
)
def test_arbitrary_json_is_refused(value: object) -> None:
    with pytest.raises(InvalidRecord):
        gongzhu.replay(value)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord):
        gongzhu.replay_match(value)  # type: ignore[arg-type]


def test_random_play_records_survive_json_lines() -> None:
    rng = random.Random(3)
    lines = []
    for _ in range(20):
        names = rng.choice(EVERY_COMBINATION)
        lines.append(json.dumps(played(names, rng.randrange(1000)).to_record(), ensure_ascii=False))
    for number, record in enumerate(gongzhu.read_records("\n".join(lines))):
        gongzhu.replay(record, hand=number)
