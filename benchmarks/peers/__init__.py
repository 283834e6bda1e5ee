"""Workers run in their own processes (and for peers, their own virtual environments).

Nothing here may import a framework at module level: the flink-agents worker runs in a venv
without flink_agents_memory, the mem0 worker in one without PyFlink.
"""
