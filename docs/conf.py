"""Sphinx configuration for the gongzhu docs (built with ``sphinx-build -W``)."""

from __future__ import annotations

import sys
from pathlib import Path

import gongzhu

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "gongzhu"
author = "The gongzhu developers"
copyright = "2026, The gongzhu developers"
release = version = gongzhu.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "gongzhu_docs",
]
doctest_global_setup = "import gongzhu\nfrom gongzhu.rules import load_rules"
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_preserve_defaults = True
language = "en"
html_theme = "furo"
html_title = "gongzhu 拱猪"
html_static_path = ["_static"]
exclude_patterns = ["_build"]
