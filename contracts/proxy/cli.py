"""`harness-proxy --api NAME --upstream URL [--host] [--port] [--record FILE] [--log STEM]`.

Also runnable as `python -m contracts.proxy ...` (`make proxy`) and, as in earlier releases,
`python -m mock_server proxy ...`. Serves the validating proxy (`app.ProxyApp`)
under uvicorn; the drift log goes to `<STEM>.md` and `<STEM>.jsonl` (default
`reports/proxy-drift`), the recording (if asked) to FILE.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    from mock_server.apis import APIS
    from mock_server.serve import port_number

    parser = argparse.ArgumentParser(prog="harness-proxy", description=__doc__)
    parser.add_argument("--api", required=True, choices=sorted(APIS), help="which API's contract to apply")
    parser.add_argument("--upstream", required=True, help="the server to forward to, e.g. https://staging.example")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=port_number, default=4020)
    parser.add_argument("--record", default=None, help="write every exchange, redacted, to this JSONL file")
    parser.add_argument("--log", default="reports/proxy-drift", help="drift log stem: STEM.md and STEM.jsonl")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--oracle", action="store_true", help="also compare each answer with an oracle mock's")
    args = parser.parse_args(argv)

    import uvicorn

    from .app import ProxyApp

    app = ProxyApp(args.api, args.upstream, record=args.record, log=args.log, oracle=args.oracle)
    print(f"proxy for {args.api}: http://{args.host}:{args.port} -> {args.upstream}", flush=True)
    print(f"drift log: {args.log}.md, {args.log}.jsonl" + (f"; recording: {args.record}" if args.record else ""))
    # the upstream's Date and Server are relayed: uvicorn adds none of its own (one Date header per answer)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=False,
        date_header=False,
        server_header=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
