"""Builds MemoryAgentOperator from Python, the way PyFlink builds its own keyed operator.

This is the one module that uses PyFlink's private API (``pyflink/datastream/data_stream.py``,
``KeyedStream.process``); it is pinned to apache-flink 2.3.x and fails loudly on any other.
"""

from __future__ import annotations

from pyflink import version as pyflink_version
from pyflink.common.typeinfo import TypeInformation, Types
from pyflink.datastream import DataStream, KeyedProcessFunction, KeyedStream
from pyflink.datastream.data_stream import _create_j_data_stream_python_function_info
from pyflink.fn_execution import flink_fn_execution_pb2
from pyflink.java_gateway import get_gateway
from pyflink.util.java_utils import get_j_env_configuration

from ..errors import ConfigurationError
from .state_backend import check_state_backend

SUPPORTED_PYFLINK = "2.3."
OPERATOR_CLASS = "io.flinkagentsmemory.operator.MemoryAgentOperator"
_WITH_OPERATOR = {"OneInputTransformation", "TwoInputTransformation"}


def check_pyflink_version(found: str = pyflink_version.__version__) -> None:
    """The private API below exists as used only in PyFlink 2.3.x."""
    if not found.startswith(SUPPORTED_PYFLINK):
        raise ConfigurationError(
            f"flink_agents_memory supports apache-flink {SUPPORTED_PYFLINK}x, found {found}"
        )


def process_mode_operators(ds: DataStream) -> list[str]:
    """Names of upstream Python operators that run in process mode.

    PyFlink fixes an operator's execution mode when the operator is created, so a Python map
    built before ``AgentsExecutionEnvironment.get_execution_environment(env)`` set thread mode
    silently runs in a separate Python process (slow, and mixed modes in one job)."""
    found, seen = [], set()
    stack = [ds._j_data_stream.getTransformation()]
    while stack:
        transformation = stack.pop()
        if transformation.getId() in seen:
            continue
        seen.add(transformation.getId())
        if transformation.getClass().getSimpleName() in _WITH_OPERATOR:
            factory = transformation.getOperatorFactory()
            if (factory.getClass().getSimpleName() == "SimpleOperatorFactory"
                    and "ExternalPython" in factory.getOperator().getClass().getName()):
                found.append(str(transformation.getName()))
        stack.extend(transformation.getInputs())
    return found


def apply_memory_operator(
    keyed: KeyedStream,
    func: KeyedProcessFunction,
    output_type: TypeInformation | None,
    name: str,
) -> DataStream:
    """``keyed.process(func)``, but running in MemoryAgentOperator."""
    check_pyflink_version()
    gateway = get_gateway()
    j_stream = keyed._j_data_stream
    j_input_type = j_stream.getTransformation().getOutputType()
    output_type_info = output_type or Types.PICKLED_BYTE_ARRAY()
    j_output_type = output_type_info.get_java_type_info()
    j_function_info = _create_j_data_stream_python_function_info(
        func, flink_fn_execution_pb2.UserDefinedDataStreamFunction.KEYED_PROCESS
    )
    j_conf = get_j_env_configuration(j_stream.getExecutionEnvironment())
    check_state_backend(j_conf)
    operator_class = gateway.jvm
    for part in OPERATOR_CLASS.split("."):
        operator_class = getattr(operator_class, part)
    j_operator = operator_class(j_conf, j_function_info, j_input_type, j_output_type)
    return DataStream(j_stream.transform(name, j_output_type, j_operator))
