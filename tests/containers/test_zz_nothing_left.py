"""Runs last among the containers tests (file order): the run must leave no container, network
or volume behind, whatever its tests did (the compose cluster is down by now: its fixture is
module-scoped, and each testcontainers test removes its own container)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.containers]


def test_the_run_left_no_container_network_or_volume(engine):
    assert engine.leftovers() == {}, "the containers tests left these behind"
