"""What pytest leaves out of the package's doctests on a machine without an extra.

``gongzhu.web.transport`` subclasses uvicorn's protocols, so it imports uvicorn
as it is loaded; the other modules of the extras import theirs when called.
"""

from __future__ import annotations

import importlib.util

collect_ignore: list[str] = []
if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("h11") is None:
    collect_ignore.append("gongzhu/web/transport.py")
