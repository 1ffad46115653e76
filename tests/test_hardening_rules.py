"""Issue 12: equal rulesets are one object, the cache is thread-safe, matches compare
rulesets by spec and may end by hand count, and refusals name the right plug-ins."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import registry
from gongzhu.actions import ShowKind
from gongzhu.errors import GongzhuError, IncompatibleVariants, PluginError
from gongzhu.plugin import OpeningLead, VariantInfo, hookimpl
from gongzhu.rules import Rules, load_rules
from gongzhu.view import SeatView


class FirstLegalBot:
    """Plays the first legal action (the test's own bot: independent of gongzhu.bots)."""

    def choose(self, view: SeatView) -> gongzhu.Action:
        return view.legal_actions[0]


class RandomBot:
    """Plays a legal action chosen by its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def choose(self, view: SeatView) -> gongzhu.Action:
        return self.random.choice(view.legal_actions)


def play_hand(hand: gongzhu.HandState) -> gongzhu.HandState:
    """Play ``hand`` to its end with first legal actions."""
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    return hand


MODIFIERS = (
    "anmai",
    "biming",
    "same-colour-discard",
    "shuangzhu",
    "heart-three",
    "hearts-pips",
    "two-deck",
)


def distinct_requests(count: int) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """``count`` requests for pairwise different rulesets (different specs)."""
    found: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    specs: set[str] = set()
    for size in range(1, 4):
        for base in ("39baobao", "huapai"):
            for mods in itertools.permutations(MODIFIERS, size):
                names = (base, *mods)
                try:
                    spec = repr(load_rules(*names).spec())
                except GongzhuError:
                    continue
                if spec not in specs:
                    specs.add(spec)
                    found.append((names, {}))
                if len(found) == count:
                    return found
    raise AssertionError("not enough distinct rulesets")


# -- one object per spec -----------------------------------------------------------------


def test_equal_specs_are_one_object() -> None:
    default = load_rules()
    assert load_rules("39baobao") is default
    assert load_rules(zero_sum="rounded") is default
    assert load_rules("39baobao", zero_sum="rounded") is default
    assert load_rules(zero_sum="exact") is not default
    # the base goes first whatever the order given; modifiers keep theirs
    assert load_rules("anmai", "huapai") is load_rules("huapai", "anmai")
    assert load_rules("anmai") is load_rules("39baobao", "anmai")
    one, other = load_rules("anmai", "biming"), load_rules("biming", "anmai")
    assert one is not other and one.names != other.names  # hook order differs


@pytest.mark.one_engine
def test_identity_survives_loading_many_other_rulesets() -> None:
    default = load_rules()
    huapai = load_rules("huapai", shown_lock_stuck="hand")
    for names, options in distinct_requests(70):
        load_rules(*names, **options)
    assert load_rules() is default
    assert load_rules("39baobao", zero_sum="rounded") is default
    assert load_rules("huapai", shown_lock_stuck="hand") is huapai
    assert load_rules() is load_rules()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(MODIFIERS), unique=True, max_size=2),
    st.sampled_from([None, "39baobao", "huapai"]),
    st.booleans(),
)
def test_a_ruleset_is_the_one_its_spec_loads(
    modifiers: list[str], base: str | None, spell_out_options: bool
) -> None:
    names = ([base] if base else []) + modifiers
    try:
        rules = load_rules(*names)
    except GongzhuError:
        return
    spec = rules.spec()
    assert load_rules(*spec["variants"], **spec["options"]) is rules
    if spell_out_options:
        assert load_rules(*names, **spec["options"]) is rules


@pytest.mark.one_engine
def test_loading_from_many_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "CACHE_SIZE", 3)  # evict all the time
    requests = distinct_requests(10)
    requests += [(names, {"zero_sum": "rounded"}) for names, _ in requests if "huapai" not in names]
    expected = {repr(load_rules(*n, **o).spec()) for n, o in requests}
    errors: list[BaseException] = []
    results: list[Rules] = []
    start = threading.Barrier(8)

    def work(seed: int) -> None:
        order = requests * 2
        random.Random(seed).shuffle(order)
        start.wait()
        try:
            for names, options in order:
                results.append(load_rules(*names, **options))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    by_spec: dict[str, set[int]] = {}
    for rules in results:
        by_spec.setdefault(repr(rules.spec()), set()).add(id(rules))
    assert set(by_spec) == expected
    assert all(len(ids) == 1 for ids in by_spec.values())  # one object per spec


def test_refresh_forgets_the_rulesets() -> None:
    before = load_rules("shuangzhu")
    gongzhu.variant_names(refresh=True)
    assert load_rules("shuangzhu") is not before


# -- matches -------------------------------------------------------------------------------


def test_a_match_takes_a_hand_of_an_equal_ruleset() -> None:
    match = load_rules().new_match(seed=1, hands=2)
    twin = Rules.from_plugins()  # the default base, built again: another object, same spec
    assert twin is not match.rules and twin.spec() == match.rules.spec()
    seed, first_seat, leader = match.next_deal()
    hand = play_hand(twin.new_hand(seed, first_seat=first_seat, leader=leader))
    assert match.record_hand(hand) == hand.score().final
    seed, first_seat, leader = match.next_deal()
    other = play_hand(load_rules("anmai").new_hand(seed, first_seat=first_seat, leader=leader))
    with pytest.raises(
        GongzhuError,
        match=r"played under load_rules\('39baobao', 'anmai'\), not the match's "
        r"load_rules\('39baobao'\)",
    ):
        match.record_hand(other)
    assert len(match.hands) == 1  # unchanged by the refusal


class ThreeHands:
    """A modifier whose matches end after three hands, whatever the totals."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("three-hands", "Matches of three hands")

    @hookimpl
    def gongzhu_match_over(self, hands: int) -> bool:
        return hands >= 3


class NeverOverOnTotals:
    """Ends matches by hand count, and would say "not over" for any invented totals."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("two-hands", "Matches of two hands")

    @hookimpl(tryfirst=True)
    def gongzhu_match_over(self, totals: tuple[int, ...], hands: int) -> bool:
        return hands >= 2 and all(abs(t) < 10**9 for t in totals)


@pytest.mark.parametrize(("plugin", "count"), [(ThreeHands(), 3), (NeverOverOnTotals(), 2)])
def test_a_match_may_end_by_hand_count(plugin: object, count: int) -> None:
    rules = Rules.from_plugins(plugin)
    assert rules.decides_match_end
    match = rules.new_match(seed=5)
    match.play([RandomBot(seat) for seat in range(4)])
    assert match.is_over and len(match.hands) == count


def test_a_match_that_cannot_end_is_refused() -> None:
    rules = load_rules()
    assert not rules.decides_match_end and load_rules("huapai").decides_match_end
    with pytest.raises(GongzhuError, match="never ends: give a target or a number of hands"):
        rules.new_match(seed=1).play([FirstLegalBot()] * 4)
    match = rules.new_match(seed=1, target=1)
    match.play([FirstLegalBot()] * 4)
    assert match.is_over


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hands": 0}, "number of hands must be a positive integer, not 0"),
        ({"hands": True}, "number of hands must be a positive integer, not True"),
        ({"target": "5"}, "target must be a positive integer, not '5'"),
        ({"seed": "x"}, "seed must be an integer, not 'x'"),
    ],
)
def test_match_arguments_are_checked(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(GongzhuError, match=message):
        load_rules().new_match(**kwargs)


# -- refusals name the plug-ins that offer the refused show kind ---------------------------


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            ("anmai", "fenpai-quanming"),
            "fenpai-quanming (分牌全明) fixes every show, so it cannot be combined with "
            "暗卖 secret sales (offered by anmai)",
        ),
        (
            ("fenpai-quanming", "anmai"),
            "fenpai-quanming (分牌全明) fixes every show, so it cannot be combined with "
            "暗卖 secret sales (offered by anmai)",
        ),
        (
            ("huapai", "fenpai-quanming"),
            "fenpai-quanming (分牌全明) fixes every show, so it cannot be combined with "
            "首明 first shows (offered by huapai)",
        ),
        (
            ("huapai", "anmai", "chuyang-quanming"),
            "chuyang-quanming (除羊全明) fixes every show, so it cannot be combined with "
            "首明 first shows (offered by huapai)",
        ),
        (
            ("shuangzhu", "chuyang-quanming", "anmai"),
            "chuyang-quanming (除羊全明) fixes every show, so it cannot be combined with "
            "暗卖 secret sales (offered by anmai)",
        ),
    ],
)
def test_refusal_names_the_plugins_offering_the_show_kind(
    names: tuple[str, ...], message: str
) -> None:
    with pytest.raises(IncompatibleVariants) as caught:
        load_rules(*names)
    assert str(caught.value) == message


class AlsoSells:
    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("also-sells", "Another plug-in offering secret sales")

    @hookimpl
    def gongzhu_show_kinds(self) -> tuple[ShowKind, ...]:
        return (ShowKind.SECRET,)


def test_show_kind_owners() -> None:
    rules = load_rules("huapai", "anmai")
    assert dict(rules.show_kind_owners) == {
        ShowKind.OPEN: ("gongzhu.defaults",),
        ShowKind.FIRST: ("huapai",),
        ShowKind.SECRET: ("anmai",),
    }
    assert set(rules.show_kind_owners) == rules.show_kinds
    assert dict(load_rules().show_kind_owners) == {ShowKind.OPEN: ("gongzhu.defaults",)}
    anmai, fenpai = rules.plugin("anmai"), load_rules("fenpai-quanming").plugin("fenpai-quanming")
    both = Rules.from_plugins(("anmai", anmai), AlsoSells())
    assert both.show_kind_owners[ShowKind.SECRET] == ("anmai", "also-sells")
    with pytest.raises(IncompatibleVariants, match=r"\(offered by anmai, also-sells\)$"):
        Rules.from_plugins(("anmai", anmai), AlsoSells(), ("fenpai-quanming", fenpai))


def _plugin(name: str, **hooks: Callable[..., Any]) -> object:
    """A plug-in named ``name`` that implements ``hooks`` (hook name -> function)."""

    def gongzhu_variant_info() -> VariantInfo:
        return VariantInfo(name=name, title=name)

    implemented = {"gongzhu_variant_info": gongzhu_variant_info, **hooks}
    methods = {hook: staticmethod(hookimpl(function)) for hook, function in implemented.items()}
    return type("Plugin", (), methods)()


def _two_scores(raw: tuple[int, ...]) -> tuple[int, ...]:
    return raw[:2]  # a normalisation that gives two scores for four seats


def _undeclared(options: Any) -> dict[int, int]:
    return {rank: options["no_such_option"] for rank in range(2, 15)}  # a bug


def test_a_plugin_answer_or_bug_is_named_with_the_plugin_and_the_hook() -> None:
    rules = Rules.from_plugins(_plugin("half-normalise", gongzhu_normalise=_two_scores))
    with pytest.raises(
        PluginError, match=r"^the plug-in 'half-normalise' failed in gongzhu_normalise: "
    ):
        rules.normalise((0, 0, 0, 0))
    hand = rules.new_hand(seed=1)
    hand.play_out(random.Random(1).random)
    with pytest.raises(PluginError, match="not four integer scores"):
        hand.score()
    with pytest.raises(PluginError) as failed:
        Rules.from_plugins(_plugin("raising", gongzhu_heart_values=_undeclared))
    assert (failed.value.plugin, failed.value.where) == ("raising", "gongzhu_heart_values")
    assert isinstance(failed.value.cause, KeyError) and failed.value.__cause__ is failed.value.cause


def test_a_plugin_given_as_an_object_must_describe_itself_with_a_variant_info() -> None:
    with pytest.raises(IncompatibleVariants, match="returning a VariantInfo"):
        Rules.from_plugins(_plugin("dict-info", gongzhu_variant_info=lambda: {"name": "x"}))


def test_reading_an_option_nobody_declared_lists_the_options() -> None:
    options = load_rules().options
    with pytest.raises(KeyError, match=r"'heart_table' is no option of this ruleset \(options: "):
        options["heart_table"]
    assert options.get("heart_table") is None and "heart_table" not in options


def test_a_play_rule_names_its_cards_by_a_card_mask_of_at_least_one_card() -> None:
    from gongzhu.cards import PIG, Suit
    from gongzhu.play import PlayRule

    def refuse(_situation: object) -> int:
        return PIG.bit

    assert PlayRule(name="spades", refuse=refuse, cards=Suit.SPADES.mask).cards == Suit.SPADES.mask
    with pytest.raises(IncompatibleVariants, match=r"a suit's cards: Suit\.SPADES\.mask"):
        PlayRule(name="spades", refuse=refuse, cards=Suit.SPADES)  # an IntEnum: 0, not spades
    with pytest.raises(IncompatibleVariants, match="names no card"):
        PlayRule(name="nothing", refuse=refuse, cards=0)


def _answering(hook: str, answer: Any) -> object:
    """A plug-in ``answers`` that answers ``hook`` with ``answer`` whatever it is asked."""

    def lead(deal: Any) -> Any:
        return answer

    def leader(hand: Any) -> Any:
        return answer

    def losers(totals: Any) -> Any:
        return answer

    asked = {"gongzhu_opening_lead": lead, "gongzhu_next_leader": leader}.get(hook, losers)
    return _plugin("answers", **{hook: asked})


@pytest.mark.parametrize(
    ("hook", "answer", "wanted"),
    [
        (
            "gongzhu_opening_lead",
            2,
            "an OpeningLead of a seat 0-3 that holds the card it must lead",
        ),
        (
            "gongzhu_opening_lead",
            OpeningLead(7),
            "an OpeningLead of a seat 0-3 that holds the card it must lead",
        ),
        ("gongzhu_next_leader", 9, "a seat 0-3 or None"),
        ("gongzhu_match_losers", [5], "seats 0-3"),
        ("gongzhu_match_losers", 2, "seats 0-3"),
    ],
)
def test_a_phase_hook_answer_that_does_not_fit_names_the_plugin(
    hook: str, answer: Any, wanted: str
) -> None:
    rules = Rules.from_plugins(_answering(hook, answer))
    with pytest.raises(PluginError, match=rf"^the plug-in 'answers' failed in {hook}: ") as failed:
        if hook == "gongzhu_opening_lead":
            rules.new_hand(seed=1)
        elif hook == "gongzhu_next_leader":
            hand = rules.new_hand(seed=1, leader=0)
            rules.next_leader(hand)
        else:
            rules.match_losers((10, 20, 30, 40))
    assert str(failed.value).endswith(f"not {wanted}")


def test_an_opening_lead_of_a_card_the_seat_does_not_hold_is_refused() -> None:
    deal = load_rules().new_hand(seed=1).deal
    missing = next(card for card in deal.order if card not in deal.holding(0))
    rules = Rules.from_plugins(_answering("gongzhu_opening_lead", OpeningLead(0, missing)))
    with pytest.raises(PluginError, match=r"that holds the card it must lead$"):
        rules.new_hand(seed=1)
    with pytest.raises(PluginError, match=r"that holds the card it must lead$"):
        rules.opening_lead(deal)  # as simulate's hands and the bots' samples ask it


def test_a_wrong_answer_names_the_plugin_that_gave_it_not_one_that_passed() -> None:
    def passes(deal: Any) -> None:
        return None

    wrong = _answering("gongzhu_opening_lead", OpeningLead(7))
    rules = Rules.from_plugins(wrong, _plugin("passes", gongzhu_opening_lead=passes))
    with pytest.raises(PluginError, match=r"^the plug-in 'answers' failed in gongzhu_opening_lead"):
        rules.new_hand(seed=1)


def test_a_variant_info_that_raises_is_named() -> None:
    def broken() -> VariantInfo:
        raise RuntimeError("boom")

    with pytest.raises(PluginError, match="failed in gongzhu_variant_info: RuntimeError: boom"):
        Rules.from_plugins(("broken", _plugin("broken", gongzhu_variant_info=broken)))


@pytest.mark.parametrize("decks", [(), ("two-deck",)])
@pytest.mark.parametrize(
    ("fails", "said"),
    [
        ("answers None", "TypeError: it answered None, not a card mask"),
        ("answers True", "TypeError: it answered True, not a card mask"),
        ("answers text", "TypeError: it answered 'QS', not a card mask"),
        ("raises", "ZeroDivisionError: a bug"),
    ],
)
def test_a_play_rule_that_fails_is_named_alike_by_every_engine(
    decks: tuple[str, ...], fails: str, said: str
) -> None:
    from gongzhu.discovery import load_plugin
    from gongzhu.play import PlayRule

    def refuse(_situation: object) -> Any:
        if fails == "raises":
            raise ZeroDivisionError("a bug")
        return {"answers None": None, "answers True": True}.get(fails, "QS")

    def gongzhu_play_config(config: Any) -> None:
        config.add_rule(PlayRule(name="fails", refuse=refuse))

    plugin = _plugin("failing-rule", gongzhu_play_config=gongzhu_play_config)
    rules = Rules.from_plugins(*[(name, load_plugin(name)) for name in decks], plugin)
    messages = set()
    for engine in rules.engines:
        hand = rules.new_hand(seed=1, engine=engine.name)
        with pytest.raises(PluginError) as failed:
            hand.play_out(random.Random(1).random)
        assert failed.value.where == "play rule 'fails'" and failed.value.__cause__ is not None
        messages.add(str(failed.value))
    assert len(rules.engines) == 2 and messages == {
        f"the plug-in 'failing-rule' failed in play rule 'fails': {said}"
    }


def test_a_hook_whose_code_two_plugins_share_names_neither() -> None:
    class Shared:
        def __init__(self, name: str, fails: bool) -> None:
            self.name, self.fails = name, fails

        @hookimpl
        def gongzhu_variant_info(self) -> VariantInfo:
            return VariantInfo(name=self.name, title=self.name)

        @hookimpl
        def gongzhu_heart_values(self) -> None:
            if self.fails:
                raise RuntimeError("boom")

    with pytest.raises(PluginError) as failed:
        Rules.from_plugins(Shared("p1", fails=True), Shared("p2", fails=False))
    assert (failed.value.plugin, failed.value.where) == (None, "gongzhu_heart_values")


def test_only_the_submodules_import_gongzhu_used_to_load_are_attributes_on_first_use() -> None:
    assert not hasattr(gongzhu, "no_such_module")
    assert gongzhu.cards.Card is gongzhu.Card
