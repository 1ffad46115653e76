"""The Rules facade: loading by entry point, combination checks, options."""

from __future__ import annotations

import pytest

import gongzhu
from gongzhu.errors import GongzhuError, IncompatibleVariants, InvalidOption, UnknownVariant
from gongzhu.rules import ENTRY_POINT_GROUP, Rules, load_rules

from . import plugins


def test_default_base_is_39baobao() -> None:
    rules = load_rules()
    assert rules.names == ("39baobao",)
    assert rules.variants[0].base
    assert getattr(rules.plugin("39baobao"), "__name__", None) == "gongzhu_variants.baobao39"


def test_shipped_plugins_come_from_entry_points() -> None:
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert eps["39baobao"] == "gongzhu_variants.baobao39"
    assert "39baobao" in gongzhu.variant_names()
    assert gongzhu.variant_names(refresh=True) == sorted(eps)


def test_variants_is_not_installed_as_a_top_level_package() -> None:
    """The distribution installs ``gongzhu_variants``, never ``variants`` (a PyPI project).

    Asked of the installed distribution's own files, so the test holds wherever the
    checkout is (a clone in a folder named ``gongzhu`` puts its ``variants/`` on the path).
    """
    import importlib.metadata
    import importlib.util

    assert importlib.util.find_spec("gongzhu_variants") is not None
    top_level = importlib.metadata.packages_distributions()
    assert "gongzhu" in top_level.get("gongzhu_variants", [])
    assert "gongzhu" not in top_level.get("variants", [])


def test_unknown_variant_lists_installed_names() -> None:
    with pytest.raises(
        UnknownVariant, match=r"no gongzhu variant named 'nope'; installed: .*39baobao"
    ):
        load_rules("nope")
    with pytest.raises(LookupError):
        load_rules("nope")
    with pytest.raises(TypeError):
        load_rules(3)  # type: ignore[arg-type]


def test_rulesets_are_shared() -> None:
    assert load_rules() is load_rules()
    assert load_rules("39baobao") is load_rules("39baobao")


def test_unknown_option() -> None:
    with pytest.raises(
        InvalidOption, match="unknown option colour for 39baobao; options: zero_sum"
    ):
        load_rules(colour="red")


def test_options_are_declared_checked_and_resolved() -> None:
    rules = Rules.from_plugins(plugins.Picky(), picky_level=2)
    assert rules.names == ("39baobao", "picky")
    assert rules.options["picky_level"] == 2 and rules.options.picky_name == "x"
    assert [o.owner for o in rules.option_specs] == ["picky", "picky", "39baobao"]
    assert "picky_level=2" in repr(rules)
    with pytest.raises(InvalidOption, match="expected one of 1, 2, 3"):
        Rules.from_plugins(plugins.Picky(), picky_level=5)
    with pytest.raises(InvalidOption, match="expected text"):
        Rules.from_plugins(plugins.Picky(), picky_name=5)
    with pytest.raises(IncompatibleVariants, match="picky refuses"):
        Rules.from_plugins(plugins.Picky(), picky_level=3, picky_name="refuse")


def test_two_bases_are_refused() -> None:
    with pytest.raises(IncompatibleVariants, match="'other-base' and '39baobao' are both bases"):
        Rules.from_plugins(plugins.OtherBase(), ("39baobao", load_rules().plugin("39baobao")))


def test_declared_conflicts_are_refused() -> None:
    with pytest.raises(IncompatibleVariants, match="'picky' cannot be combined with 'other-base'"):
        Rules.from_plugins(plugins.OtherBase(), plugins.Picky())


def test_a_given_base_replaces_the_default() -> None:
    rules = Rules.from_plugins(plugins.OtherBase())
    assert rules.names == ("other-base",)
    hand = rules.new_hand(1)
    assert hand.leader == 2


def test_base_comes_first_whatever_the_order() -> None:
    rules = Rules.from_plugins(plugins.Bonus(), plugins.OtherBase())
    assert rules.names == ("other-base", "bonus")


