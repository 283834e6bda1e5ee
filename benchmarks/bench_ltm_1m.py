"""Long-term memory at 1M memories per subtask: build, settled search, recall, checkpoint, restore.

    python -m benchmarks.bench_ltm_1m [--quick]     (full: about 50 minutes on 2 cores; not in CI)

One subtask's index of 1,000,000 memories under one key (Lucene's HNSW kNN over every one),
built and measured, with 100,000 of the same data beside it for the slopes, as bench_ltm
measures its 10k and 100k rows (``bench_ltm.index_size``: added
in batches of 2,000, merges awaited, 200 queries after an untimed warm-up pass, exact top-10 by
numpy, a full-copy snapshot of the index, and its restore to a first search).

The million vectors are shaped like embeddings of real text (``text_shaped``: a mixture fitted to
the cached MiniLM vectors of every REALTALK and LoCoMo turn), because embedding a million real
texts with MiniLM takes this 2-core machine hours. The shape check earns the stand-in its place:
at the real data's own size (14,826 turns, their 2,240 questions as queries) it measures HNSW
recall and latency on the real vectors, on as many text-shaped ones and on as many isotropic
clustered ones (``data.clustered_unit_vectors``, which earlier runs used at 1M). The 1M recall
counts as met only when the text-shaped data was no easier than the real data there. Needs the
data of `make bench-retrieval-data`; turns not embedded yet are embedded first (MiniLM, ~3 min).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .bench_ltm import NARROW_BEAM, index_size
from .common import PRE_CALIBRATION_BEAM, machine, module_main
from .data import clustered_unit_vectors
from .real_text_recall import real_vectors, recall_by_beam
from .text_shaped import COMPONENTS, TextShape, variance_directions

NAME = "ltm_1m"
TITLE = "Long-term memory at 1M memories per subtask"
COMMAND = "python -m benchmarks.bench_ltm_1m"
QUERIES = 200
#: The HNSW beams of the shape check: the narrow one and the default.
CHECK_BEAMS = (NARROW_BEAM, None)
#: Beams measured besides the default at 100k and 1M: the recall each buys, and at what latency.
SWEEP_BEAMS = (NARROW_BEAM, 400, 800, 1600)
DATA = "vectors shaped like real text"


def shape_check(shape: TextShape, data: np.ndarray, questions: np.ndarray) -> dict[str, Any]:
    """Real turns (questions as queries) against as many text-shaped and isotropic clustered
    vectors: the variance spectrum of each, and HNSW recall and latency per beam."""
    n, q = len(data), len(questions)
    shaped = shape.sample(n + q, seed=1)
    clustered, _ = clustered_unit_vectors(n + q, data.shape[1], seed=n)
    sets = {"real": (data, questions), "text_shaped": (shaped[:n], shaped[n:]),
            "clustered": (clustered[:n], clustered[n:])}
    return {"items": n, "queries": q} | {
        name: {"variance_directions": variance_directions(items),
               "by_beam": recall_by_beam(items, queries, CHECK_BEAMS)}
        for name, (items, queries) in sets.items()}


def no_easier(check: dict[str, Any]) -> bool:
    """Whether recall on the text-shaped vectors was at most the real vectors' at every beam."""
    real, shaped = check["real"]["by_beam"], check["text_shaped"]["by_beam"]
    return all(shaped[b]["recall_at_10"] <= real[b]["recall_at_10"] for b in real)


def fitted_shape() -> tuple[TextShape, np.ndarray, np.ndarray] | str:
    """The text-shaped stand-in fitted to the real turn vectors, with those vectors and their
    questions; or why the real data is missing."""
    real = real_vectors()
    if isinstance(real, str):
        return real
    data, questions = real
    return TextShape.fit(data), data, questions


def run(quick: bool) -> dict[str, Any]:
    fitted = fitted_shape()
    if isinstance(fitted, str):
        return {"machine": machine(), "quick": quick, "skipped": fitted}
    shape, data, questions = fitted
    check = shape_check(shape, data, questions)
    small, big = (2_000, 20_000) if quick else (100_000, 1_000_000)
    sizes = [index_size(n, QUERIES, narrow_beams=SWEEP_BEAMS, vectors=shape.sample)
             for n in (small, big)]
    return {"machine": machine(), "quick": quick, "components": COMPONENTS, "index": sizes[1],
            "smaller": sizes[0], "shape_check": check}


