"""The bot interface and registry: bots by entry point, make_bot, the view-only contract."""

from __future__ import annotations

import importlib.metadata

import pytest

import gongzhu
from gongzhu.bots import (
    BOTS,
    Bot,
    BotRegistry,
    FirstLegalBot,
    HeuristicBot,
    RandomBot,
    RulesBot,
    SearchBot,
    UnknownBot,
    bot_names,
    make_bot,
    play_hand,
)
from gongzhu.errors import GongzhuError

SHIPPED = {
    "random": RandomBot,
    "first": FirstLegalBot,
    "rules": RulesBot,
    "heuristic": HeuristicBot,
    "search": SearchBot,
}


def test_shipped_bots_are_entry_points() -> None:
    eps = importlib.metadata.distribution("gongzhu").entry_points
    registered = {ep.name: ep.value for ep in eps if ep.group == "gongzhu.bots"}
    assert set(registered) == set(SHIPPED)
    assert set(SHIPPED) <= set(bot_names())
    assert bot_names() == sorted(bot_names())


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_make_bot_builds_each_shipped_bot(name: str) -> None:
    bot = make_bot(name, seed=3, rules=gongzhu.load_rules())
    assert isinstance(bot, SHIPPED[name])
    assert isinstance(bot, Bot)
    assert BOTS[name] is SHIPPED[name]


def test_old_call_forms_keep_working() -> None:
    assert isinstance(make_bot("random", 5), RandomBot)
    assert isinstance(BOTS["random"](5), RandomBot)
    assert isinstance(BOTS["first"](None), FirstLegalBot)
    assert "random" in BOTS and "genius" not in BOTS
    assert BOTS.get("genius") is None
    assert sorted(BOTS) == bot_names() and len(BOTS) == len(bot_names())


def test_unknown_bot_is_a_precise_error_listing_the_names() -> None:
    with pytest.raises(UnknownBot) as caught:
        make_bot("genius")
    error = caught.value
    assert isinstance(error, GongzhuError) and isinstance(error, KeyError)
    assert isinstance(error, ValueError)  # what make_bot raised before
    assert error.name == "genius"
    assert set(SHIPPED) <= set(error.available)
    assert "heuristic" in str(error) and "genius" in str(error)
    with pytest.raises(UnknownBot):
        BOTS["genius"]


def test_a_registry_of_another_group_is_empty() -> None:
    registry = BotRegistry("gongzhu.no-such-group")
    assert list(registry) == []
    with pytest.raises(UnknownBot, match="installed: none"):
        registry["random"]


class Spy:
    """A bot that records what it is given."""

    def __init__(self) -> None:
        self.views: list[gongzhu.SeatView] = []

    def choose(self, view: gongzhu.SeatView) -> gongzhu.Action:
        self.views.append(view)
        return view.legal_actions[0]


def test_bots_are_given_only_their_seats_view() -> None:
    rules = gongzhu.load_rules()
    spies = [Spy() for _ in range(4)]
    play_hand(rules.new_hand(seed=1), spies)
    for seat, spy in enumerate(spies):
        assert spy.views
        assert all(isinstance(v, gongzhu.SeatView) and v.seat == seat for v in spy.views)


def test_play_hand_needs_four_bots() -> None:
    with pytest.raises(ValueError, match="four bots"):
        play_hand(gongzhu.load_rules().new_hand(seed=1), [RandomBot()])


def test_unknown_bots_and_variants_share_one_error_shape() -> None:
    from gongzhu.errors import UnknownName, UnknownVariant

    with pytest.raises(UnknownName) as bot:
        make_bot("nobody")
    with pytest.raises(UnknownName) as variant:
        gongzhu.load_rules("nothing")
    assert isinstance(bot.value, UnknownBot) and isinstance(bot.value, KeyError)
    assert isinstance(variant.value, UnknownVariant)
    assert str(bot.value).startswith("no gongzhu bot named 'nobody'; installed: ")
    assert str(variant.value).startswith("no gongzhu variant named 'nothing'; installed: ")
    assert "random" in bot.value.available and "huapai" in variant.value.available


def test_unknown_names_pickle() -> None:
    import pickle

    from gongzhu.errors import UnknownVariant

    for error in (UnknownBot("x", ["random"]), UnknownVariant("y", ["huapai", "anmai"])):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)
        assert (again.name, again.available) == (error.name, error.available)


def test_a_bot_whose_module_cannot_be_imported_is_a_plugin_load_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gongzhu.bots.registry as registry
    from gongzhu.errors import PluginLoadError

    broken = importlib.metadata.EntryPoint(
        name="broken", value="no_such_gongzhu_bot_module:Bot", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "entry_points", lambda group, refresh=False: {"broken": broken})
    bots = BotRegistry()
    assert "broken" in bots
    with pytest.raises(PluginLoadError) as caught:
        bots["broken"]
    assert caught.value.name == "broken"
    assert "no_such_gongzhu_bot_module" in str(caught.value)
    assert isinstance(caught.value.cause, ModuleNotFoundError)