def test_plugin_errors() -> None:
    with pytest.raises(IncompatibleVariants, match="listed more than once"):
        Rules.from_plugins(plugins.Picky(), plugins.Picky())
    with pytest.raises(
        IncompatibleVariants, match="registered as 'fake' describes itself as 'real-name'"
    ):
        Rules.from_plugins(("fake", plugins.Misnamed()))
    with pytest.raises(IncompatibleVariants, match="unknown hook"):
        Rules.from_plugins(plugins.Typo())
    with pytest.raises(
        IncompatibleVariants,
        match="does not describe itself: it must implement gongzhu_variant_info",
    ):
        Rules.from_plugins(object())


def test_describe_and_spec() -> None:
    rules = load_rules()
    assert rules.describe().startswith("39baobao (")
    assert rules.spec() == {"variants": ["39baobao"], "options": {"zero_sum": "rounded"}}
    assert repr(rules) == "load_rules('39baobao')"
    with pytest.raises(UnknownVariant):
        rules.plugin("huh")


def test_errors_share_a_base_class() -> None:
    for cls in (UnknownVariant, IncompatibleVariants, InvalidOption):
        assert issubclass(cls, GongzhuError)


def test_first_result_chain_follows_pluggy_order() -> None:
    """The precompiled chains give the same answers as calling the hooks."""
    rules = Rules.from_plugins(plugins.Bonus())
    raw = (-100, 30, 0, 70)
    assert rules.normalise(raw) == tuple(
        rules._hook.gongzhu_normalise(raw=raw, options=rules.options)
    )
    assert rules.normalise(raw) == (-200, 60, 0, 140)  # the modifier answers before the base
    deal = gongzhu.Deal.shuffled(3)
    assert rules.opening_lead(deal) == rules._hook.gongzhu_opening_lead(
        deal=deal, options=rules.options
    )


def test_wrappers_keep_pluggy_dispatch() -> None:
    from gongzhu.plugin import VariantInfo, hookimpl

    class Wrapper:
        @hookimpl
        def gongzhu_variant_info(self):
            return VariantInfo("wrapper", "Wrapper")

        @hookimpl(wrapper=True)
        def gongzhu_normalise(self, raw):
            result = yield
            return tuple(r + 1 for r in result)

    rules = Rules.from_plugins(Wrapper())
    assert rules.normalise((0, 0, 0, 0)) == (1, 1, 1, 1)


SHOW_RULESETS = [
    ((plugins.ShowFamily(),), ()),
    ((plugins.MustShowPig(),), ()),
    ((), ("huapai", "anmai")),
    ((), ("two-deck", "anmai")),
]


@pytest.mark.parametrize(("objects", "names"), SHOW_RULESETS)
def test_the_compiled_show_phase_answers_as_the_filter_hook(
    objects: tuple[object, ...], names: tuple[str, ...]
) -> None:
    """The show phase is compiled once, when the ruleset is built: for every holding and
    kind, ``show_choices`` gives what calling the filter hook gives."""
    import itertools

    from gongzhu.actions import Show, ShowKind
    from gongzhu.errors import InvalidCard
    from gongzhu.showphase import sub_multisets

    installed = [(name, load_rules(name).plugin(name)) for name in names]
    rules = Rules.from_plugins(*objects, *installed)
    showable = sorted(rules.table.showable)
    copies = rules.table.copies
    asked = 0
    for kind in rules.show_kinds:
        holdings: list[tuple[gongzhu.Card, ...]]
        if kind is ShowKind.FIRST:
            holdings = [(card,) for card in showable]
        else:
            holdings = [
                tuple(c for c, n in zip(showable, counts, strict=True) for _ in range(n))
                for counts in itertools.product(range(copies + 1), repeat=len(showable))
            ]
        for holding in holdings:
            choices = sub_multisets(holding)
            if kind is ShowKind.SECRET:
                choices = [choice for choice in choices if choice]
            rules._hook.gongzhu_filter_shows(
                holding=holding, kind=kind, choices=choices, options=rules.options
            )
            expected = tuple(Show(choice, kind) for choice in choices)
            assert rules.show_choices(holding, kind) == expected, (kind, holding)
            asked += 1
    assert asked >= (copies + 1) ** len(showable)
    with pytest.raises(InvalidCard):
        rules.show_choices(gongzhu.parse_cards("2C"))
    with pytest.raises(InvalidCard):
        rules.show_choices(showable * (copies + 1))  # more copies than the decks hold
