"""bench_stm's metrics overhead: each rep's metrics-on and metrics-off jobs, run back to back,
are compared with each other, and the median of those ratios is the figure."""

from __future__ import annotations

from benchmarks.bench_stm import overhead_text, paired_overheads


def test_each_rep_compares_its_own_two_jobs():
    # 10,000 extra events; rep 0: on 2.0 s, off 2.5 s past 0.5 s of startup; rep 1: on 1.5 s,
    # off 1.5 s; rep 2: off too short past its startup to give a rate.
    samples = {"ours": [2.5, 2.0, 2.0], "ours_small": [0.5, 0.5, 0.5],
               "ours_metrics_off": [3.0, 2.0, 0.6], "ours_metrics_off_small": [0.5, 0.5, 0.5]}
    pairs = paired_overheads(samples, 10_000, 3)
    assert pairs[0] == 1 - (10_000 / 2.0) / (10_000 / 2.5)
    assert pairs[1] == 0.0
    assert pairs[2] is None


def test_the_report_gives_the_pairs_and_the_medians_figure():
    text = overhead_text({"metrics_overhead": 0.02, "metrics_overhead_pairs": [0.01, 0.02, None],
                          "metrics_overhead_of_medians": 0.059})
    assert "2.0%, the median of the reps' back-to-back pairs (1.0%, 2.0%, not resolvable)" in text
    assert "from the median rates of the two jobs 5.9%" in text
