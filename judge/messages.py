"""Reading backends' messages: the same failure told with other values reads the same.

``normalized(text)``: element type names (``f32``, ``ui8``, ``complex<f32>``, numpy's
``float32``) become ``T``, shaped types ``tensor<...>`` (``vector``, ``memref`` alike), numbers
(decimal or hex) ``N`` and a list of them ``N, ...``, folders of a path are dropped, and a printed
MLIR op (``"vector.store"(%N, ...) ...``) is cut off -- so the same message about another type,
shape, rank or value is the same text (judge/grouping.py's keys).

``crash_site(message)``: where a backend crashed, read from its crash output -- the key of a
crash in a run's groups (judge/grouping.py) and a fuzz crash finding's bucket
(conformance/fuzz_crash_sites.py).  ClusterFuzz buckets crashes by their *crash state* (the
abort site or the top frames), not by the input that reached them: one compiler bug reached from
ten ops and five element types is one finding.  First match wins:

1. a source location and what it says: glog's ``F1127 01:02:03.456 4242 hlo_sharding.cc:1436]
   Check failed: ...``, a bare ``hlo_instruction.cc:1615 Invalid binary instruction ...``, an
   assertion ``Foo.cpp:12: void f(): Assertion `x' failed.``, LLVM's ``UNREACHABLE executed at
   Foo.cpp:12!`` -> ``hlo_sharding.cc:1436 Check failed: ...``;
2. a fatal message without a location: ``LLVM ERROR: ...``, ``Fatal Python error: ...`` (not a
   signal's name), ``terminate called after throwing an instance of 'X'`` and its ``what()``;
3. the signal and the top frames of the backend's own stack (absl's ``PC: @ 0x... xla::F()``,
   LLVM's ``#3 0x... in mlir::G() Foo.cpp:9``, Python's faulthandler ``File "...", line N in h``),
   skipping the frames of the signal handlers, abort() and the harness (adapters/):
   ``SIGFPE in xla::F < mlir::G``.

Stack frames never count as rule 1's location (LLVM's stack dump names Signals.cpp first), nor
do glog's info, warning and error lines that come before the abort.
Element types, shapes, numbers and folders are normalized (``normalized``) so the same
abort with other values, pids, addresses or temporary paths is the same site; a location's file
and line stay as they are.  A signal alone (no frame, no message) is no site: such a crash stays
bucketed by its op and element type.
"""

from __future__ import annotations

import re

from oracle.types import ALL_ELEMENT_TYPES

HEADLINE_CHARS = 160

_PATH = re.compile(r"(?:/[\w.+-]+)+/(?=[\w.+-])")
_SHAPED = re.compile(r"\b(tensor|vector|memref)<[^<>]*(?:<[^<>]*>[^<>]*)*>")
_TYPE_NAMES = sorted({t.name for t in ALL_ELEMENT_TYPES} | {str(t.dtype) for t in ALL_ELEMENT_TYPES}, key=len,
                     reverse=True)
