"""The action and observation encodings of gongzhu.envs (numpy needed)."""

from __future__ import annotations

import itertools
import random

import pytest

np = pytest.importorskip("numpy")

import gongzhu  # noqa: E402
from gongzhu import Card, Deal, Phase, Play, Show, ShowKind  # noqa: E402
from gongzhu.envs import encoding  # noqa: E402
from gongzhu.errors import IllegalAction  # noqa: E402

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
    assert bounds.final_low == -29604
    from gongzhu.envs.encoding import ILLEGAL_SPREADS, reward_spread

    spread = reward_spread(rules)
    assert 250 < spread < 330  # a seat's raw points in random 39baobao hands
    assert default_illegal_reward(rules) == -ILLEGAL_SPREADS * spread * 0.01 == -14.4
    assert default_illegal_reward(rules, "final") == -5 * reward_spread(rules, "final") * 0.001
    assert default_illegal_reward(rules, "raw", 1.0) == -5 * spread
    for names in (("39baobao",), ("huapai", "anmai"), ("two-deck",)):
        rules = gongzhu.load_rules(*names)
        bounds = score_bounds(rules)
        for seed in range(30):
            hand = rules.new_hand(seed)
            hand.play_out(random.Random(seed).random)
            sheet = hand.score()
            assert all(bounds.raw_low <= x <= bounds.raw_high for x in sheet.raw)
            assert all(bounds.final_low <= x <= bounds.final_high for x in sheet.final)


# -- the trick history, the layout per ruleset, the fast encoder ---------------------------


def _trick_of(rules: gongzhu.Rules, plays: list[str]) -> gongzhu.HandState:
    """A hand of ``rules`` on a deal built so that seat 0 leads ♣2 and the others play
    ``plays`` (one card each, in seat order 1-3) to the first trick."""
    from gongzhu.envs.encoding import CARDS

    wanted = [Card.parse("2C"), *map(Card.parse, plays)]
    rest = [c for c in gongzhu.full_deck() if c not in wanted]
    holdings = [[wanted[seat], *rest[seat * 12 : seat * 12 + 12]] for seat in range(4)]
    assert sum(map(len, holdings)) == CARDS
    hand = rules.new_hand(deal=Deal.from_holdings(holdings))
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    assert hand.to_move == 0
    hand.apply(Play.parse("2C"))
    for card in plays:
        hand.apply(Play.parse(card))
    return hand


def test_who_played_which_card_and_the_voids_it_shows() -> None:
    """The issue's two histories: ♣2 ♥5 ♣3 ♣A (seat 1 shows a void in clubs) and
    ♣2 ♣3 ♥5 ♣A (seat 2 does) encode differently, and each says whose void it is."""
    rules = gongzhu.load_rules()
    first = _trick_of(rules, ["5H", "3C", "AC"])
    second = _trick_of(rules, ["3C", "5H", "AC"])
    a, b = (encoding.encode_observation(rules, hand.view(0)) for hand in (first, second))
    assert not np.array_equal(a, b)
    played_by = slice(*_span(rules, "played-by"))
    assert a[played_by].reshape(4, 52)[1, Card.parse("5H").index] == 1
    assert b[played_by].reshape(4, 52)[2, Card.parse("5H").index] == 1
    voids = slice(*_span(rules, "voids"))
    clubs = gongzhu.Suit.CLUBS.value
    assert np.flatnonzero(a[voids]).tolist() == [1 * 4 + clubs]
    assert np.flatnonzero(b[voids]).tolist() == [2 * 4 + clubs]
    from gongzhu.envs.fast import HandEncoder

    for hand, expected in ((first, a), (second, b)):
        encoder = HandEncoder(rules)
        encoder.reset(hand)
        assert np.array_equal(encoder.observation(0), expected)


