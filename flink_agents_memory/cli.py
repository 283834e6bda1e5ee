"""``flink-agents-memory``: command-line tools. Each command group is a module with
``register(subparsers)`` listed in COMMAND_GROUPS; add a group there to extend the CLI."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from .errors import FlinkAgentsMemoryError

#: Modules whose ``register(subparsers)`` adds a subcommand (group) to the CLI.
COMMAND_GROUPS = ["flink_agents_memory.knowledge.cli", "flink_agents_memory.inspector.cli"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flink-agents-memory",
        description="Tools for flink_agents_memory (memory for streaming agents in Flink).")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_GROUPS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except (FlinkAgentsMemoryError, ValueError, OSError) as e:
        print(f"flink-agents-memory: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
