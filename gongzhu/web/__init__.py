"""Play in the browser: ``gongzhu serve`` (extra ``gongzhu[web]``).

An ASGI application on Starlette, run by uvicorn.  The server is the
referee: it sends each seat only its own :meth:`~gongzhu.hand.HandState.view`,
checks every action with the engine and plays the bots' turns itself (in
worker processes).  It keeps every table in an SQLite database, so a restart
loses nothing.  The pages are plain HTML, CSS and JavaScript shipped in the
package (no build step).

The modules, from the bottom up:

- :mod:`gongzhu.web.protocol`: the JSON messages of the table's websocket;
- :mod:`gongzhu.web.settings`: a server's limits and keeping times;
- :mod:`gongzhu.web.outbox`: what is sent to one connection, which never holds up a table;
- :mod:`gongzhu.web.viewer`: a hand or match record, checked, for the hand viewer;
- :mod:`gongzhu.web.pool`: the worker processes the bots and replays run in;
- :mod:`gongzhu.web.table`: a table (seats, the match under way, its bots);
- :mod:`gongzhu.web.store`: the database of every table, action and record;
- :mod:`gongzhu.web.lobby`: every table of a server, found by seat token;
- :mod:`gongzhu.web.app`: the Starlette application (:func:`~gongzhu.web.app.create_app`);
- ``gongzhu.web.transport``: uvicorn's protocols with a header timeout, and
  aborting a websocket that does not read;
- :mod:`gongzhu.web.serve`: running it with uvicorn (``gongzhu serve``).

Only :mod:`~gongzhu.web.app`, ``transport`` and :mod:`~gongzhu.web.serve` need
the extra, and only ``transport`` imports it with the module (the others when
called), so that ``import gongzhu.web`` (and the documentation build) works
without them.
"""

from __future__ import annotations

import importlib.util

from ..errors import GongzhuError

__all__ = ["EXTRA_MODULES", "MissingExtra", "require_extra"]

EXTRA_MODULES = ("starlette", "uvicorn", "websockets")
"""The modules the ``web`` extra provides (``httpx`` is needed only by tests)."""


class MissingExtra(GongzhuError, ImportError):
    """The ``web`` extra is not installed: ``pip install 'gongzhu[web]'``.

    :ivar missing: the modules that could not be found.
    """

    def __init__(self, missing: tuple[str, ...]) -> None:
        self.missing = missing
        super().__init__(
            f"playing in the browser needs {', '.join(missing)}: pip install 'gongzhu[web]'"
        )


def require_extra(modules: tuple[str, ...] = EXTRA_MODULES) -> None:
    """Check that ``modules`` can be imported.

    :raises MissingExtra: naming the missing ones.
    """
    missing = tuple(name for name in modules if importlib.util.find_spec(name) is None)
    if missing:
        raise MissingExtra(missing)
