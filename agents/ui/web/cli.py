"""``sly-scout serve``: the web table on a local port.

Imports no web library until the server starts, so ``sly-scout --help`` works
without the ``web`` extra.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from sly_scout_env.agents.ui.arg_types import positive_int

LOOPBACK_NAMES = ("localhost",)


def default_state_dir() -> str:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "sly-scout", "web")


def add_serve_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``serve`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "serve",
        help="play Scout or Sly in the browser against chosen bots (a local web app)",
        description="Serve the web table: choose a game, the players, the options and the bots, "
                    "then play whole matches by pointing at cards. The JSON API is documented in docs/web.md.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; anything else is reachable "
                        "by others and prints a warning)")
    p.add_argument("--port", type=positive_int, default=8765, help="port (default 8765)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests for this host name or address (repeatable); by default only "
                        "127.0.0.1, localhost, [::1] and the --host address are served, so a page of another "
                        "site whose name points here (DNS rebinding) is refused")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--state-dir", default=None,
                   help=f"where games are saved, so they survive a restart (default {default_state_dir()})")
    p.add_argument("--max-games", type=positive_int, default=None,
                   help="games kept; the least recently played is forgotten beyond it (default 50)")
    p.add_argument("--max-body", type=positive_int, default=None,
                   help="largest request body in bytes (default 262144)")
    p.add_argument("--checkpoint", action="append", default=[], metavar="NAME=BOT:PATH",
                   help="allow a checkpoint bot by name (e.g. strong=ppo:runs/a/final.zip); the page offers "
                        "it as BOT:checkpoint=NAME. Without it, no bot can load a file from a web request.")
    return p


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run_serve(args, err=None) -> int:
    err = err or sys.stderr
    try:
        import uvicorn

        from sly_scout_env.agents.ui.web.app import DEFAULT_MAX_BODY, DEFAULT_MAX_GAMES, create_app
        from sly_scout_env.agents.ui.web.guard import allowed_hosts, host_name
        from sly_scout_env.agents.ui.web.session import parse_checkpoints
    except ImportError as exc:
        print(f"sly-scout serve: the web extra is not installed ({exc}); "
              "install it with: pip install 'sly-scout-env[web]'", file=err)
        return 2
    try:
        checkpoints = parse_checkpoints(args.checkpoint)
    except ValueError as exc:
        print(f"sly-scout serve: error: {exc}", file=err)
        return 2
    state_dir = args.state_dir or default_state_dir()
    app = create_app(state_dir, max_games=args.max_games or DEFAULT_MAX_GAMES,
                     max_body=args.max_body or DEFAULT_MAX_BODY, checkpoints=checkpoints,
                     hosts=allowed_hosts(args.host, args.allow_host))
    store = app.state.store
    for line in store.skipped:
        print(f"sly-scout serve: warning: a saved game could not be loaded: {line}", file=err)
    if not is_loopback(args.host):
        print(f"sly-scout serve: WARNING: bound to {args.host}, not to this machine only: anyone who can reach "
              f"port {args.port} can start and play games here. Use --host 127.0.0.1 to keep it local. "
              f"Requests are answered only for the host names {', '.join(allowed_hosts(args.host, args.allow_host))}"
              "; add the name others use with --allow-host NAME.", file=err)
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else host_name(args.host)}:{args.port}/"
    print(f"sly-scout serve: {url}  (games in {state_dir}, {len(store.games)} kept; Ctrl-C stops)", file=err)
    if args.open:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
