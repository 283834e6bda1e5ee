"""Memory work that asks an LLM, written once as a generator and run two ways.

A step function (the add pipeline, a maintenance pass) yields each :data:`Question` it has for
the LLM and is sent the answer: the text, or the :class:`LLMError` the call ended in. Sync
callers answer on their own thread (:func:`answer_inline`); async actions and the operator's
runs in flight answer off the task thread (:func:`answer_awaited`, :func:`as_calls`), while the
memory steps in between run on it. One implementation per behaviour, no sync/async copies.
"""

from __future__ import annotations

import types
from collections.abc import Generator
from typing import TypeVar

from ..models.llm import LLM, LLMError
from ..runtime.calls import PendingCall, run_inline

T = TypeVar("T")

#: What a step asks the LLM: the chat messages of one JSON completion.
Question = list[dict[str, str]]
#: Answer: the completion's text, or why there is none.
Answer = str | LLMError
LLMSteps = Generator[Question, Answer, T]


def question(system: str, user: str) -> Question:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def complete(llm: LLM, asked: Question) -> Answer:
    """One JSON completion; an LLMError is returned, not raised, so the step decides."""
    try:
        return llm.complete(asked, response_format={"type": "json_object"})
    except LLMError as e:
        return e


def answer_inline(steps: LLMSteps[T], llm: LLM | None) -> T:
    """Run ``steps`` to its end, calling the LLM on this thread."""
    return run_inline(as_calls(steps, llm))


def as_calls(steps: LLMSteps[T], llm: LLM | None) -> Generator[PendingCall, PendingCall, T]:
    """``steps`` as a run's generator: each question becomes a call made off the task thread;
    a call that fails otherwise (a timeout) is answered as an LLMError, and anything that is
    not an Exception is raised in the run."""
    answer: Answer | None = None
    while True:
        try:
            asked = steps.send(answer)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        assert llm is not None, "a step asked a question without an LLM configured"
        call = yield PendingCall(complete, (llm, asked), {})
        if call.error is not None and not isinstance(call.error, Exception):
            raise call.error
        answer = call.result if call.error is None else LLMError(str(call.error))


async def answer_awaited(steps: LLMSteps[T], llm: LLM | None) -> T:
    """Run ``steps`` in an async action: each LLM call is awaited off the task thread."""
    return await _awaitable(as_calls(steps, llm))  # type: ignore[no-any-return]


@types.coroutine
def _awaitable(calls: Generator[PendingCall, PendingCall, T]) -> Generator[PendingCall,
                                                                            PendingCall, T]:
    """A generator of calls, awaitable in an action: its driver sends each settled call back,
    as it does to every awaited call (runtime/runner.py)."""
    return (yield from calls)
