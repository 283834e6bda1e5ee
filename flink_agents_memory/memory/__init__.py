"""Memory kinds: short-term (seed 000), and the value serialization they share."""
