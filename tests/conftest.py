"""Shared fixtures. tests/ is on sys.path, so scenario modules import in the TaskManager too."""

import os
from pathlib import Path

# The Chroma server `make install-knowledge` builds in the checkout: the package looks for it
# only through $CHROMA_BIN (or PATH), never in a checkout's layout.
_CHROMA = Path(__file__).resolve().parents[1] / ".venv-chroma" / "bin" / "chroma"
if "CHROMA_BIN" not in os.environ and _CHROMA.is_file():
    os.environ["CHROMA_BIN"] = str(_CHROMA)
