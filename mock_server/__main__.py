"""`python -m mock_server [--api NAME] [--host 127.0.0.1] [--port N] [--fixtures FILE]`: serve one API's mock.

`python -m mock_server proxy --api NAME --upstream URL [--host] [--port] [--record FILE]`:
the validating proxy (`mock_server/proxy/`).

`--api` picks a registered API (`mock_server/apis.py`; Benchwright by default);
the port defaults to that API's own (Benchwright 4010, then 4011, 4012, 4013).
It prints the base URL and a ready credential as `export` lines.
"""

from __future__ import annotations

import argparse
import gc
import sys

from .apis import APIS, DEFAULT_API, profile


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["proxy"]:
        from .proxy.cli import main as proxy_main

        return proxy_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m mock_server", description=__doc__)
    parser.add_argument("--api", default=DEFAULT_API, choices=sorted(APIS), help="which API to serve")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: the API's own port")
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
    args = parser.parse_args(argv)

    import uvicorn

    from .app import build_app
    from .engine.api import Api
    from .serve import banner

    chosen = profile(args.api)
    options = {
        **chosen.serve_options,
        "control": not args.no_control,
        "clock_scale": args.clock_scale,
        "cors": not args.no_cors,
    }
    config = chosen.config(**options)
    api = Api(chosen, config)
    app = build_app(api)
    if args.fixtures:
        from .proxy.recording import read_recording
        from .proxy.seed import seed_app

        seeded = seed_app(args.api, app, read_recording(args.fixtures))
        print(f"# seeded from {args.fixtures}: {seeded.replayed} writes replayed, {seeded.created} rows created")
        for placeholder, credential in seeded.credentials.items():
            print(f"# {placeholder} -> {credential}", flush=True)
    port = args.port or chosen.port
    print("\n".join(banner(api, args.host, port, not args.no_control)), flush=True)
    # Long-lived state (seeds, runs and their plans) is not garbage: keep it out of the
    # cyclic collector's full passes, which otherwise show up as latency spikes.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    uvicorn.run(app, host=args.host, port=port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
