"""``flink-agents-memory inspect SAVEPOINT``: serve the memory inspector page for a savepoint."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from ..errors import ConfigurationError
from ..models import HashingEmbedder
from .savepoint_view import InspectorError, SavepointView
from .server import InspectorServer, is_loopback


def load_object(spec: str, what: str) -> Any:
    """``module:attr`` (attr may be dotted) -> the object; a clear error otherwise."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigurationError(f"{what} must look like module:Name, got {spec!r}")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ConfigurationError(f"cannot load {what} {spec!r}: {e}") from e
    return obj


def make_embedder(spec: str | None, agent: Any | None) -> Any | None:
    """``hashing:DIM``, or ``module:Name`` (an embedder, or a class/factory called without
    arguments); with neither, the embedder the agent declares, if it declares one."""
    if spec is None:
        config = getattr(agent, "long_term_memory", None)
        return getattr(config, "embedder", None)
    if spec.startswith("hashing:"):
        try:
            return HashingEmbedder(int(spec.split(":", 1)[1]))
        except ValueError as e:
            raise ConfigurationError(f"--embedder hashing:DIM needs an integer DIM: {e}") from e
    obj = load_object(spec, "--embedder")
    is_factory = isinstance(obj, type) or (callable(obj) and not hasattr(obj, "embed"))
    return obj() if is_factory else obj


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "inspect", help="serve a read-only web page showing the memory in a savepoint",
        description="Open a savepoint (or retained checkpoint) of an agent job and serve a "
                    "read-only page of its memory: keys, short-term memory, histories, "
                    "long-term memories with search, audit trails, per-subtask index stats.")
    p.add_argument("savepoint", help="savepoint directory, its _metadata file, or a file: URI")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default loopback; any other needs a token)")
    p.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
    p.add_argument("--token", help="access token (generated when --host is not loopback)")
    p.add_argument("--agent", help="module:AgentClass of the job: history retention settings "
                                   "and the embedder for vector search")
    p.add_argument("--embedder", help="query embedder: hashing:DIM or module:Name "
                                      "(default: the agent's)")
    p.add_argument("--operator", metavar="UID_OR_NAME",
                   help="the agent operator to show when the job applied several agents: its "
                        "uid, its name (agent:ClassName) or its operator id; the error page "
                        "lists them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    agent = load_object(args.agent, "--agent") if args.agent else None
    embedder = make_embedder(args.embedder, agent)
    view: SavepointView | None = None
    error = None
    try:
        view = SavepointView(args.savepoint, embedder=embedder, agent=agent,
                             operator=args.operator)
    except InspectorError as e:
        error = str(e)
        print(f"flink-agents-memory inspect: error: {error}", file=sys.stderr)
    server = InspectorServer(view, error, host=args.host, port=args.port, token=args.token)
    if not is_loopback(args.host):
        print("bound beyond loopback: the page needs the token in the URL", file=sys.stderr)
    print(f"memory inspector: {server.url}  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        if view is not None:
            view.close()
    return 0 if error is None else 1
