"""The two-deck engines (拱雙豬): ``pairs-c`` against ``pairs-python`` on the rules only
they have.

Pair leads and the four steps of following a pair, the shapes a play may take, the
ranking of pairs against unmatched cards (both ways), the forced opening card (one copy
or both), the shown-card lock on copies, and which copy of a card a seat plays: the
unshown one first, so that a shown copy scores for whoever takes it
(``shown_taken()``).  Each is checked by value on a hand built for it, and on both
engines alike (:class:`~tests.test_engines_twins.Twins`).  Whole random hands, any
holdings, every key's refusal and the C API's robustness are in test_engines_twins.py
and test_speedups_c.py.
"""

from __future__ import annotations

import random

import pytest

import gongzhu
from gongzhu.engines.pairs import cards_of_key, pair_key, two_key
from gongzhu.play import ILLEGAL, RULE_CODES, explain_refusal

from .test_engines_twins import NKEYS, Twins, holdings_of, needs_c, ruleset, shows_then_check

pytestmark = needs_c

HOLDING = RULE_CODES["holding"]
SHAPE = RULE_CODES["play-shape"]
OPENING_LEAD = RULE_CODES["opening-lead"]
FOLLOW_SUIT = RULE_CODES["follow-suit"]
PAIR_FOLLOW = RULE_CODES["pair-follow"]
LOCK = RULE_CODES["shown-card-lock"]
OPEN = 0  # the open show's kind code (gongzhu.showphase.KINDS)


def card(text: str) -> int:
    return gongzhu.Card.parse(text).index


def key(text: str) -> int:
    """The play key of one card, or two (``"5S 6S"``)."""
    return gongzhu.Play.parse(text).key


def keys(twins: Twins) -> list[int]:
    return [play.key for play in twins.check()]


def play(twins: Twins, text: str) -> None:
    wanted = key(text)
    legal = keys(twins)
    assert wanted in legal, (text, legal)
    twins.act((legal.index(wanted) + 0.5) / len(legal))


def refusal(twins: Twins, text: str) -> tuple[int, int] | None:
    found = twins.c.refusal(key(text))
    assert twins.python.refusal(key(text)) == found
    return found


def test_play_keys() -> None:
    assert pair_key(card("QS")) == key("QS QS") == 52 + 53 * card("QS")
    assert two_key(card("6S"), card("5S")) == two_key(card("5S"), card("6S")) == key("5S 6S")
    assert cards_of_key(key("5S 6S")) == (card("5S"), card("6S"))
    assert cards_of_key(key("QS")) == (card("QS"),)
    assert max(two_key(a, b) for a in range(52) for b in range(52)) == NKEYS - 1


# -- following a pair: four steps ------------------------------------------------------------

STEPS = holdings_of(
    "2S 2S 3S 4S",  # seat 0 leads its pair of spades
    "2H 2H 3H 4H",  # void in spades: any two cards (step 4)
    "5S 6S 5H 6H",  # two spades: two spades (step 2)
    "7S 7S 8H 9H",  # a pair of spades: a pair of spades (step 1)
)
ONE_SPADE = holdings_of("2S 2S 3S 4H", "5S 7H 8H 9H", "6S 6S 5H 6H", "7S 8S TH JH")


@pytest.mark.parametrize("pair_beats_unmatched", [False, True])
def test_following_a_pair_and_the_ranking_of_pairs(pair_beats_unmatched: bool) -> None:
    rules = ruleset("two-deck-pair-beats" if pair_beats_unmatched else "two-deck")
    twins = Twins(rules, STEPS, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {})
    # a lead: one card or an identical pair
    assert keys(twins) == sorted([key("2S"), key("3S"), key("4S"), key("2S 2S")])
    assert refusal(twins, "2S 3S") == (SHAPE, 1)
    assert refusal(twins, "3S 3S") == (HOLDING, 0)
    assert refusal(twins, "2H") == (HOLDING, 0)
    play(twins, "2S 2S")
    # seat 1, void in spades: any two of its cards (a pair of them too), not one
    assert keys(twins) == sorted([key("2H 2H"), key("2H 3H"), key("2H 4H"), key("3H 4H")])
    assert refusal(twins, "2H") == (SHAPE, 2)
    play(twins, "3H 4H")
    # seat 2, two spades: the two spades
    assert keys(twins) == [key("5S 6S")]
    assert refusal(twins, "5S 5H") == (PAIR_FOLLOW, 0 * 4 + 1)
    assert refusal(twins, "5H 6H") == (PAIR_FOLLOW, 1)
    play(twins, "5S 6S")
    # seat 3, a pair of spades: the pair
    assert keys(twins) == [key("7S 7S")]
    assert refusal(twins, "7S 8H") == (PAIR_FOLLOW, 0)
    play(twins, "7S 7S")
    # two unmatched spades beat any pair, or (pair_beats_unmatched) the higher pair wins
    leader, trick, winner, taker = twins.c.trick_log[0]
    assert (leader, taker) == (0, winner)
    assert winner == (3 if pair_beats_unmatched else 2)
    assert trick == (key("2S 2S"), key("3H 4H"), key("5S 6S"), key("7S 7S"))
    twins.check_playout(1)
    # the messages of the pair-follow steps
    config = rules.play_config
    messages = [explain_refusal(config, PAIR_FOLLOW, step, 1, ()).message for step in range(4)]
    assert messages[0].startswith("following a pair: play a pair of ♠")
    assert messages[3] == "following a pair: play any two cards"


