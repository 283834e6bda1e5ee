"""The operator builder uses PyFlink's private API: it must refuse any version but 2.3.x."""

from __future__ import annotations

import pytest
from pyflink import version

from flink_agents_memory import ConfigurationError
from flink_agents_memory.runtime import pyflink_internals as internals


def test_installed_pyflink_is_the_pinned_line():
    assert version.__version__.startswith(internals.SUPPORTED_PYFLINK)
    internals.check_pyflink_version()


@pytest.mark.parametrize("found", ["2.2.0", "2.4.0", "1.20.1"])
def test_other_versions_fail_loudly(found):
    with pytest.raises(ConfigurationError, match=found):
        internals.check_pyflink_version(found)


def test_private_api_still_exists():
    from pyflink.datastream import data_stream

    assert callable(data_stream._create_j_data_stream_python_function_info)