def _recalls(check: dict[str, Any], name: str) -> str:
    beams = check[name]["by_beam"]
    return " / ".join(f"{beams[str(b or 'default')]['recall_at_10']:.3f}" for b in CHECK_BEAMS)


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    if "skipped" in r:
        return [{"figure": "1M memories per subtask", "ours": "skipped", "peer": "-",
                 "ratio": None, "target": "(needs make bench-retrieval-data)", "met": None,
                 "command": COMMAND}]
    x, check = r["index"], r["shape_check"]
    n = f"{x['items']:,}"
    p95 = x["search_us"]["p95"] / 1000
    full = x["items"] >= 1_000_000  # a quick run's figures meet no target
    stand_in = no_easier(check)
    out = [
        {"figure": f"settled search p95 (py4j), {n} memories x 384 dims ({DATA}), one key "
                   "(HNSW)",
         "ours": f"{p95:.2f} ms",
         "peer": f"{x['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
         "ratio": x["numpy_exact_us"]["p95"] / x["search_us"]["p95"],
         "target": "p95 <= 5 ms at 1M", "met": p95 <= 5 and full,
         "command": COMMAND},
        {"figure": f"recall@10 vs exact, {n} memories ({DATA})",
         "ours": f"{x['recall_at_10']:.3f}", "peer": "1.000 (numpy exact)",
         "ratio": x["recall_at_10"],
         "target": ">= 0.95 at 1M, the stand-in no easier than real text",
         "met": x["recall_at_10"] >= 0.95 and full and stand_in, "command": COMMAND},
        {"figure": f"restore of {n} memories (to a first search)",
         "ours": f"{x['restore_s']:.1f} s", "peer": "-", "ratio": None,
         "target": "<= 30 s at 1M", "met": x["restore_s"] <= 30 and full,
         "command": COMMAND},
        {"figure": f"full-copy snapshot of {n} memories (incremental checkpoints upload only "
                   "new segment files: bench_ltm_checkpoints)",
         "ours": f"{x['snapshot_bytes'] / 2**20:,.0f} MiB in {x['snapshot_s']:.1f} s",
         "peer": "-", "ratio": None, "target": "(reported)", "met": None, "command": COMMAND},
    ]
    narrow = x["by_beam"][str(NARROW_BEAM)]
    narrow_p95 = narrow["search_us"]["p95"] / 1000
    out.append({
        "figure": f"same, vector_candidates {NARROW_BEAM}: settled search p95 (py4j); recall@10 "
                  f"({DATA})",
        "ours": f"{narrow_p95:.2f} ms; {narrow['recall_at_10']:.3f}",
        "peer": f"{x['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
        "ratio": x["numpy_exact_us"]["p95"] / narrow["search_us"]["p95"],
        "target": "p95 <= 5 ms and recall@10 >= 0.95 at 1M",
        "met": narrow_p95 <= 5 and narrow["recall_at_10"] >= 0.95 and full and stand_in,
        "command": COMMAND})
    out.append(_joint_row(x, full and stand_in))
    real = check["real"]["by_beam"]
    out.append({"figure": f"recall@10 vs exact on embeddings of real text, {check['items']:,} "
                          f"REALTALK and LoCoMo turns, {check['queries']:,} questions, one key",
                "ours": f"{real['default']['recall_at_10']:.3f} (vector_candidates "
                        f"{NARROW_BEAM}: {real[str(NARROW_BEAM)]['recall_at_10']:.3f})",
                "peer": "1.000 (numpy exact)", "ratio": real["default"]["recall_at_10"],
                "target": ">= 0.95", "met": real["default"]["recall_at_10"] >= 0.95,
                "command": COMMAND})
    out.append({"figure": f"shape check, {check['items']:,} items: recall@10 at "
                          f"vector_candidates {NARROW_BEAM} / default, text-shaped stand-in "
                          "(ours) vs real text (peer); isotropic clustered",
                "ours": _recalls(check, "text_shaped"),
                "peer": f"{_recalls(check, 'real')} (real); {_recalls(check, 'clustered')} "
                        "(clustered)",
                "ratio": None, "target": "stand-in no easier than real text",
                "met": stand_in, "command": COMMAND})
    return out


def _slope(big: dict[str, Any], small: dict[str, Any], get: Any) -> str:
    """How a cost grows per tenfold memories, from ``small`` to ``big``."""
    decades = np.log10(big["items"] / small["items"])
    return f"x{(get(big) / get(small)) ** (1 / decades):.2f}"


def _default_beam(x: dict[str, Any]) -> int:
    """The beam an index searched at by default: its calibrated one (results written before
    the beam was calibrated searched at 200)."""
    return int(x.get("hnsw_beam", PRE_CALIBRATION_BEAM))


