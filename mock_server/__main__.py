"""`python -m mock_server [--host 127.0.0.1] [--port 4010]`: serve the mock."""

from __future__ import annotations

import argparse
import gc
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4010)
    parser.add_argument(
        "--clock-scale",
        type=float,
        default=1.0,
        help="simulated seconds per real second (0 freezes time; /__mock/clock still moves it)",
    )
    parser.add_argument("--no-control", action="store_true", help="disable the /__mock control surface")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)

    import uvicorn

    from .app import MockConfig, create_app

    app = create_app(MockConfig(control=not args.no_control, clock_scale=args.clock_scale))
    mock = app.state.mock
    _, secret = mock.store.add_token(mock.store.default_user_id, mock.all_scopes, label="make serve")
    base = f"http://{args.host}:{args.port}"
    print(f"Benchwright mock listening on {base}", flush=True)
    print(f"  export BW_API_URL={base}", flush=True)
    print(f"  export BW_PAT={secret}   # full scope, default seeded user", flush=True)
    if not args.no_control:
        print(f"  control surface: {base}/__mock (see README)", flush=True)
    # Long-lived state (seeds, runs and their plans) is not garbage: keep it out of the
    # cyclic collector's full passes, which otherwise show up as latency spikes.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
