"""Card masks with two copies of a card: the whole-mask operations against copy by copy."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gongzhu.masks import (
    ALL_CARDS,
    SECOND_COPY,
    add_copies,
    add_copy,
    copies_in,
    indices,
    subtract_copies,
)

# any mask, second copies without first ones included (add_copies must take those too)
_masks = st.integers(min_value=0, max_value=(1 << 2 * SECOND_COPY) - 1)


def _canonical(mask: int) -> int:
    """A mask with each card's copies counted as the masks of the library hold them."""
    out = 0
    for index in range(52):
        for _ in range(copies_in(mask, index)):
            out = add_copy(out, index)
    return out


def _added_copy_by_copy(a: int, b: int) -> int:
    """add_copies' reference: add_copy once for each copy ``b`` holds."""
    for index in indices(b & ALL_CARDS):
        a = add_copy(a, index)
    for index in indices(b >> SECOND_COPY):
        a = add_copy(a, index)
    return a


@given(_masks, _masks)
def test_add_copies_is_add_copy_for_each_copy(a: int, b: int) -> None:
    assert add_copies(a, b) == _added_copy_by_copy(a, b)


@given(_masks, _masks)
def test_add_copies_counts_copies_up_to_two(a: int, b: int) -> None:
    a, b = _canonical(a), _canonical(b)
    added = add_copies(a, b)
    assert added == _canonical(added)  # never a second copy without the first
    for index in range(52):
        assert copies_in(added, index) == min(2, copies_in(a, index) + copies_in(b, index))


@given(_masks, _masks)
def test_subtract_then_add_gives_back_the_copies(a: int, b: int) -> None:
    a, b = _canonical(a), _canonical(b)
    rest = subtract_copies(a, b)
    for index in range(52):
        assert copies_in(rest, index) == max(0, copies_in(a, index) - copies_in(b, index))
    both = add_copies(rest, b)
    for index in range(52):
        assert copies_in(both, index) == min(2, max(copies_in(a, index), copies_in(b, index)))
