from __future__ import annotations

import pytest

from gongzhu import Play, Show, ShowKind, parse_action
from gongzhu.errors import InvalidCard


def test_text_forms() -> None:
    assert str(Play.parse("QS")) == "play QS"
    assert str(Play.parse("play 10C")) == "play TC"
    assert str(Show("AH QS")) == "show QS AH"
    assert str(Show(())) == "show -"
    assert str(Show("QS", ShowKind.FIRST)) == "first-show QS"
    assert str(Show("QS JD", ShowKind.SECRET)) == "sell QS JD"
    assert str(Play("JD JD")) == "play JD JD"


@pytest.mark.parametrize(
    "text", ["play QS", "show QS AH", "show -", "first-show QS", "first-show -", "sell JD"]
)
def test_parse_round_trip(text: str) -> None:
    assert str(parse_action(text)) == text


def test_equal_values_are_equal() -> None:
    assert Play.parse("QS") == Play("QS") == Play(["Q♠"])
    assert Show("QS AH") == Show(["AH", "QS"])
    assert Show("QS") != Show("QS", ShowKind.SECRET)
    assert hash(Play.parse("QS")) == hash(Play("QS"))
    assert Play("QS").key == Play.parse("QS").key


def test_bad_action_text() -> None:
    with pytest.raises(InvalidCard, match="not an action"):
        parse_action("throw QS")
    with pytest.raises(InvalidCard, match="needs a card"):
        parse_action("play -")
    for verb in ("show", "first-show", "sell"):  # a show of nothing is "show -"
        with pytest.raises(InvalidCard, match=f"^{verb} needs its cards, or - for none"):
            parse_action(f" {verb} ")
    with pytest.raises(InvalidCard):
        parse_action("play QX")
