"""Rebuilding hands from records (:meth:`HandState.to_record` output)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import parse_action
from .errors import GongzhuError, IllegalAction, InvalidCard, InvalidRecord
from .hand import RECORD_FORMAT, HandState
from .plugin import Deal
from .rules import Rules, load_rules

__all__ = ["replay"]


def _field(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], hand: int) -> Any:
    if name not in record:
        raise InvalidRecord(f"missing field {name!r}", hand=hand)
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InvalidRecord(
            f"field {name!r} has the wrong type ({type(value).__name__})", hand=hand
        )
    return value


def replay(record: Mapping[str, Any], *, hand: int = 0, rules: Rules | None = None) -> HandState:
    """Rebuild a hand from its record, checking every action's legality.

    A record of an unfinished hand gives the state after its last action.  A
    stored result is compared with the replayed score.

    :param record: a mapping as :meth:`HandState.to_record` returns (or its JSON).
    :param hand: the hand's number within a larger record, for error messages.
    :param rules: the ruleset to replay under, for plug-ins that are not
        installed (:meth:`Rules.from_plugins`); it must match the record's
        plug-in names and options.  By default the record's ruleset is loaded
        by entry-point name.
    :raises InvalidRecord: naming the hand, the action index and the reason;
        nothing half-loaded is returned.
    """
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"a hand record is a mapping, not {type(record).__name__}", hand=hand)
    fmt = record.get("format")
    if fmt != RECORD_FORMAT:
        raise InvalidRecord(
            f"unknown record format {fmt!r} (expected {RECORD_FORMAT!r})", hand=hand
        )
    spec = _field(record, "rules", Mapping, hand)
    variants = spec.get("variants", [])
    options = spec.get("options", {})
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise InvalidRecord("rules.variants must be a list of names", hand=hand)
    if not isinstance(options, Mapping):
        raise InvalidRecord("rules.options must be a mapping", hand=hand)
    if rules is None:
        try:
            rules = load_rules(*variants, **options)
        except GongzhuError as exc:
            raise InvalidRecord(f"rules: {exc}", hand=hand) from None
    elif rules.spec() != {"variants": list(variants), "options": dict(options)}:
        raise InvalidRecord(
            f"rules: the record was played under {variants} {dict(options)}, not {rules!r}",
            hand=hand,
        )
    order = _field(record, "deal", list, hand)
    first_seat = record.get("first_seat", 0)
    try:
        deal = Deal(tuple(order), first_seat)
    except (InvalidCard, TypeError) as exc:
        raise InvalidRecord(f"deal: {exc}", hand=hand) from None
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise InvalidRecord("seed must be an integer or null", hand=hand)
    leader = record.get("leader")
    try:
        state = rules.new_hand(seed, deal=deal, leader=leader)
    except GongzhuError as exc:
        raise InvalidRecord(f"leader: {exc}", hand=hand) from None
    for index, entry in enumerate(_field(record, "actions", list, hand)):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("action"), str):
            raise InvalidRecord("an action is {'seat': n, 'action': text}", hand=hand, index=index)
        if entry.get("seat") != state.current_seat:
            raise InvalidRecord(
                f"action by seat {entry.get('seat')!r}, but seat {state.current_seat} is to move",
                hand=hand,
                index=index,
            )
        try:
            state.apply(parse_action(entry["action"]))
        except (InvalidCard, IllegalAction) as exc:
            raise InvalidRecord(str(exc), hand=hand, index=index) from None
    result = record.get("result")
    if result is not None:
        if not state.is_over:
            raise InvalidRecord(
                "the record has a result but its actions do not finish the hand", hand=hand
            )
        if not isinstance(result, Mapping):
            raise InvalidRecord("result must be a mapping", hand=hand)
        sheet = state.score()
        for name, value in (("raw", sheet.raw), ("final", sheet.final)):
            stored = result.get(name)
            if stored is not None and list(stored) != list(value):
                raise InvalidRecord(
                    f"stored {name} scores {list(stored)} differ from the replayed {list(value)}",
                    hand=hand,
                )
    replayed = state.to_record()
    for name in ("shows", "tricks"):
        stored = record.get(name)
        if stored is not None and stored != replayed[name]:
            raise InvalidRecord(f"stored {name} differ from the replayed hand", hand=hand)
    return state