def test_segments_a_ruleset_cannot_use_are_left_out() -> None:
    def names(*rules: str, **options: object) -> set[str]:
        found = encoding.information_state_segments(gongzhu.load_rules(*rules, **options))
        return {segment.name for segment in found}

    baobao = names("39baobao")
    assert {"first-card", "first-turns", "shown-first", "shown-secret", "sold-hidden"}.isdisjoint(
        baobao
    )
    assert {"auto-shown", "voids", "played-by", "played-in", "trick-leaders"} <= baobao
    assert "played-seat" not in baobao  # one deck: played-by says who played each card
    huapai = names("huapai")
    assert {"first-card", "first-turns", "shown-first"} <= huapai and "auto-shown" not in huapai
    assert {"shown-secret", "sold-hidden"} <= names("anmai")
    assert "played-seat" in names("two-deck")
    rules = gongzhu.load_rules()
    assert [p.value for p in encoding.layout(rules).phases] == ["show", "play", "over"]
    assert encoding.layout(gongzhu.load_rules("huapai")).phases[0] is Phase.FIRST_SHOW


@pytest.mark.parametrize(
    ("names", "sizes"),
    [
        (("39baobao",), (739, 1467)),
        (("huapai",), (740, 1524)),
        (("huapai", "anmai"), (760, 1544)),
        (("two-deck",), (723, 3947)),
    ],
    ids=lambda value: "+".join(value) if isinstance(value[0], str) else None,
)
def test_documented_sizes(names: tuple[str, ...], sizes: tuple[int, int]) -> None:
    rules = gongzhu.load_rules(*names)
    assert (encoding.observation_size(rules), encoding.information_state_size(rules)) == sizes
    segments = encoding.information_state_segments(rules)
    assert all(a.stop == b.start for a, b in itertools.pairwise(segments))
    assert segments[-1].stop == sizes[1]
    assert encoding.information_state_high(rules).shape == (sizes[1],)


FAST_RULESETS: list[tuple[tuple[str, ...], dict[str, object]]] = [
    (("39baobao",), {}),
    (("huapai", "anmai"), {}),
    (("two-deck", "anmai"), {}),
    (("same-colour-discard",), {}),
    (("same-colour-discard",), {"same_colour_strict": True}),
    (("same-colour-discard",), {"same_colour_offender": "last"}),
    (("huapai", "same-colour-discard"), {}),
]


@pytest.mark.parametrize(
    ("names", "options"),
    FAST_RULESETS,
    ids=["+".join(n) + "".join(f",{k}={v}" for k, v in o.items()) for n, o in FAST_RULESETS],
)
def test_the_fast_encoder_gives_the_reference_vectors(
    names: tuple[str, ...], options: dict[str, object]
) -> None:
    """At every step of random hands, for every seat: the observation, the information
    state, the action mask and the legal indices of HandEncoder are the reference's."""
    from gongzhu.envs.fast import HandEncoder

    rules = gongzhu.load_rules(*names, **options)
    encoder = HandEncoder(rules, information_state=True)
    plain = HandEncoder(rules)  # no history: the adapters' faster path
    hands = 6 if "two-deck" in names else 10
    voids_seen = 0
    for seed in range(hands):
        hand = rules.new_hand(seed=seed)
        encoder.reset(hand)
        plain.reset(hand)
        rng = random.Random(seed)
        while True:
            first_turns = {
                seat
                for seat, action in hand.history
                if isinstance(action, Show) and action.kind is ShowKind.FIRST
            }
            for seat in range(4):
                view = hand.view(seat)
                reference = encoding.encode_information_state(
                    rules, view, first_card=hand.deal.first_card(seat), first_turns=first_turns
                )
                assert np.array_equal(encoder.information_state(seat), reference)
                size = encoding.observation_size(rules)
                assert np.array_equal(encoder.observation(seat), reference[:size])
                assert np.array_equal(plain.observation(seat), reference[:size])
                mask = encoding.action_mask(rules, view.legal_actions)
                assert np.array_equal(encoder.action_mask(seat), mask)
            if hand.is_over:
                break
            legal = encoding.action_mask(rules, hand.legal_actions())
            assert encoder.legal_indices() == np.flatnonzero(legal).tolist()
            if len(hand.history) == 20:  # an encoder that joins mid-hand reads the past
                late = HandEncoder(rules, information_state=True)
                late.reset(hand)
                assert np.array_equal(late.information_state(3), encoder.information_state(3))
            hand.apply(rng.choice(hand.legal_actions()))
        voids_seen += int(reference[slice(*_span(rules, "voids"))].sum())
    assert voids_seen  # the hands did show voids


