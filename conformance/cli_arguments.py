"""What the user gave the command line, checked before any work starts: each check turns a bad
argument into one ``UsageError`` line naming it.

A check imports what it needs when it runs, so a command loads only the modules it uses (and
Hypothesis, which draws with the constants of the loaded modules, draws the same cases).
"""

from __future__ import annotations

import os
import tempfile


class UsageError(Exception):
    """A bad argument: ``shlo-conform: error: ...`` and exit 2."""


def read_text(path: str, what: str) -> str:
    """The text of a file the user named (``what``: "program", "test file", ...)."""
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a folder, not a {what}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not a text file (byte {data[e.start]:#04x} at offset {e.start} is not UTF-8); "
                         f"expected a {what} in MLIR text") from None
    if not text.strip():
        raise UsageError(f"{path}: empty file (expected a {what})")
    return text


def output_folder(path: str, option: str = "--out") -> str:
    """Create ``path`` and prove it writable now, not after an hour of running."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{option} {path}: exists and is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-test-")
        os.close(fd)
        os.remove(probe)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot write there ({e.strerror})") from None
    return path


def output_file(path: str | None, option: str) -> str | None:
    """A file we will write later: its folder must exist and be writable, and it must not be a folder."""
    if path is None:
        return None
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a folder; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path}: folder {folder} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-test-")
        os.close(fd)
        os.remove(probe)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot write in {folder} ({e.strerror})") from None
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: exists and is not writable")
    return path


def usable_backend(name: str, deviations: str | None = None):
    """The backend, usable here, with its known deviations that are not the suite's applied:
    the file it ships (``Backend.deviations_file``) and ``--deviations FILE`` (``deviations``)."""
    from adapters import get_backend
    try:
        backend = get_backend(name)
    except (KeyError, ValueError) as e:
        raise UsageError(str(e).strip("'\"")) from None
    ok, why = backend.available()
    if not ok:
        raise UsageError(f"backend {name!r} is not usable here: {why}")
    submitter_deviations(backend, deviations)
    return backend


def submitter_deviations(backend, path: str | None) -> None:
    """Declare the backend's version (entries with ``versions`` are checked against it) and add
    the submitter's entries: those the backend ships, then ``--deviations`` ``path``."""
    from adapters.base import backend_version
    from judge.explain import DeviationFileError, declare_backend_version, use_deviation_file

    declare_backend_version(backend.name, backend_version(backend))
    for file, what in ((backend.deviations_file, f"backend {backend.name}'s deviations_file"),
                       (path, "--deviations")):
        if not file:
            continue
        if not os.path.isfile(file):
            raise UsageError(f"{what} {file}: no such file")
        try:
            use_deviation_file(file)
        except (DeviationFileError, OSError) as e:
            raise UsageError(f"{what}: {e}") from None


def listed(text: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def element_types(text: str | None, option: str = "--dtypes") -> list[str] | None:
    """``--dtypes`` as canonical element type names ("si8" -> "i8"); any unknown name is an error."""
    from generators.quantized import QUANTIZED_KEYS, is_quantized_key
    from oracle.types import ELEMENT_TYPES, element_type

    names = listed(text)
    if names is None:
        return None
    out, unknown = [], []
    for name in names:
        if is_quantized_key(name):
            (out if name in QUANTIZED_KEYS else unknown).append(name)
            continue
        try:
            out.append(element_type(name).name)
        except ValueError:
            unknown.append(name)
    if unknown:
        raise UsageError(f"{option}: unknown element type(s) {', '.join(unknown)} (known: "
                         f"{', '.join((*ELEMENT_TYPES, *QUANTIZED_KEYS))})")
    if not out:
        raise UsageError(f"{option}: empty list")
    return out


def op_names(text: str | None, option: str = "--ops") -> list[str] | None:
    """``--ops`` as a list; any name the oracle does not know is an error."""
    import oracle

    names = listed(text)
    if names is None:
        return None
    registry = oracle.all_ops()
    unknown = [n for n in names if (n if "." in n else f"stablehlo.{n}") not in registry]
    if unknown:
        raise UsageError(f"{option}: unknown op(s) {', '.join(unknown)}")
    if not names:
        raise UsageError(f"{option}: empty list")
    return names


def planned(args) -> list:
    """The (op, element type) pairs ``--ops`` / ``--dtypes`` select."""
    from conformance.run import plan

    pairs = plan(op_names(args.ops), element_types(args.dtypes))
    if not pairs:
        raise UsageError(f"nothing to run: no op x element type matches --ops {args.ops or '(all)'} "
                         f"--dtypes {args.dtypes or '(all)'}")
    return pairs


def backend_names(text: str) -> list[str]:
    """``--backend a,b``: several backends (a cmd: template is one, commas and all)."""
    if text.startswith("cmd:"):
        return [text]
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError("--backend: no backend named")
    return names


def dimension_sizes(text: str | None) -> dict[str, int] | None:
    """``--dims b=4,c=2`` (dimension variables), ``--dims 4`` (every variable) -> {name: size}, "*" for all."""
    if text is None:
        return None
    dims = {}
    for item in listed(text) or []:
        name, _, size = item.rpartition("=")
        if not size.isdigit() or (name and not name.replace("_", "a").isalnum() and name != "?"):
            raise UsageError(f"--dims {text}: expected NAME=SIZE,... or SIZE (a size for every variable), "
                             f"not {item!r}")
        dims[name or "*"] = int(size)
    if not dims:
        raise UsageError("--dims: empty list")
    return dims


def mlir_files(paths: list[str]) -> list[tuple[str, str]]:
    """(name, path) per .mlir file of ``paths``: a file as given, the files of a folder (sorted, named
    relative to it); a folder without one or a path that does not exist is a usage error."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(p) for f in fs if f.endswith(".mlir"))
            if not found:
                raise UsageError(f"{p}: no .mlir file in this folder")
            files += [(os.path.relpath(f, p), f) for f in found]
        elif os.path.exists(p):
            files.append((p, p))
        else:
            raise UsageError(f"{p}: no such file or folder")
    return files


def check_programs(paths: list[str]) -> list:
    """(name, file, text) per .mlir file of ``paths``, or the ``error`` case of a file that cannot be
    read (one bad file among many is one error case; a path that does not exist is a usage error)."""
    from conformance.check import unreadable

    programs = []
    for name, f in mlir_files(paths):
        try:
            programs.append((name, f, read_text(f, "program")))
        except UsageError as e:
            programs.append(unreadable(name, f, str(e)))
    return programs


def fuzz_ops(args) -> list | None:
    """``--ops`` minus ``--exclude-ops`` as the OpInfos random programs draw (None: all of them)."""
    from generators.random_programs import generatable_ops

    wanted, excluded = op_names(args.ops), op_names(args.exclude_ops, "--exclude-ops")
    if wanted is None and excluded is None:
        return None
    full = lambda n: n if "." in n else f"stablehlo.{n}"  # noqa: E731
    drawable = {info.name: info for info in generatable_ops(collectives=args.grid)}
    not_drawn = [n for n in wanted or () if full(n) not in drawable]
    if not_drawn:
        raise UsageError(f"--ops: random programs do not draw {', '.join(not_drawn)} "
                         f"(grid-only, random or side-effecting ops are left out)")
    names = [full(n) for n in wanted] if wanted is not None else list(drawable)
    ops = [drawable[n] for n in names if n not in {full(n) for n in excluded or ()}]
    if not ops:
        raise UsageError("--ops / --exclude-ops: no op is left to draw")
    return ops


def jobs_option(jobs: int | None) -> int | None:
    """``--jobs``: at least 1 when given."""
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs {jobs}: give at least 1")
    return jobs


def collective_names(text: str | None) -> list[str] | None:
    """``collectives --ops`` as a list; any name that is not a collective is an error."""
    from generators.collectives import STRATEGIES

    ops = listed(text)
    unknown = sorted(set(ops or ()) - set(STRATEGIES))
    if unknown or ops == []:
        raise UsageError(f"--ops: unknown collective(s) {', '.join(unknown) or '(empty list)'} "
                         f"(known: {', '.join(sorted(STRATEGIES))})")
    return ops
