"""The scoring table of docs/rules.rst and the worked examples of the rule sources, through
``rules.score``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu.errors import GongzhuError, InvalidScoreInput
from gongzhu_variants.baobao39 import zero_sum_thirds

ALL_HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"


def raw(rules: gongzhu.Rules, cards: str, **shows: dict[int, str]) -> int:
    return rules.score({0: cards}, **shows).raw[0]


# -- source 000 (39baobao) --------------------------------------------------------------


def test_source000_worked_example_normalisation(rules: gongzhu.Rules) -> None:
    """-120, -280, 0, 160 → -80, -293, 80, 293 → ×12."""
    assert zero_sum_thirds((-120, -280, 0, 160)) == (-80, -293, 80, 293)
    assert rules.normalise((-120, -280, 0, 160)) == (-960, -3516, 960, 3516)


def test_rounded_results_may_leave_twelve_and_exact_ones_never() -> None:
    rounded = gongzhu.load_rules()
    assert rounded.normalise((10, 10, 10, 0)) == (36, 36, 36, -120)  # sums to −12
    exact = gongzhu.load_rules(zero_sum="exact")
    assert exact.normalise((10, 10, 10, 0)) == (40, 40, 40, -120)
    assert exact.normalise((-120, -280, 0, 160)) == (-960, -3520, 960, 3520)
    assert "±12" in rounded.score({0: "QS"}).normalisation


@settings(max_examples=300, deadline=None)
@given(raw=st.tuples(*[st.integers(-2000, 2000)] * 4))
def test_exact_results_are_zero_sum_and_near_the_rounded_ones(raw: tuple[int, ...]) -> None:
    exact = gongzhu.load_rules(zero_sum="exact").normalise(raw)
    rounded = gongzhu.load_rules().normalise(raw)
    assert sum(exact) == 0
    assert sum(rounded) in (-12, 0, 12)
    assert all(abs(e - r) <= 4 for e, r in zip(exact, rounded, strict=True))


def test_normalise_validates_input(rules: gongzhu.Rules) -> None:
    with pytest.raises(InvalidScoreInput, match="four integer"):
        rules.normalise((1, 2, 3))
    with pytest.raises(InvalidScoreInput):
        rules.normalise((1.5, 2, 3, 4))  # type: ignore[arg-type]


def test_rounding_is_to_nearest_both_ways() -> None:
    # (4·r − total)/3: 2/3 rounds up to 1, −2/3 down to −1, ±1/3 towards 0
    assert zero_sum_thirds((0, 0, 0, -2)) == (1, 1, 1, -2)
    assert zero_sum_thirds((0, 0, 0, 2)) == (-1, -1, -1, 2)
    assert zero_sum_thirds((0, 0, 0, 1)) == (0, 0, 0, 1)
    assert zero_sum_thirds((0, 0, 0, -1)) == (0, 0, 0, -1)
    assert zero_sum_thirds((5, 0, 0, 0)) == (5, -2, -2, -2)


def test_base_values(rules: gongzhu.Rules) -> None:
    assert raw(rules, "QS") == -100
    assert raw(rules, "JD") == 100
    assert raw(rules, "AH") == -50
    assert raw(rules, "KH QH JH") == -90
    assert raw(rules, "TH 9H 8H 7H 6H 5H") == -60
    assert raw(rules, "4H 3H 2H") == 0
    assert raw(rules, "AS KS 2C") == 0  # no scoring cards


def test_shown_values(rules: gongzhu.Rules) -> None:
    assert raw(rules, "QS", shown={0: "QS"}) == -200
    assert raw(rules, "JD", shown={1: "JD"}) == 200
    # ♥A shown (by anyone) doubles every heart
    assert raw(rules, "KH 5H", shown={2: "AH"}) == -100
    assert raw(rules, "AH", shown={0: "AH"}) == -100


def test_transformer_alone(rules: gongzhu.Rules) -> None:
    assert raw(rules, "TC") == 50
    assert raw(rules, "TC", shown={3: "TC"}) == 100


def test_transformer_with_only_zero_hearts_is_zero(rules: gongzhu.Rules) -> None:
    """♣10 with ♥2 only: the sum of the others is 0 and stays 0 (not +50)."""
    assert raw(rules, "TC 2H") == 0
    assert raw(rules, "TC 2H 3H 4H", shown={0: "TC"}) == 0


def test_transformer_multiplies(rules: gongzhu.Rules) -> None:
    assert raw(rules, "TC QS") == -200
    assert raw(rules, "TC QS JD AH") == -100
    assert raw(rules, "TC JD", shown={0: "TC"}) == 400


def test_full_hearts(rules: gongzhu.Rules) -> None:
    assert raw(rules, ALL_HEARTS) == 200
    assert raw(rules, ALL_HEARTS, shown={0: "AH"}) == 400
    assert raw(rules, ALL_HEARTS + " QS") == 100
    sheet = rules.score({0: ALL_HEARTS})
    assert sheet.full_hearts == (True, False, False, False)
    assert not any(sheet.slam)


def test_twelve_hearts_is_not_full_hearts(rules: gongzhu.Rules) -> None:
    """满红 needs all 13 hearts, ♥2-4 included."""
    assert raw(rules, ALL_HEARTS.replace(" 2H", "")) == -200


def test_slam(rules: gongzhu.Rules) -> None:
    assert raw(rules, ALL_HEARTS + " QS JD TC") == 800
    sheet = rules.score({2: ALL_HEARTS + " QS JD TC"})
    assert sheet.slam == (False, False, True, False)
    assert sheet.full_hearts == (False, False, True, False)


def test_slam_with_shows_doubles_accordingly(rules: gongzhu.Rules) -> None:
    # pig shown +200, hearts with ♥A shown +400, sheep shown +200, transformer shown ×4
    everything = ALL_HEARTS + " QS JD TC"
    assert raw(rules, everything, shown={0: "QS", 1: "AH"}) == (200 + 400 + 100) * 2
    assert raw(rules, everything, shown={0: "QS JD TC AH"}) == (200 + 400 + 200) * 4


def test_source001_example_pig_hearts_transformer(rules: gongzhu.Rules) -> None:
    """豬，明紅桃6、8、10、J，變壓器 = (−100 − 60 − 40) × 2 = −400 (♥A shown by someone)."""
    sheet = rules.score({0: "QS 6H 8H TH JH TC"}, shown={3: "AH"})
    assert sheet.raw[0] == -400


def test_explain_lines(rules: gongzhu.Rules) -> None:
    sheet = rules.score({0: "QS 6H 8H TH JH TC", 1: "JD"}, shown={0: "QS", 3: "AH"})
    lines = sheet.explain(0)
    assert lines[0] == "pig ♠Q −100 ×2 (shown)"
    assert lines[1] == "hearts ×4 −50 ×2 (♥A shown) = −100"
    assert lines[2] == "transformer ♣10 ×2"
    assert lines[3] == "transformer: −300 ×2 = −600"
    assert lines[4] == "raw −600"
    assert lines[5].startswith("final ")
    assert sheet.explain(2)[:2] == ["no scoring cards", "raw 0"]
    assert "seat" in str(sheet)


def test_score_sheet_fields(rules: gongzhu.Rules) -> None:
    sheet = rules.score({0: "QS 2C", 1: "JD", 2: "AH", 3: "TC"}, shown={1: "JD"})
    assert sheet.raw == (-100, 200, -50, 50)
    assert sheet.final == rules.normalise(sheet.raw)
    assert [str(c) for c in sheet.captured[0]] == ["QS"]
    assert [(s.seat, str(s.card), s.kind.value) for s in sheet.shows] == [(1, "JD", "open")]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"taken": {4: "QS"}}, "seat 4"),
        ({"taken": {-1: "QS"}}, "seat -1"),
        ({"taken": {"0": "QS"}}, "seat '0'"),
        ({"taken": {0: "QS", 1: "QS"}}, "QS is taken twice; the deck holds it once$"),
        ({"taken": {0: "QS QS"}}, "QS is taken twice; the deck holds it once$"),
        ({"taken": {0: "QX"}}, "taken of seat 0"),
        ({"taken": {0: "QS"}, "shown": {0: "KS"}}, "KS, which is not showable"),
        (
            {"taken": {0: "QS"}, "shown": {0: "QS", 1: "QS"}},
            "QS is shown twice; the deck holds it once$",
        ),
        ({"taken": {0: "QS"}, "shown": {5: "QS"}}, "seat 5"),
        ({"taken": {0: "QS"}, "shown": {0: "QS"}, "dealt": {1: "QS"}}, "not dealt it"),
        ({"taken": {0: "QS"}, "first_shown": {0: "QS"}}, "no first shows"),
        ({"taken": {0: "QS"}, "secret": {0: "QS"}}, "no secret shows"),
        ({"taken": [["QS"]]}, "must be a mapping"),
    ],
)
def test_score_validates_input(rules: gongzhu.Rules, kwargs: dict, message: str) -> None:
    kwargs = dict(kwargs)
    taken = kwargs.pop("taken")
    with pytest.raises(InvalidScoreInput, match=message) as info:
        rules.score(taken, **kwargs)
    assert isinstance(info.value, GongzhuError)
