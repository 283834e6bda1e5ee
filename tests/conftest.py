"""Shared fixtures. tests/ is on sys.path, so scenario modules import in the TaskManager too."""
