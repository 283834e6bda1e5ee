"""Every use of PyFlink's private API, in one module pinned to apache-flink 2.3.x.

PyFlink offers no public way to do what the package needs here:

* build MemoryAgentOperator the way ``KeyedStream.process`` builds its own keyed operator
  (``pyflink/datastream/data_stream.py``): :func:`apply_memory_operator`;
* find upstream Python operators created in process mode: :func:`process_mode_operators`;
* reach the live Java ``Configuration`` of an environment: :func:`j_env_configuration`;
* call Flink 2's stop-with-savepoint, which PyFlink 2.3's ``JobClient`` calls with the wrong
  arguments: :func:`java_job_client`;
* hand the Java state under a thread-mode state wrapper to Java helpers (StateReads) or
  call it directly (half the cost of PyFlink's converters for strings): :func:`java_state`.

``tests/unit/test_pinned_pyflink.py`` checks each of these against the installed PyFlink, and
:func:`check_pyflink_version` refuses any other version line at job build time.
"""

from __future__ import annotations

from typing import Any

from pyflink import version as pyflink_version
from pyflink.common.job_client import JobClient
from pyflink.common.typeinfo import TypeInformation, Types
from pyflink.datastream import (
    DataStream,
    KeyedProcessFunction,
    KeyedStream,
    StreamExecutionEnvironment,
)
from pyflink.datastream.data_stream import _create_j_data_stream_python_function_info
from pyflink.fn_execution import flink_fn_execution_pb2
from pyflink.java_gateway import get_gateway
from pyflink.util.java_utils import get_j_env_configuration

from ..errors import ConfigurationError
from .state_backend import check_checkpoint_storage, check_state_backend

SUPPORTED_PYFLINK = "2.3."
OPERATOR_CLASS = "io.flinkagentsmemory.operator.MemoryAgentOperator"
_WITH_OPERATOR = {"OneInputTransformation", "TwoInputTransformation"}
#: Where thread mode's state wrappers live (importable only inside a TaskManager, where PEMJA
#: has a JVM, so it is named rather than imported).
STATE_IMPL_MODULE = "pyflink.fn_execution.datastream.embedded.state_impl"


def check_pyflink_version(found: str = pyflink_version.__version__) -> None:
    """The private API below exists as used only in PyFlink 2.3.x."""
    if not found.startswith(SUPPORTED_PYFLINK):
        raise ConfigurationError(
            f"flink_agents_memory supports apache-flink {SUPPORTED_PYFLINK}x, found {found}"
        )


def j_env_configuration(env: StreamExecutionEnvironment) -> Any:
    """The environment's live Java Configuration (mutations apply to the job)."""
    return get_j_env_configuration(env._j_stream_execution_environment)


def java_job_client(client: JobClient) -> Any:
    """The Java JobClient under PyFlink's wrapper."""
    return client._j_job_client


def java_state(state: Any) -> Any | None:
    """The Java state under a thread-mode PyFlink state (its ``StateImpl`` keeps it as
    ``_state``); None for anything else (a test's own state object)."""
    return state._state if type(state).__module__ == STATE_IMPL_MODULE else None


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
    check_checkpoint_storage(j_conf)
    operator_class = gateway.jvm
    for part in OPERATOR_CLASS.split("."):
        operator_class = getattr(operator_class, part)
    j_operator = operator_class(j_conf, j_function_info, j_input_type, j_output_type)
    return DataStream(j_stream.transform(name, j_output_type, j_operator))


def current_key_reader(runtime_context: Any) -> Any:
    """A callable returning the operator's current key (as Python sees it) at any time: the
    keyed state backend of the thread-mode runtime context reads it from the operator, where a
    timer context reads it from the timer being fired (None outside a timer)."""
    return runtime_context.get_keyed_state_backend().get_current_key