def test_following_a_pair_with_one_card_of_its_suit() -> None:
    twins = Twins(ruleset("two-deck"), ONE_SPADE, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {})
    play(twins, "2S 2S")
    # seat 1 holds one spade: it and any other card
    assert keys(twins) == sorted(key(f"5S {other}") for other in ("7H", "8H", "9H"))
    assert refusal(twins, "7H 8H") == (PAIR_FOLLOW, 2)
    assert refusal(twins, "5S") == (SHAPE, 2)
    play(twins, "5S 9H")
    assert keys(twins) == [key("6S 6S")]
    play(twins, "6S 6S")
    assert keys(twins) == [key("7S 8S")]
    play(twins, "7S 8S")
    # the pair of sixes loses to the unmatched 7S 8S
    assert twins.c.trick_log[0][2] == 3
    # following one card: one card of its suit
    assert keys(twins) == sorted([key("TH"), key("JH")])
    play(twins, "JH")
    assert keys(twins) == [key("4H")]
    assert refusal(twins, "3S 4H") == (SHAPE, 3)
    assert refusal(twins, "3S") == (FOLLOW_SUIT, 1)
    assert refusal(twins, "9S") == (HOLDING, 0)
    twins.check_refusals()
    twins.check_playout(2)


# -- the forced opening card ---------------------------------------------------------------------


@pytest.mark.parametrize("copies", [0, 1, 2])
def test_the_forced_opening_card_one_copy_or_both(copies: int) -> None:
    """The leader leads the forced card, one copy or (holding both) the pair; without it,
    anything."""
    club = card("2C")
    held = ["3S 4S 5S 6S", "2C 3S 4S 5S", "2C 2C 3S 4S"][copies]
    others = ["2C 2C 7S 8S", "2C 7S 8S 9S", "7S 8S 9S TS"][copies]  # seat 1: the other 2Cs
    holdings = holdings_of(held, others, "JS QS KS AS", "JS QS KS AS")
    twins = Twins(ruleset("two-deck"), holdings, 0, 1 << club, 0, [0, 0, 0, 0])
    shows_then_check(twins, {})
    expected = {0: None, 1: [key("2C")], 2: [key("2C"), key("2C 2C")]}[copies]
    if expected is None:  # the leader does not hold it: any lead
        assert keys(twins) == [key(text) for text in held.split()]
        assert refusal(twins, "3S") is None
    else:
        assert keys(twins) == expected
        assert refusal(twins, "3S") == (OPENING_LEAD, club)
        message = explain_refusal(twins.rules.play_config, OPENING_LEAD, club, 0, ()).message
        assert message == "the opening lead must be 2C (one, or both as a pair)"
    twins.check_refusals()
    play(twins, "2C" if copies else "3S")
    assert refusal(twins, "2C") in (None, (HOLDING, 0), (FOLLOW_SUIT, 3), (FOLLOW_SUIT, 0))
    twins.check_playout(3)


# -- copies: the unshown one first; the shown one scores for its taker -------------------------


def test_a_seat_plays_its_unshown_copy_first() -> None:
    """Seat 0 holds both ♠Q and shows one: the pair may not lead while spades are unled
    (the shown copy is locked), one ♠Q may (the unshown copy); the shown copy, played
    later, is recorded as taken by the trick's winner."""
    holdings = holdings_of("QS QS 2H 3H", "2S 3S 4H 5H", "4S 5S 6H 7H", "6S 7S 8H AS")
    twins = Twins(ruleset("two-deck"), holdings, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {0: "QS"})
    assert keys(twins) == sorted([key("QS"), key("2H"), key("3H")])
    assert refusal(twins, "QS QS") == (LOCK, 3)
    play(twins, "QS")
    for text in ("2S", "4S", "6S"):
        play(twins, text)
    assert twins.c.trick_log[0][2] == 0
    assert twins.c.shown_taken() == ([], [], [], [])  # the unshown copy went first
    play(twins, "QS")  # spades have been led: the shown copy may lead
    for text in ("3S", "5S", "AS"):
        play(twins, text)
    assert twins.c.trick_log[1][2] == 3  # the ace takes the shown ♠Q
    taken = twins.c.shown_taken()
    assert list(map(list, taken)) == [[], [], [], [(0, card("QS"), OPEN)]]
    assert list(map(list, twins.python.shown_taken())) == list(map(list, taken))
    assert taken is not twins.c.shown_taken()  # a new answer each time
    twins.check_playout(4)


def test_every_shown_copy_is_taken_by_someone() -> None:
    rules = ruleset("two-deck+anmai")
    for seed in range(6):
        rng = random.Random(seed)
        twins = Twins.dealt(rules, seed, rng)
        twins.c.random_playout(random.Random(seed).random)
        twins.python.random_playout(random.Random(seed).random)
        twins.check()
        shown = [
            (seat, index, choice.kind_code)
            for seat, choice_id, _forced in twins.c.show_log
            for choice in [rules.show_phase.choices[choice_id]]
            for index in (c.index for c in choice.show.cards)
        ]
        taken = [record for seat in twins.c.shown_taken() for record in seat]
        assert sorted(taken) == sorted(shown)


def test_refused_plays_change_nothing() -> None:
    twins = Twins(ruleset("two-deck"), STEPS, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {})
    play(twins, "2S 2S")
    for text in ("2H", "5S 6S", "2S 2S", "QS QS", "2H 5H"):
        assert twins.c.play(key(text)) == twins.python.play(key(text)) == ILLEGAL
    twins.check()