_TYPE = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in _TYPE_NAMES) + r")(?!\w)")
_NUMBER = re.compile(r"-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
_NUMBERS = re.compile(r"(%?N)(?:, %?N)+")
_PRINTED_OP = re.compile(r'\s*(?:%N = )?"[\w.]+"\(.*')


def normalized(text: str) -> str:
    """``text`` with its element types, tensor types, numbers and folders generalized (module docstring)."""
    text = _PATH.sub("", text)
    text = _SHAPED.sub(r"\1<...>", text)
    text = _TYPE.sub("T", text)
    text = _NUMBERS.sub(r"\1, ...", _NUMBER.sub("N", text))
    text = _PRINTED_OP.sub("", text)
    return " ".join(text.split())[:HEADLINE_CHARS]


#: Frames of a site made of the signal and the top of the stack.
TOP_FRAMES = 3

_LOCATION = re.compile(r"(?<![\w.+-])([\w+-][\w.+-]*\.(?:cc|cpp|cxx|c|h|hpp|inc|rs|mm)):(\d+)")
_FRAME = re.compile(r"^\s*(?:PC:\s*)?@\s+0x[0-9a-fA-F]+|^\s*#\d+\s+0x[0-9a-fA-F]+|^\s*File \".*\", line \d+")
_FATAL = (re.compile(r"LLVM ERROR:\s*(.+)"), re.compile(r"Fatal Python error:\s*(.+)"),
          re.compile(r"(terminate called after throwing an instance of '[^']+')"))
_WHAT = re.compile(r"^\s*what\(\):\s*(.+)")
_SIGNAL = re.compile(r"\b(SIG[A-Z]{2,6})\b|\*\*\* (SIG[A-Z]+) received")
#: Fatal Python error texts that only name a signal (faulthandler's); the frames say more.
_SIGNAL_TEXTS = {"Segmentation fault": "SIGSEGV", "Floating point exception": "SIGFPE", "Aborted": "SIGABRT",
                 "Bus error": "SIGBUS", "Illegal instruction": "SIGILL"}
#: Frames no backend owns: signal handlers, abort(), the C runtime, the harness's own code.
_NOT_THE_BACKENDS = re.compile(
    r"^(?:abort|raise|gsignal|__\w+|_sigtramp|\(|absl::\S*(?:Failure|Signal|LogMessage)\S*|"
    r"llvm::sys::\S*|SignalHandler\S*|\S*PrintStackTrace\S*|std::terminate\S*|\S*LogMessage\S*)")
#: glog lines of severity I, W or E (``W1127 12:01:21.634988 14797 py_client.cc:496] ...``): they
#: come before the abort (XLA's Shardy / GSPMD warnings on every grid program) and are no site.
_GLOG_NOT_FATAL = re.compile(r"^[IWE]\d{4} \d\d:\d\d:\d\d")
#: Sources of the signal handlers themselves (absl's, LLVM's): their lines are no abort site.
_HANDLER_FILE = re.compile(r"(?:failure_signal_handler|Signals)\.")
_HARNESS_FILE = re.compile(r"(?:^|/)(?:adapters|conformance)/[\w]+\.py$|/python3\.\d+/(?!site-packages)")
_ABSL_FRAME = re.compile(r"@\s+0x[0-9a-fA-F]+\s+(?:\d+\s+)?(.+)")
_LLVM_FRAME = re.compile(r"#\d+\s+0x[0-9a-fA-F]+\s+(?:in\s+)?(.+?)(?:\s+\(?/\S*)?$")
_PY_FRAME = re.compile(r'File "(?P<path>[^"]*)", line \d+ in (?P<func>\S+)')
_TEMPORARY = re.compile(r"^(?:/tmp|/var/folders|/private/var)/|torchinductor|/T/")


def source_locations(text: str) -> list[str]:
    """The ``file.cc:LINE`` source locations ``text`` names, in order."""
    return [f"{name}:{line}" for name, line in _LOCATION.findall(text)]


def crash_site(message: str) -> str:
    """The abort site of a crash's message (module docstring), or "" when it shows none."""
    lines = [line.rstrip() for line in (message or "").splitlines() if line.strip()]
    body = [line for line in lines if not _FRAME.match(line)]
    for line in body:  # 1. a source location and what it says there (not a glog info / warning / error line)
        if _GLOG_NOT_FATAL.match(line):
            continue
        found = _LOCATION.search(line)
        if found and not _HANDLER_FILE.match(found.group(1)):
            said = normalized(line[found.end():].lstrip(" ]:!"))
            return f"{found.group(1)}:{found.group(2)}" + (f" {said}" if said else "")
    signal = ""
    for k, line in enumerate(body):  # 2. a fatal message
        for pattern in _FATAL:
            found = pattern.search(line)
            if not found:
                continue
            text = found.group(1).strip()
            if text in _SIGNAL_TEXTS:
                signal = _SIGNAL_TEXTS[text]
                continue
            what = next((m.group(1) for m in map(_WHAT.match, body[k + 1:k + 3]) if m), "")
            return normalized(f"{text}: {what}" if what else text)
    if not signal:
        signal = next((m.group(1) or m.group(2) for m in map(_SIGNAL.search, lines) if m), "")
    frames = _backend_frames(lines)
    if signal and frames:  # 3. the signal and the top of the backend's own stack
        return f"{signal} in " + " < ".join(frames[:TOP_FRAMES])
    return ""


def _backend_frames(lines: list[str]) -> list[str]:
    """The function names of the stack frames in ``lines``, innermost first, without addresses,
    offsets, temporary files or the frames no backend owns."""
    frames = []
    for line in lines:
        if not _FRAME.match(line):
            continue
        python = _PY_FRAME.search(line)
        if python:
            path, func = python.group("path"), python.group("func")
            if _HARNESS_FILE.search(path):
                continue
            where = "<generated>" if _TEMPORARY.search(path) else path.rsplit("site-packages/", 1)[-1]
            frames.append(f"{where}:{func}")
            continue
        native = _ABSL_FRAME.search(line) if "@" in line.split("0x", 1)[0] else _LLVM_FRAME.search(line)
        if not native:
            continue
        name = re.sub(r"\s*\+\s*0x[0-9a-fA-F]+$|\s*\(unknown\)\s*", " ", native.group(1)).strip()
        if name and not _NOT_THE_BACKENDS.match(name):
            frames.append(normalized(name))
    return frames
