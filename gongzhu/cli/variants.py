"""``gongzhu variants``: the installed plug-ins, or one plug-in in full."""

from __future__ import annotations

import json
import unicodedata
from typing import IO, Any

from ..errors import GongzhuError, InvalidPlugin, PluginError, PluginLoadError, UnknownVariant
from ..rules import load_rules, variant_names

__all__ = ["run_variant", "run_variants"]


def _pad(text: str, width: int) -> str:
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


def run_variants(out: IO[str], err: IO[str]) -> int:
    """``gongzhu variants``: one line a plug-in: name, Chinese name, base or modifier, summary.

    A plug-in that cannot be loaded is listed as broken, named on stderr, and makes the
    status 1; the others are listed all the same.
    """
    broken: list[PluginLoadError | PluginError | InvalidPlugin] = []
    for name in variant_names():
        try:
            infos = load_rules(name).variants
        except (PluginLoadError, PluginError, InvalidPlugin) as exc:
            print(f"{name:<22} (broken: cannot be loaded)", file=out)
            broken.append(exc)
            continue
        except GongzhuError as exc:
            print(f"{name:<22} (cannot load alone: {exc})", file=out)
            continue
        mine = next(i for i in infos if i.name == name)
        kind = "base" if mine.base else "modifier"
        print(f"{name:<22} {_pad(mine.title_zh, 22)} {kind:<9} {mine.summary}", file=out)
    for error in broken:
        print(f"gongzhu: {error}", file=err)
    return 1 if broken else 0


def _as_json(value: Any) -> str:
    """A value as ``--option`` reads it (JSON), or its ``repr`` when it has no JSON form."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def run_variant(name: str, out: IO[str]) -> int:
    """``gongzhu variants NAME``: one plug-in's description, options and defaults."""
    names = variant_names()
    if name not in names:
        raise UnknownVariant(name, names)  # invalid input (status 1), as for --rules
    rules = load_rules(name)
    mine = next(i for i in rules.variants if i.name == name)
    title = " ".join(t for t in (mine.title_zh, f"({mine.title})" if mine.title else "") if t)
    print(f"{name}: {title}", file=out)
    kind = "base ruleset" if mine.base else f"modifier (loaded here with {rules.names[0]})"
    print(f"  kind: {kind}", file=out)
    if mine.summary:
        print(f"  {mine.summary}", file=out)
    if mine.normalisation:
        print(f"  results: {mine.normalisation}", file=out)
    if mine.conflicts:
        print(f"  cannot be combined with: {', '.join(sorted(mine.conflicts))}", file=out)
    own = [o for o in rules.option_specs if o.owner == name]
    if not own:
        print("  options: none", file=out)
    for option in own:
        choices = (
            ""
            if option.choices is None
            else f" (one of {', '.join(map(_as_json, option.choices))})"
        )
        print(
            f"  --option {option.name}=VALUE  default {_as_json(option.default)}{choices}",
            file=out,
        )
        print(f"      {option.help}", file=out)
    return 0