def _per_beam(x: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Recall and latency of every beam measured on one index, the default's included."""
    return {_default_beam(x): x} | {int(b): m for b, m in x["by_beam"].items()}


def _joint_row(x: dict[str, Any], counts: bool) -> dict[str, Any]:
    """The issue's two 1M search targets together: the p95 of the narrowest beam measured
    whose recall reaches 0.95."""
    enough = [(b, m) for b, m in sorted(_per_beam(x).items()) if m["recall_at_10"] >= 0.95]
    figure = (f"both search targets at once, {x['items']:,} memories ({DATA}): settled p95 at "
              "the narrowest beam measured with recall@10 >= 0.95")
    if not enough:
        return {"figure": figure, "ours": f"no beam up to {max(_per_beam(x))} reaches 0.95",
                "peer": "-", "ratio": None, "target": "p95 <= 5 ms and recall@10 >= 0.95 at 1M",
                "met": False, "command": COMMAND}
    beam, m = enough[0]
    p95 = m["search_us"]["p95"] / 1000
    return {"figure": figure,
            "ours": f"{p95:.2f} ms at vector_candidates {beam} (recall@10 {m['recall_at_10']:.3f})",
            "peer": f"{x['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
            "ratio": x["numpy_exact_us"]["p95"] / m["search_us"]["p95"],
            "target": "p95 <= 5 ms and recall@10 >= 0.95 at 1M", "met": p95 <= 5 and counts,
            "command": COMMAND}


def _sweep_lines(*sizes: dict[str, Any]) -> list[str]:
    """Recall@10 and search p50 / p95 per HNSW beam, one column per index size."""
    lines = ["", "| beam | " + " | ".join(f"{d['items']:,}: recall@10; p50 / p95 (ms)"
                                         for d in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for beam in sorted({b for d in sizes for b in _per_beam(d)}):
        cells = []
        for d in sizes:
            m = _per_beam(d).get(beam)
            default = " (default)" if beam == _default_beam(d) else ""
            cells.append("-" if m is None else
                         f"{m['recall_at_10']:.3f}; {m['search_us']['p50'] / 1000:.2f} / "
                         f"{m['search_us']['p95'] / 1000:.2f}{default}")
        lines.append(f"| {beam} | " + " | ".join(cells) + " |")
    return lines


def _shape_lines(check: dict[str, Any]) -> list[str]:
    names = {"real": "real MiniLM turn vectors", "text_shaped": "text-shaped stand-in",
             "clustered": "isotropic clustered"}
    lines = ["", f"Shape check at the real data's size ({check['items']:,} items, "
             f"{check['queries']:,} queries), per data: the principal directions holding 50 / "
             "80 / 90% of the variance; recall@10 and search p50/p95 (ms) at vector_candidates "
             f"{NARROW_BEAM} and at the default beam:", "",
             "| data | directions | recall@10 | p50 / p95 |", "|---|---|---|---|"]
    for name, label in names.items():
        d = check[name]
        beams = [d["by_beam"][str(b or "default")] for b in CHECK_BEAMS]
        lines.append(
            f"| {label} | {' / '.join(str(v) for v in d['variance_directions'])} | "
            + " ; ".join(f"{b['recall_at_10']:.3f}" for b in beams) + " | "
            + " ; ".join(f"{b['search_us']['p50'] / 1000:.2f} / "
                         f"{b['search_us']['p95'] / 1000:.2f}" for b in beams) + " |")
    verdict = ("no easier than real text at every beam, so its 1M recall can stand for real "
               "text's" if no_easier(check) else
               "easier than real text at some beam, so its 1M recall meets no target")
    return lines + ["", f"The stand-in was {verdict}."]


def markdown(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"Skipped: {r['skipped']}\n"
    x, ref = r["index"], r["smaller"]
    lines = [
        f"{x['items']:,} memories ({DATA}, a {r['components']}-component mixture) under one "
        f"key: built at {x['adds_per_s']:,.0f} adds/s "
        f"({x['add_s'] / 60:.1f} min), merges awaited {x['merge_s'] / 60:.1f} min, "
        f"{x['segments']} segment(s) left; search p50/p95/p99 "
        f"{x['search_us']['p50'] / 1000:.2f} / {x['search_us']['p95'] / 1000:.2f} / "
        f"{x['search_us']['p99'] / 1000:.2f} ms (py4j, ~0.1 ms of it py4j's), numpy exact p95 "
        f"{x['numpy_exact_us']['p95'] / 1000:.2f} ms; recall@10 {x['recall_at_10']:.3f}; "
        f"full-copy snapshot {x['snapshot_bytes'] / 2**20:,.0f} MiB in {x['snapshot_s']:.1f} s, "
        f"restore to a first search {x['restore_s']:.1f} s. At vector_candidates "
        f"{NARROW_BEAM} (the HNSW beam; the default{', calibrated,' if 'hnsw_beam' in x else ''} "
        f"was {_default_beam(x)}) the same queries: "
        "p50/p95/p99 "
        + " / ".join(f"{x['by_beam'][str(NARROW_BEAM)]['search_us'][p] / 1000:.2f}"
                     for p in ("p50", "p95", "p99"))
        + f" ms, recall@10 {x['by_beam'][str(NARROW_BEAM)]['recall_at_10']:.3f}."]
    lines += _sweep_lines(ref, x)
    lines += _shape_lines(r["shape_check"])
    costs = [("search p95", lambda d: d["search_us"]["p95"]),
             (f"search p95 at vector_candidates {NARROW_BEAM}",
              lambda d: d["by_beam"][str(NARROW_BEAM)]["search_us"]["p95"]),
             ("build time", lambda d: d["add_s"]),
             ("merge wait", lambda d: d["merge_s"] + 1e-3),
             ("snapshot bytes", lambda d: d["snapshot_bytes"]),
             ("restore", lambda d: d["restore_s"])]
    lines += ["", f"Slopes from the {ref['items']:,} column, per tenfold memories: "
              + ", ".join(f"{name} {_slope(x, ref, get)}" for name, get in costs) + "."]
    return "\n".join(lines) + "\n"


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
