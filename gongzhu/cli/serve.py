"""``gongzhu serve``: play in the browser (:mod:`gongzhu.web`, extra ``gongzhu[web]``).

Its options are in ``gongzhu.cli.parser``; the web modules are imported only
when the command runs.
"""

from __future__ import annotations

import argparse
from typing import IO

from .parser import UsageError, ruleset

__all__ = ["run_serve"]


def run_serve(args: argparse.Namespace, out: IO[str]) -> int:
    """``gongzhu serve``: open a table, print its links, serve until Ctrl-C.

    The web modules are imported here, so other commands never load them.
    """
    from ..web import MissingExtra, require_extra

    try:
        require_extra()
    except MissingExtra as exc:
        raise UsageError(str(exc)) from None
    from ..web.lobby import Lobby
    from ..web.serve import base_url, open_socket, print_links, serve

    if args.target is not None and args.match:
        raise UsageError("--target already plays a match: drop --match")
    lobby = Lobby(bot_delay=args.bot_delay)
    table = None
    if not args.no_table:
        table = lobby.open_table(
            ruleset(args),
            args.seats,
            seed=args.seed,
            hands=None if args.match or args.target else args.hands,
            target=args.target,
        )
    try:
        sock = open_socket(args.host, args.port)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from None
    url = base_url(sock)
    print(f"gongzhu serving on {url} (Ctrl-C stops it)", file=out)
    print(f"  open a table: {url}/   hand viewer: {url}/viewer", file=out)
    if table is not None:
        print_links(table, url, out)
    out.flush()
    serve(lobby, sock)
    return 0