def test_the_encoder_follows_any_way_of_playing_and_copies() -> None:
    import copy
    import pickle

    from gongzhu.envs.fast import HandEncoder

    rules = gongzhu.load_rules("huapai", "anmai")
    hand = rules.new_hand(seed=8)
    encoder = HandEncoder(rules, information_state=True)
    encoder.reset(hand)
    rng = random.Random(1)
    for _ in range(9):
        hand.apply(rng.choice(hand.legal_actions()))
    twin = copy.deepcopy(encoder)
    assert twin.hand is not None and twin.hand is not hand
    assert twin.hand.history == hand.history
    revived = pickle.loads(pickle.dumps(encoder))
    clone = hand.clone()
    follower = encoder.follow(clone)
    assert follower.hand is clone
    hand.play_out(random.Random(2).random)  # the bulk API: no step seen one by one
    for other in (twin, revived, follower):
        assert np.array_equal(other.observation(1), twin.observation(1))
        assert not np.array_equal(other.observation(1), encoder.observation(1))
    assert np.array_equal(encoder.observation(1), encoding.encode_observation(rules, hand.view(1)))
    late = HandEncoder(rules)
    late.reset(hand)  # a hand already over: its past is read at once
    assert np.array_equal(late.observation(1), encoder.observation(1))
    with pytest.raises(RuntimeError, match="information_state=True"):
        late.information_state(1)
    with pytest.raises(ValueError, match="another ruleset"):
        late.reset(gongzhu.load_rules().new_hand(seed=1))


def test_rewards_are_one_convention() -> None:
    from gongzhu.envs.encoding import DEFAULT_REWARD, Reward, make_reward

    assert make_reward() == Reward("raw", 0.01) and DEFAULT_REWARD == "raw"
    assert make_reward("final") == Reward("final", 0.001)
    assert make_reward("raw", 1) == Reward("raw", 1.0)
    for bad_kind in ("points", ""):
        with pytest.raises(ValueError, match="'raw', 'final', 'team', 'team-final'"):
            make_reward(bad_kind)
    for bad_scale in (0, -1.0, True, "1", float("inf")):
        with pytest.raises(ValueError, match="positive"):
            make_reward("raw", bad_scale)  # type: ignore[arg-type]
    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed=4)
    hand.play_out(random.Random(4).random)
    assert make_reward().of(hand) == tuple(x * 0.01 for x in hand.raw_scores())
    assert make_reward("final", 1).of(hand) == tuple(map(float, hand.returns()))
    assert make_reward().bounds(rules) == (-24.0, 32.0)
    assert make_reward().illegal(rules) == -14.4
    assert make_reward().spread(rules) == 2.88


