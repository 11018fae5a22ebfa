"""mkdocs hook: the footer names the citeledger version and its date, read from the package
(``citeledger.__version__``, ``citeledger.__date__``), as ``citeledger --version`` prints them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def on_config(config: Any) -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import citeledger

    config["copyright"] = f"citeledger {citeledger.__version__} ({citeledger.__date__})"
    return config
