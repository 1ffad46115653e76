"""pytest runs the docs' examples (*.rst doctests); the Sphinx files need Sphinx, so skip them.

``envs.rst`` builds the adapters' environments in its examples: it runs where the
research extras are installed (CI's research stage names it).  (This file's
``collect_ignore`` is the one pytest reads for the files of this folder.)
"""

import importlib.util

collect_ignore = ["conf.py", "_ext"]
if any(importlib.util.find_spec(name) is None for name in ("numpy", "pettingzoo", "gymnasium")):
    collect_ignore.append("envs.rst")