def test_team_rewards_are_the_teams_mean_difference_and_zero_sum() -> None:
    """Issue 40: a 2-vs-2 reward, seats 0 and 2 against 1 and 3: a seat's team's mean score
    less the other team's (the bots' "team" objective), partners paid alike, the four
    rewards summing to zero; its bounds and its illegal reward on its own scale."""
    from gongzhu.envs.encoding import (
        DEFAULT_SCALES,
        REWARD_KINDS,
        Reward,
        make_reward,
        reward_spread,
    )

    assert make_reward("team") == Reward("team", 0.01) and make_reward("team").team
    assert make_reward("team-final").scale == 0.001 and make_reward("team-final").base == "final"
    assert not make_reward("raw").team
    assert set(REWARD_KINDS) == {"raw", "final", "team", "team-final"}
    uneven = 0
    for names in (("39baobao",), ("huapai", "anmai"), ("two-deck",)):
        rules = gongzhu.load_rules(*names)
        for kind, base in (("team", "raw"), ("team-final", "final")):
            reward = make_reward(kind, 1)
            low, high = reward.bounds(rules)
            for seed in range(20):
                hand = rules.new_hand(seed)
                hand.play_out(random.Random(seed).random)
                s = hand.raw_scores() if base == "raw" else hand.returns()
                ours = (s[0] + s[2]) / 2 - (s[1] + s[3]) / 2
                paid = reward.of(hand)
                assert paid == (ours, -ours, ours, -ours)
                assert sum(paid) == 0 and low <= ours <= high
                uneven += sum(s) != 0
            spread = reward_spread(rules, kind)
            assert spread > 0 and spread != reward_spread(rules, base)
            assert make_reward(kind).illegal(rules) == -5 * spread * DEFAULT_SCALES[kind]
    assert uneven  # the seats' own scores need not sum to zero: the team rewards do


def test_every_adapter_takes_a_ruleset_joined_by_plus() -> None:
    """Issue 40: "huapai+anmai" worked in OpenSpiel but was an unknown variant elsewhere."""
    rules = encoding.resolve_rules("huapai+anmai")
    assert rules.names == ("huapai", "anmai")
    assert encoding.resolve_rules(" huapai + anmai ") is rules
    pytest.importorskip("gymnasium")
    from gongzhu.envs.gymnasium import SeatEnv

    assert SeatEnv(rules="huapai+anmai").rules is rules


# -- the order of the tricks (issue 40) ----------------------------------------------------


def swapped_tricks(rules: gongzhu.Rules) -> tuple[Deal, list[int], list[int]]:
    """A deal and two legal sequences of action indices playing it up to the same point,
    which differ only in the order of two tricks: the same seat led and took both, so
    every seat holds, has played and has taken the same cards after them either way."""
    codec = encoding.layout(rules)
    for seed in range(500):
        hand = rules.new_hand(seed)
        rng = random.Random(seed)
        actions: list[int] = []
        starts: list[int] = []  # where each trick's actions begin
        while not hand.is_over:
            if hand.phase is Phase.PLAY and not hand.current_trick:
                starts.append(len(actions))
            action = rng.choice(hand.legal_actions())
            actions.append(codec.encode(action))
            hand.apply(action)
        starts.append(len(actions))
        tricks = hand.tricks
        for i in range(len(tricks) - 1):
            first, second = tricks[i], tricks[i + 1]
            if not first.leader == second.leader == first.taker == second.taker:
                continue
            a, b, c = starts[i], starts[i + 1], starts[i + 2]
            swapped = actions[:a] + actions[b:c] + actions[a:b]
            replay = rules.new_hand(deal=hand.deal)
            try:
                for index in swapped:
                    replay.apply(codec.decode(index))
            except IllegalAction:
                continue
            return hand.deal, actions[:c], swapped
    raise AssertionError("no two tricks found to swap")  # pragma: no cover


@pytest.mark.parametrize("names", ["39baobao", "huapai+anmai", "two-deck"])
def test_swapped_tricks_look_the_same_but_for_the_history(names: str) -> None:
    """The observation forgets the order of the tricks; the information state keeps it."""
    from gongzhu.envs.fast import HandEncoder

    rules = encoding.resolve_rules(names)
    deal, one, other = swapped_tricks(rules)
    assert one != other and sorted(one) == sorted(other)
    encoders = []
    for actions in (one, other):
        hand = rules.new_hand(deal=deal)
        for index in actions:
            hand.apply(encoding.decode_action(rules, index))
        encoder = HandEncoder(rules, information_state=True)
        encoder.reset(hand)
        encoders.append(encoder)
    for seat in range(4):
        assert np.array_equal(encoders[0].observation(seat), encoders[1].observation(seat))
        assert not np.array_equal(
            encoders[0].information_state(seat), encoders[1].information_state(seat)
        )
