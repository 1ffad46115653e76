"""The variant plug-ins shipped with gongzhu, installed as ``gongzhu_variants``.

Each module is one plug-in, registered under its name in the
``gongzhu.variants`` entry-point group; the core loads them only through
that group, exactly as it loads a third party's.  No module here imports
another.
"""
