"""Memory kinds: short-term, histories, long-term, and the value serialization they share."""
