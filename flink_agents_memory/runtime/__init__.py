"""Flink wiring: configuration, the operator builder, the job builder."""
