"""A small agent job on a local MiniCluster: each user's short-term memory survives across runs.

Run with ``make demo``. Input lines are ``user|message``; the agent remembers each user's name
and how many messages they sent, and answers with what it remembers.
"""

from __future__ import annotations

from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

from flink_agents_memory import (
    Agent,
    AgentsExecutionEnvironment,
    Event,
    InputEvent,
    OutputEvent,
    RunnerContext,
    action,
)

MESSAGES = [
    "alice|hi, my name is Alice",
    "bob|hello there",
    "alice|what did I tell you?",
    "bob|my name is Bob",
    "bob|do you remember me?",
    "alice|bye",
]


class Message(Event):
    user: str
    text: str


class GreeterAgent(Agent):
    """Two actions: parse the input, then answer from short-term memory."""

    @action(InputEvent)
    @staticmethod
    def parse(event: InputEvent, ctx: RunnerContext) -> None:
        user, text = event.input.split("|", 1)
        ctx.send_event(Message(user=user, text=text))

    @action(Message)
    @staticmethod
    def answer(event: Message, ctx: RunnerContext) -> None:
        stm = ctx.get_short_term_memory()
        count = (stm.get("stats.messages") or 0) + 1
        stm.set("stats.messages", count)
        if "my name is" in event.text:
            stm.set("profile.name", event.text.rsplit("my name is", 1)[1].strip())
        name = stm.get("profile.name") or "stranger"
        reply = f"[{event.user}] message #{count}: hello {name}, you said {event.text!r}"
        ctx.send_event(OutputEvent(output=reply))


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    messages = env.from_collection(MESSAGES, type_info=Types.STRING())
    replies = (
        agents_env.from_datastream(messages, key_selector=lambda line: line.split("|", 1)[0])
        .apply(GreeterAgent())
        .to_datastream(Types.STRING())
    )
    # named, so the web UI and `flink list` show it instead of "DataStream Collect"
    with replies.execute_and_collect("flink-agents-memory demo: GreeterAgent") as results:
        for reply in results:
            print(reply)


if __name__ == "__main__":
    main()
