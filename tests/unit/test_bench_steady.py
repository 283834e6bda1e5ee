"""Steady-state rates of the benchmarks: a difference within startup noise is no rate at all
(quick runs once printed 10^12 events/s)."""

from benchmarks.steady import rate_text, ratio_of, steady_rate


def test_a_resolvable_difference_gives_the_rate_of_the_extra_events():
    assert steady_rate(9_000, wall_s=10.0, small_s=4.0) == 1_500.0


def test_a_difference_within_startup_noise_gives_none():
    assert steady_rate(9_000, wall_s=5.0, small_s=4.9) is None
    assert steady_rate(9_000, wall_s=5.0, small_s=6.0) is None  # the small job was slower


def test_reports_say_so_instead_of_a_number():
    assert rate_text(None) == "not resolvable at this size"
    assert rate_text(1234.4) == "1,234 ev/s"
    assert ratio_of(None, 2.0) is None and ratio_of(3.0, 2.0) == 1.5
