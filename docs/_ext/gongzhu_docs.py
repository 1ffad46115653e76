"""Sphinx directives that render gongzhu's plug-in facts from the code itself.

``.. gongzhu-options:: NAME`` — the options plug-in NAME declares (name,
default, choices, what it decides), read from a ruleset that loads it.

``.. gongzhu-variants::`` — every installed plug-in: name, Chinese name,
base or modifier, summary.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

import gongzhu


def _table(headers: list[str], rows: list[list[str]]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for target, cells in ((head, headers), *((body, row) for row in rows)):
        row_node = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=cell)
            row_node += entry
        target += row_node
    return table


class OptionsDirective(Directive):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        rules = gongzhu.load_rules(name) if name != "39baobao" else gongzhu.load_rules()
        options = [o for o in rules.option_specs if o.owner == name]
        if not options:
            return [nodes.paragraph(text="Options: none.")]
        rows = [
            [
                o.name,
                repr(o.default),
                ", ".join(map(repr, o.choices)) if o.choices else f"any {type(o.default).__name__}",
                o.help,
            ]
            for o in options
        ]
        return [_table(["option", "default", "values", "what it decides"], rows)]


class VariantsDirective(Directive):
    def run(self) -> list[nodes.Node]:
        rows = []
        for name in gongzhu.variant_names():
            info = next(i for i in gongzhu.load_rules(name).variants if i.name == name)
            rows.append([name, info.title_zh, "base" if info.base else "modifier", info.summary])
        return [_table(["name", "中文", "kind", "what it changes"], rows)]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("gongzhu-options", OptionsDirective)
    app.add_directive("gongzhu-variants", VariantsDirective)
    return {"parallel_read_safe": True, "version": gongzhu.__version__}
