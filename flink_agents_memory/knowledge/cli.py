"""``flink-agents-memory knowledge ingest|list|search|serve``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .base import KnowledgeBase
from .embedding import embedder_by_name
from .ingest import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, TextProgress, ingest_files

API_KEY_ENV = "KNOWLEDGE_API_KEY"


def register(sub: Any) -> None:
    group = sub.add_parser("knowledge", help="knowledge sources on a vector database (Chroma)")
    cmds = group.add_subparsers(dest="knowledge_command", metavar="SUBCOMMAND", required=True)

    def service(p: argparse.ArgumentParser) -> None:
        p.add_argument("--url", required=True, help="the Chroma server, http://host:port")
        p.add_argument("--api-key-env", default=API_KEY_ENV, metavar="VAR",
                       help=f"environment variable holding the api key (default {API_KEY_ENV};"
                            " keys are never taken on the command line)")

    p = cmds.add_parser("ingest", help="chunk, embed and store files in a source (idempotent)")
    service(p)
    p.add_argument("--source", required=True, help="the knowledge source (collection) name")
    p.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing",
                   help="hashing (default, no model) or minilm (all-MiniLM-L6-v2, make install)")
    p.add_argument("--dim", type=int, default=None, help="hashing embedder dimension (256)")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, help="characters")
    p.add_argument("--overlap", type=int, default=DEFAULT_OVERLAP, help="characters")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("files", nargs="+", type=Path, metavar="FILES",
                   help="text, markdown (.md) or JSON-lines (.jsonl) files, or directories")
    p.set_defaults(func=cmd_ingest)

    p = cmds.add_parser("list", help="list the sources with their embedder and size")
    service(p)
    p.add_argument("--json", action="store_true", help="one JSON object per source")
    p.set_defaults(func=cmd_list)

    p = cmds.add_parser("search", help="search sources (all, or --source)")
    service(p)
    p.add_argument("--source", default=None)
    p.add_argument("--limit", type=int, default=5)
    p.add_argument("query")
    p.set_defaults(func=cmd_search)

    p = cmds.add_parser("serve", help="run a local Chroma server on a loopback port; with a "
                                      "command after --, run it with $KNOWLEDGE_URL set, then stop")
    p.add_argument("--path", type=Path, default=Path("var/chroma"), help="data directory")
    p.add_argument("--port", type=int, default=0, help="0: a free port")
    p.add_argument("--chroma-bin", default=None, help="the chroma executable")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    p.set_defaults(func=cmd_serve)


def _kb(args: argparse.Namespace, **kw: Any) -> KnowledgeBase:
    env = args.api_key_env if os.environ.get(args.api_key_env) else None
    return KnowledgeBase(args.url, api_key_env=env, **kw)


def _files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.is_file()
                          and p.suffix.lower() in (".txt", ".md", ".markdown", ".jsonl",
                                                   ".ndjson", ".rst"))
        elif path.is_file():
            out.append(path)
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return out


def cmd_ingest(args: argparse.Namespace) -> int:
    embedder = embedder_by_name(args.embedder, args.dim)
    kb = _kb(args, embedder=embedder)
    progress = None if args.no_progress else TextProgress(sys.stderr)
    report = ingest_files(kb, args.source, _files(args.files), embedder, args.chunk_size,
                          args.overlap, progress=progress)
    print(report)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    kb = _kb(args)
    for name in kb.list_sources():
        info = kb.get_source_info(name)
        if args.json:
            print(json.dumps(info, sort_keys=True))
        else:
            print(f"{name}\t{info['count']} chunks\tembedder={info['embedder']}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    kb = _kb(args)
    for item in kb.search(args.query, knowledge_source=args.source, limit=args.limit):
        text = " ".join(item.content.split())
        print(f"{item.score:.3f}\t{item.source}\t{item.metadata.get('file', '')}\t{text[:100]}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from .server import ChromaServer

    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    with ChromaServer(args.path, port=args.port, chroma_bin=args.chroma_bin) as server:
        print(f"chroma serving {server.url} (data in {args.path})", file=sys.stderr)
        if cmd:
            env = {**os.environ, "KNOWLEDGE_URL": server.url}
            return subprocess.call(cmd, env=env)
        try:
            assert server.process is not None
            server.process.wait()
        except KeyboardInterrupt:
            pass
    return 0
