"""The plug-in tutorial's example distribution works as an installed third-party plug-in."""

from __future__ import annotations

from pathlib import Path

import pytest

import gongzhu
from gongzhu.bots import RandomBot, play_hand
from gongzhu.errors import IncompatibleVariants

from .conftest import install_example

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "worthless_sheep"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``pip install examples/worthless_sheep``, undone afterwards."""
    install_example(tmp_path, monkeypatch, EXAMPLE)
    yield
    monkeypatch.undo()
    gongzhu.variant_names(refresh=True)


def test_found_by_entry_point_name(installed: None) -> None:
    assert "worthless-sheep" in gongzhu.variant_names()
    rules = gongzhu.load_rules("worthless-sheep", sheep_bonus=20)
    assert rules.names == ("39baobao", "worthless-sheep")
    assert [s.name for s in rules.score_stages][:2] == ["values", "worthless-sheep"]
    assert rules.score({0: "JD"}).raw[0] == 20
    assert rules.score({0: "JD"}, shown={0: "JD"}).raw[0] == 200  # a shown sheep is not touched


def test_plays_a_hand_with_any_base(installed: None) -> None:
    for base in ("39baobao", "huapai"):
        rules = gongzhu.load_rules(base, "worthless-sheep")
        hand = play_hand(rules.new_hand(seed=5), [RandomBot(s) for s in range(4)])
        assert gongzhu.replay(hand.to_record()).score() == hand.score()
        taker = next(s for s in range(4) if gongzhu.SHEEP in hand.taken(s))
        holder = next(s for s in range(4) if gongzhu.SHEEP in hand.dealt(s))
        lines = hand.score().explain(taker)
        assert ("worthless sheep: counts 0" in lines) == (gongzhu.SHEEP not in hand.shown[holder])


def test_under_huapai_self_capture_doubles_the_bonus(installed: None) -> None:
    """The tutorial's stage comes right after "values" under any base (trylast): 自得
    doubles the worthless sheep's bonus rather than being thrown away."""
    rules = gongzhu.load_rules("huapai", "worthless-sheep", sheep_bonus=20)
    assert [s.name for s in rules.score_stages][:3] == ["values", "worthless-sheep", "self-capture"]
    sheet = rules.score({0: "JD"}, dealt={0: "JD"})
    assert sheet.raw[0] == 40  # the bonus, ×2 for 自得
    assert sheet.explain(0)[1:3] == [
        "worthless sheep: counts +20",
        "自得 self-capture ♦J: now +40 (+20 ×2)",
    ]
    assert rules.score({0: "JD"}, dealt={1: "JD"}).raw[0] == 20  # not its own: no 自得


def test_its_check_refuses_a_bad_option(installed: None) -> None:
    with pytest.raises(IncompatibleVariants, match="not worthless"):
        gongzhu.load_rules("worthless-sheep", sheep_bonus=500)


def test_gone_when_uninstalled() -> None:
    assert "worthless-sheep" not in gongzhu.variant_names(refresh=True)
