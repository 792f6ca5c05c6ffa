"""`python -m mock_server.serve` (`make serve`): every registered API's mock, each on its own port.

Benchwright on 4010, benchsdk on 4011, BenchGen on 4012, Bench on 4013 (each
profile's `port`), in one process and one event loop, each printing its base
URL and a ready credential as `export` lines. `--api NAME` serves one (as
`python -m mock_server --api NAME` does); `--port` moves a single API (0: any free port,
the banner prints the port bound).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import sys

from .apis import APIS, profile
from .server import MAX_HEAD_BYTES, bound_port, listen, serve_uvicorn


def config_of(chosen, args):
    """The config `python -m mock_server` and `make serve` build for the profile `chosen`: its
    serve options, the flags, then each `--set FIELD=VALUE` its config class has (a value is
    read as JSON when it parses, else as a string: `--set keep_finished_runs=100`,
    `--set keep_finished_runs=null`, `--set sse_ping_seconds=2`)."""
    options = {
        **chosen.serve_options,
        "control": not args.no_control,
        "clock_scale": args.clock_scale,
        "cors": not args.no_cors,
    }
    known = {field.name for field in dataclasses.fields(chosen.config)}
    for name, value in settings(args).items():
        if name in known:
            options[name] = value
    return chosen.config(**options)


def settings(args) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in getattr(args, "set", None) or []:
        name, _, raw = pair.partition("=")
        try:
            out[name.strip()] = json.loads(raw)
        except ValueError:
            out[name.strip()] = raw
    return out


def add_set_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="a config field of the API (repeatable), e.g. keep_finished_runs=100 (Benchwright's retention)",
    )


def check_settings(parser: argparse.ArgumentParser, args, names: list[str]) -> None:
    """Refuse a `--set` field that no served API's config has (a typo would otherwise do nothing)."""
    known = {field.name for name in names for field in dataclasses.fields(profile(name).config)}
    unknown = sorted(set(settings(args)) - known)
    if unknown:
        parser.error(f"--set: no such config field for {', '.join(names)}: {', '.join(unknown)}")


def tune_gc() -> None:
    """Long-lived state (seeds, runs and their plans) is not garbage: keep it out of the
    cyclic collector's full passes, which otherwise show up as latency spikes."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def banner(api, host: str, port: int, control: bool) -> list[str]:
    chosen = api.profile
    base = f"http://{host}:{port}"
    lines = [f"{chosen.title} mock listening on {base}"]
    if chosen.url_env:
        lines.append(f"  export {chosen.url_env}={base}")
    for name, value in (chosen.ready_credentials(api) if chosen.ready_credentials else {}).items():
        lines.append(f"  export {name}={value}")
    if control:
        lines.append(f"  control surface: {base}/__mock (docs/{chosen.name}.md)")
    return lines


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535. An operating system takes a larger number modulo
    65536 and binds some other port, so it is refused here."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{number} is not a port: use 0 to 65535")
    return number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_server.serve", description=__doc__)
    parser.add_argument("--api", action="append", choices=sorted(APIS), help="serve only this API (repeatable)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=port_number, default=None, help="with one --api: its port")
    parser.add_argument("--clock-scale", type=float, default=1.0)
    parser.add_argument("--no-control", action="store_true")
    parser.add_argument("--no-cors", action="store_true")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--max-head-bytes", type=int, default=MAX_HEAD_BYTES, help="see mock_server/server.py")
    add_set_option(parser)
    args = parser.parse_args(argv)
    names = args.api or list(APIS)
    check_settings(parser, args, names)
    if args.port is not None and len(names) != 1:
        parser.error("--port needs exactly one --api")

    from .app import build_app
    from .engine.api import Api

    apps = []
    for name in names:
        chosen = profile(name)
        api = Api(chosen, config_of(chosen, args))
        sock = listen(args.host, chosen.port if args.port is None else args.port)
        print("\n".join(banner(api, args.host, bound_port(sock), not args.no_control)), flush=True)
        apps.append((build_app(api), api, sock))
    tune_gc()
    serve_uvicorn(apps, args.log_level, args.max_head_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
