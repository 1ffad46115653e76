"""``gongzhu serve``: play in the browser (:mod:`gongzhu.web`, extra ``gongzhu[web]``).

Its options are in ``gongzhu.cli.parser``; the web modules are imported only
when the command runs.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import IO

from ..errors import GongzhuError
from .parser import UsageError, ruleset

__all__ = ["run_serve"]


def run_serve(args: argparse.Namespace, out: IO[str]) -> int:
    """``gongzhu serve``: open the database, rebuild its tables, open a table, print
    its links, serve until Ctrl-C.

    The web modules are imported here, so other commands never load them.
    """
    from ..web import MissingExtra, require_extra

    try:
        require_extra()
    except MissingExtra as exc:
        raise UsageError(str(exc)) from None
    from ..web.lobby import Lobby
    from ..web.serve import base_url, open_socket, print_links, raise_file_limit, serve
    from ..web.settings import Settings
    from ..web.store import Store, StoreError, default_path

    try:
        settings = Settings(
            bot_delay=args.bot_delay,
            workers=args.workers,
            max_tables=args.max_tables,
            tables_per_client=args.tables_per_client,
            max_hands=args.max_hands,
            keep_finished=args.keep_finished,
            keep_idle=args.keep_idle,
            keep_unjoined=args.keep_unjoined,
            origins=args.origin,
            trusted_proxies=args.trusted_proxy,
            max_connections=args.max_connections,
            message_rate=args.message_rate,
            client_rate=args.client_rate,
            turn_timeout=args.turn_timeout,
            bot_queue=args.bot_queue,
            bot_tables=args.bot_tables,
            bot_wait=args.bot_wait,
            prune_after=args.prune_after,
        )
    except GongzhuError as exc:
        raise UsageError(f"--origin: {exc}" if "origin" in str(exc) else str(exc)) from None
    hands = None if args.match or args.target else (args.hands or 1)
    if hands is not None and hands > settings.max_hands:
        raise UsageError(f"--hands {hands} is more than --max-hands {settings.max_hands}")
    rules = None if args.no_table else ruleset(args)
    if rules is not None and args.match and not rules.decides_match_end:
        raise UsageError(
            f"{' + '.join(rules.names)} matches have no end of their own: give --target"
        )
    access = _access_log(args.access_log)
    raise_file_limit()
    try:
        sock = open_socket(args.host, args.port)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from None
    store = None
    try:
        if args.db != ":memory:":
            try:
                store = Store.open(args.db or default_path())
            except StoreError as exc:
                raise UsageError(str(exc)) from None
        lobby = Lobby(settings, store=store)
        restored = lobby.restore()
        table = None
        if rules is not None:
            table = lobby.open_table(
                rules,
                args.seats,
                seed=args.seed,
                hands=hands,
                target=args.target,
                format=args.format,
            )
        url = base_url(sock)
        print(f"gongzhu serving on {url} (Ctrl-C stops it)", file=out)
        print(f"  open a table: {url}/   hand viewer: {url}/viewer", file=out)
        if store is None:
            print("  tables are kept in memory only (--db :memory:)", file=out)
        else:
            count = len(restored)
            print(
                f"  tables are kept in {store.path} "
                f"({count} open table{'' if count == 1 else 's'} restored)",
                file=out,
            )
        if table is not None:
            print_links(table, url, out)
        out.flush()
        serve(lobby, sock)
    finally:
        sock.close()
        if store is not None:
            store.close()
        if access is not None:
            logging.getLogger("gongzhu.web.access").removeHandler(access)
            access.close()
    return 0


def _access_log(path: str | None) -> logging.Handler | None:
    """``--access-log``: a handler writing the access log to ``path`` (``-``: stderr)."""
    if path is None:
        return None
    handler: logging.Handler
    try:
        handler = (
            logging.StreamHandler(sys.stderr)
            if path == "-"
            else logging.FileHandler(path, encoding="utf-8")
        )
    except OSError as exc:
        raise UsageError(f"--access-log: cannot write {path}: {exc.strerror or exc}") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log = logging.getLogger("gongzhu.web.access")
    log.setLevel(logging.INFO)
    log.propagate = False
    log.addHandler(handler)
    return handler
