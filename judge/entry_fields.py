"""The deviation tables' entries one by one, as ``shlo-conform upstream`` reads and annotates them.

An entry is named ``FILE:INDEX``: the data file's stem (``xla`` for judge/deviations/xla.toml)
and its position there, from 1 (the loader's "deviation #INDEX").  ``listed_entry`` gives its
table as written (backends, op(s), dtypes, statuses, reason, when, link, blame, versions);
``set_entry_field`` writes one field of it back as one ``key = value`` line of the entry (the
rest of the file, comments included, is left as it is), for what the upstream tools find out:

* ``blame``: the compiler switches that make the deviation disappear (["none"]: none does);
* ``versions``: the range of the backend's released versions the reproducer fails in (a PEP 440
  specifier over the backend's version, ``">=0.7.0,<=0.10.2"``: the first and last bad version replayed);
* ``link``: the upstream issue that reports the same wrong value.
"""

from __future__ import annotations

import json
import os
import re
import tomllib

from .known_deviations import DEVIATIONS_DIR, DeviationFileError

__all__ = ["WRITABLE", "DeviationFileError", "entry_path", "listed_entries", "listed_entry", "set_entry_field"]

#: The fields the upstream tools write.
WRITABLE = ("link", "blame", "versions")


def entry_path(stem: str, directory: str = DEVIATIONS_DIR) -> str:
    path = os.path.join(directory, f"{stem}.toml")
    if not os.path.isfile(path):
        files = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".toml"))
        raise DeviationFileError(f"no deviation file {stem}.toml (there are: {', '.join(files)})")
    return path


def listed_entries(stem: str, directory: str = DEVIATIONS_DIR) -> list[dict]:
    """Every entry of one file, as written, in file order."""
    with open(entry_path(stem, directory), "rb") as f:
        return list(tomllib.load(f).get("deviation", []))


def listed_entry(stem: str, index: int, directory: str = DEVIATIONS_DIR) -> dict:
    entries = listed_entries(stem, directory)
    if not 1 <= index <= len(entries):
        raise DeviationFileError(f"{stem}.toml has deviations #1..#{len(entries)}, not #{index}")
    return entries[index - 1]


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as an entry field")


def set_entry_field(stem: str, index: int, key: str, value, directory: str = DEVIATIONS_DIR) -> None:
    """Entry #index of ``stem``.toml gets ``key = value`` (replacing its line, or after its last line)."""
    if key not in WRITABLE:
        raise ValueError(f"upstream tools write only {', '.join(WRITABLE)}, not {key}")
    listed_entry(stem, index, directory)  # (the entry exists)
    path = entry_path(stem, directory)
    lines = open(path).read().split("\n")
    starts = [k for k, line in enumerate(lines) if line.strip() == "[[deviation]]"]
    start = starts[index - 1]
    end = starts[index] if index < len(starts) else len(lines)
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1  # the entry's own lines end before the blank lines and comments that follow it
    line = f"{key} = {_toml_value(value)}"
    pattern = re.compile(rf"^{key}\s*=")
    at = next((k for k in range(start + 1, end) if pattern.match(lines[k])), None)
    if at is None:
        lines.insert(end, line)
    else:
        lines[at] = line
    text = "\n".join(lines)
    tomllib.loads(text)  # (never leaves a file the loader cannot read)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
