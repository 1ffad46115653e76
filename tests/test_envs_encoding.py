"""The action and observation encodings of gongzhu.envs (numpy needed)."""

from __future__ import annotations

import itertools
import random

import pytest

np = pytest.importorskip("numpy")

import gongzhu  # noqa: E402
from gongzhu import Card, Deal, Phase, Play, Show, ShowKind  # noqa: E402
from gongzhu.envs import encoding  # noqa: E402

RULESETS = [
    ("39baobao",),
    ("huapai",),
    ("anmai",),
    ("huapai", "anmai"),
    ("two-deck",),
    ("two-deck", "anmai"),
    ("heart-three",),
]


@pytest.mark.parametrize("names", RULESETS, ids="+".join)
def test_every_index_round_trips(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    size = encoding.action_size(rules)
    for index in range(size):
        action = encoding.decode_action(rules, index)
        assert encoding.encode_action(rules, action) == index
    with pytest.raises(ValueError):
        encoding.decode_action(rules, size)
    with pytest.raises(ValueError):
        encoding.decode_action(rules, -1)


def test_action_sizes() -> None:
    assert encoding.action_size(gongzhu.load_rules()) == 52 + 16
    assert encoding.action_size(gongzhu.load_rules("huapai", "anmai")) == 52 + 3 * 16
    assert encoding.action_size(gongzhu.load_rules("two-deck")) == 52 + 1378 + 81
    assert encoding.action_size(gongzhu.load_rules("two-deck", "anmai")) == 52 + 1378 + 2 * 81


def test_documented_indices() -> None:
    rules = gongzhu.load_rules("two-deck", "anmai")
    assert encoding.encode_action(rules, Play.parse("QS")) == Card.parse("QS").index
    assert encoding.encode_action(rules, Play.parse("2S 2S")) == 52
    assert encoding.encode_action(rules, Play.parse("2S 3S")) == 53
    assert encoding.encode_action(rules, Play.parse("AC AC")) == 52 + 1377
    shows = 52 + 1378
    assert encoding.encode_action(rules, Show(())) == shows
    assert encoding.encode_action(rules, Show((), ShowKind.SECRET)) == shows + 81
    showable = sorted(rules.table.showable)  # QS AH JD TC: weights 1, 3, 9, 27
    assert encoding.encode_action(rules, Show([showable[1], showable[1]])) == shows + 2 * 3
    assert encoding.encode_action(rules, Show([showable[0], showable[3]])) == shows + 1 + 27


def test_unencodable_actions_are_refused() -> None:
    one_deck = gongzhu.load_rules()
    with pytest.raises(ValueError, match="one card at a time"):
        encoding.encode_action(one_deck, Play.parse("2S 3S"))
    with pytest.raises(ValueError, match="secret"):
        encoding.encode_action(one_deck, Show("QS", ShowKind.SECRET))
    with pytest.raises(ValueError, match="not showable"):
        encoding.encode_action(one_deck, Show("2S"))
    with pytest.raises(ValueError, match="copies"):
        encoding.encode_action(one_deck, Show("QS QS"))


@pytest.mark.parametrize("names", RULESETS, ids="+".join)
def test_legal_actions_of_random_hands_round_trip(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    rng = random.Random(7)
    seen: set[str] = set()
    for seed in range(40):
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            legal = hand.legal_actions()
            mask = encoding.action_mask(rules, legal)
            assert mask.dtype == np.int8 and mask.shape == (encoding.action_size(rules),)
            assert int(mask.sum()) == len(legal)  # no two legal actions share an index
            for action in legal:
                index = encoding.encode_action(rules, action)
                assert mask[index] == 1
                assert encoding.decode_action(rules, np.int64(index)) == action
                if isinstance(action, Show):
                    seen.add(action.kind.value)
                elif len(action.cards) == 2:
                    seen.add("pair" if action.cards[0] == action.cards[1] else "two")
            hand.apply(rng.choice(legal))
        if seed >= 5 and _covered(names, seen):
            break
    assert _covered(names, seen), seen


def _covered(names: tuple[str, ...], seen: set[str]) -> bool:
    wanted = {"open"}
    if "huapai" in names:
        wanted.add("first")
    if "anmai" in names:
        wanted.add("secret")
    if "two-deck" in names:
        wanted.add("pair")
    return wanted <= seen


@pytest.mark.parametrize("names", RULESETS, ids="+".join)
def test_observations_fit_the_layout(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    size = encoding.observation_size(rules)
    high = encoding.observation_high(rules)
    segments = encoding.observation_segments(rules)
    assert segments[0].start == 0 and segments[-1].stop == size
    assert all(a.stop == b.start for a, b in itertools.pairwise(segments))
    rng = random.Random(3)
    hand = rules.new_hand(seed=11)
    while True:
        for seat in range(4):
            obs = encoding.encode_observation(rules, hand.view(seat))
            assert obs.dtype == np.float32 and obs.shape == (size,)
            assert (obs >= 0).all() and (obs <= high).all()
            phase = obs[slice(*_span(rules, "phase"))]
            assert phase.sum() == 1
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    obs = encoding.encode_observation(rules, hand.view(0))
    taken = obs[slice(*_span(rules, "taken"))]
    assert taken.sum() == 52 * rules.table.copies  # every card ends up taken
    assert obs[slice(*_span(rules, "to-move"))].sum() == 0


def _span(rules: gongzhu.Rules, name: str) -> tuple[int, int]:
    segment = encoding.layout(rules).segment(name)
    return segment.start, segment.stop


def _holdings(*swaps: tuple[str, int, str, int]) -> list[list[Card]]:
    """Round-robin holdings of a sorted deck, with ``(card, seat, card, seat)`` swaps."""
    deck = gongzhu.full_deck()
    holdings = [list(deck[seat::4]) for seat in range(4)]
    for first, first_seat, second, second_seat in swaps:
        a, b = Card.parse(first), Card.parse(second)
        i, j = holdings[first_seat].index(a), holdings[second_seat].index(b)
        holdings[first_seat][i], holdings[second_seat][j] = b, a
    return holdings


def test_observations_do_not_depend_on_hidden_cards() -> None:
    rules = gongzhu.load_rules()
    base = _holdings()
    other = _holdings(("3S", 1, "4S", 2), ("JS", 1, "5S", 3))  # seats 1-3 hold other cards
    assert base[0] == other[0] and base != other
    hands = [rules.new_hand(deal=Deal.from_holdings(h)) for h in (base, other)]
    assert hands[0].leader == hands[1].leader == 3  # the ♣2 holder, the same in both

    def same_for_seat_0() -> None:
        a, b = (encoding.encode_observation(rules, h.view(0)) for h in hands)
        assert np.array_equal(a, b)

    same_for_seat_0()
    for _ in range(4):
        for hand in hands:
            hand.apply(Show(()))
        same_for_seat_0()
    assert hands[0].phase is Phase.PLAY
    for hand in hands:
        hand.apply(Play.parse("2C"))
    same_for_seat_0()
    for hand in hands:
        hand.apply(Play.parse("3C"))  # seat 0 follows
    same_for_seat_0()
    seat_1 = [encoding.encode_observation(rules, h.view(1)) for h in hands]
    assert not np.array_equal(*seat_1)  # seat 1's own cards differ


def test_secret_sales_show_only_their_size_to_the_others() -> None:
    rules = gongzhu.load_rules("anmai")
    base = _holdings()
    other = _holdings(("AH", 1, "QS", 2))  # seat 1 sells ♥A in one deal, ♠Q in the other
    hands = [rules.new_hand(deal=Deal.from_holdings(h)) for h in (base, other)]
    sold = (Show("AH", ShowKind.SECRET), Show("QS", ShowKind.SECRET))
    for hand, sale in zip(hands, sold, strict=True):
        assert hand.to_move == 3
        hand.apply(Show(()))  # seat 3
        hand.apply(Show(()))  # seat 0
        hand.apply(sale)  # seat 1
        hand.apply(Show(()))  # seat 2
        assert hand.phase is Phase.PLAY
    for seat in (0, 3):
        a, b = (encoding.encode_observation(rules, h.view(seat)) for h in hands)
        assert np.array_equal(a, b)
        hidden = a[slice(*_span(rules, "sold-hidden"))]
        assert list(hidden) == [0] * ((1 - seat) % 4) + [1] + [0] * (3 - (1 - seat) % 4)
    own = encoding.encode_observation(rules, hands[0].view(1))
    start, _stop = _span(rules, "shown-secret")
    assert own[start : start + len(rules.table.showable)].sum() == 1  # its own sale, with its card
    assert own[slice(*_span(rules, "sold-hidden"))].sum() == 0


def test_render_text_describes_the_hand() -> None:
    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed=30)
    text = encoding.render_text(hand)
    assert "seat 0 to move" in text or "to move" in text
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    assert "scores:" in encoding.render_text(hand)


def test_rules_are_resolved_from_names() -> None:
    rules = gongzhu.load_rules("huapai", "anmai")
    assert encoding.resolve_rules(("huapai", "anmai")) is rules
    assert encoding.resolve_rules(rules) is rules
    assert encoding.resolve_rules("huapai") is gongzhu.load_rules("huapai")
    assert encoding.resolve_rules(None) is gongzhu.load_rules()


def test_score_bounds_hold_the_extreme_hands_and_random_ones() -> None:
    from gongzhu.envs.encoding import default_illegal_reward, score_bounds

    rules = gongzhu.load_rules()
    bounds = score_bounds(rules)
    assert (bounds.raw_low, bounds.raw_high) == (-2400, 3200)  # all shown, ×4 transformer
    assert bounds.final_low == -29604 and default_illegal_reward(rules) == -59208.0
    for names in (("39baobao",), ("huapai", "anmai"), ("two-deck",)):
        rules = gongzhu.load_rules(*names)
        bounds = score_bounds(rules)
        for seed in range(30):
            hand = rules.new_hand(seed)
            hand.play_out(random.Random(seed).random)
            sheet = hand.score()
            assert all(bounds.raw_low <= x <= bounds.raw_high for x in sheet.raw)
            assert all(bounds.final_low <= x <= bounds.final_high for x in sheet.final)
            assert default_illegal_reward(rules) < min(sheet.final)
