"""`python -m mock_server [--api NAME] [--host 127.0.0.1] [--port N] [--fixtures FILE] [--server uvicorn|granian]`:
serve one API's mock.

`python -m mock_server proxy --api NAME --upstream URL [--host] [--port] [--record FILE]`:
the validating proxy (`contracts/proxy/`, also `harness-proxy`), as earlier releases ran it.

`--api` picks a registered API (`mock_server/apis.py`; Benchwright by default);
the port defaults to that API's own (Benchwright 4010, then 4011, 4012, 4013); `--port 0`
binds any free port, and the banner prints the port bound.
It prints the base URL and a ready credential as `export` lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .apis import APIS, DEFAULT_API, profile
from .serve import add_set_option, port_number, tune_gc
from .server import MAX_HEAD_BYTES, bound_port, granian_available, listen, serve_granian, serve_uvicorn


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mock_server", description=__doc__)
    parser.add_argument("--api", default=DEFAULT_API, choices=sorted(APIS), help="which API to serve")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=port_number, default=None, help="default: the API's own port")
    parser.add_argument(
        "--clock-scale",
        type=float,
        default=1.0,
        help="simulated seconds per real second (0 freezes time; /__mock/clock still moves it)",
    )
    parser.add_argument("--no-control", action="store_true", help="disable the /__mock control surface")
    parser.add_argument("--no-cors", action="store_true", help="send no CORS headers and refuse preflights")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--fixtures", metavar="FILE", help="replay a proxy recording into the mock at start-up")
    parser.add_argument(
        "--server",
        choices=["uvicorn", "granian"],
        default="uvicorn",
        help="the HTTP server (granian: faster, needs the granian extra; see mock_server/server.py)",
    )
    parser.add_argument(
        "--max-head-bytes",
        type=int,
        default=MAX_HEAD_BYTES,
        help="the largest request line plus headers accepted (414/431 past it; default %(default)s)",
    )
    add_set_option(parser)
    return parser


def build_from_argv(argv: list[str], bound: int | None = None) -> tuple[Any, Any, argparse.Namespace]:
    """The app `python -m mock_server ARGV` serves, built (and seeded) once, its banner printed
    with the port `bound` (the port actually bound), else the one asked for."""
    parser = _parser()
    args = parser.parse_args(argv)

    from .app import build_app
    from .engine.api import Api
    from .serve import banner, check_settings, config_of

    check_settings(parser, args, [args.api])
    chosen = profile(args.api)
    api = Api(chosen, config_of(chosen, args))
    app = build_app(api)
    if args.fixtures:
        from contracts.proxy.recording import read_recording
        from contracts.proxy.seed import seed_app

        seeded = seed_app(args.api, app, read_recording(args.fixtures))
        print(f"# seeded from {args.fixtures}: {seeded.replayed} writes replayed, {seeded.created} rows created")
        for placeholder, credential in seeded.credentials.items():
            print(f"# {placeholder} -> {credential}", flush=True)
    port = bound if bound is not None else chosen.port if args.port is None else args.port
    print("\n".join(banner(api, args.host, port, not args.no_control)), flush=True)
    return app, api, args


def main(argv: list[str] | None = None, wrap: Callable[[Any], Any] | None = None) -> int:
    """Serve one API. `wrap` (uvicorn only) wraps the app served, e.g. with a probe."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["proxy"]:
        from contracts.proxy.cli import main as proxy_main

        return proxy_main(argv[1:])
    args = _parser().parse_args(argv)
    port = profile(args.api).port if args.port is None else args.port  # 0: any free port
    if args.server == "granian":
        if not granian_available():
            print("--server granian needs Granian: pip install -e '.[granian]'", file=sys.stderr)
            return 2
        if port == 0:  # Granian binds in its own process: pick the free port here and pass it on
            with listen(args.host, 0) as probe:
                port = bound_port(probe)
        serve_granian([*argv, "--port", str(port)], args.host, port, args.log_level, args.max_head_bytes)
        return 0
    sock = listen(args.host, port)
    app, api, _ = build_from_argv(argv, bound=bound_port(sock))
    tune_gc()
    serve_uvicorn([(wrap(app) if wrap else app, api, sock)], args.log_level, args.max_head_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
