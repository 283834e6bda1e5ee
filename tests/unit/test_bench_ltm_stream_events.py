"""The input of bench_ltm_writes' in-job streams (benchmarks/peers/ltm_stream_job.py): which
runs, for which keys, with which memory numbers."""

from __future__ import annotations

from benchmarks.peers.ltm_stream_job import events


def test_the_one_key_stream_adds_a_batch_and_then_searches_each_tick():
    out = events(items=1_000, queries=2, ticks=2, per_tick=10)
    assert out[:2] == ["a|k0|0|500", "a|k0|500|500"]
    assert out[2:5] == ["s|k0|0|0", "q|k0|0|1", "q|k0|1|1"]
    assert out[5:9] == ["w|k0|0|1000", "r|k0|0|0", "w|k0|1|1010", "r|k0|1|0"]
    assert out[9:] == ["q|k0|0|2", "q|k0|1|2"]


def test_the_many_keys_stream_searches_then_adds_to_each_key_in_turn():
    out = events(items=40, queries=3, ticks=2, per_tick=3, keys=4)
    assert out[:4] == ["a|k0|0|10", "a|k1|10|10", "a|k2|20|10", "a|k3|30|10"]
    assert out[4:8] == ["s|k0|0|0", "q|k0|0|1", "q|k1|1|1", "q|k2|2|1"]
    # Runs 0..5: key run % 4, memory 40 + run, a pause closing each tick of 3 runs.
    assert out[8:16] == ["m|k0|0|40", "m|k1|0|41", "m|k2|0|42", "p|k0|0|0",
                         "m|k3|1|43", "m|k0|1|44", "m|k1|1|45", "p|k0|1|0"]
    assert out[16:] == ["q|k0|0|2", "q|k1|1|2", "q|k2|2|2"]
