"""pytest runs the docs' examples (*.rst doctests); the Sphinx files need Sphinx, so skip them."""

collect_ignore = ["conf.py", "_ext"]
