"""Where the external material lives: ``../shared`` next to the repository (never copied into it)."""

from __future__ import annotations

import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_path(env_var: str, *parts: str) -> str | None:
    """``$env_var`` if set, else ``../shared/<parts>`` beside the repo; None when it does not exist."""
    path = os.environ.get(env_var) or os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", *parts))
    return path if os.path.exists(path) else None
