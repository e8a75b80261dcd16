"""``shlo-conform``: the command-line interface (a stable interface: users script against it).

Exit codes: 0 = everything passed, 1 = mismatches / crashes / timeouts / errors found,
2 = usage or input error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import time
import warnings

from judge.status import FAILING, Status
from oracle.errors import BadInputFile

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
#: The parts of a certification, as its summary.json names them.
RESULT_KINDS = ("differential", "spec-example", "corpus")


class UsageError(Exception):
    pass


# ------------------------------------------------------------ checking what the user gave
# Each check runs before any work starts and turns a bad argument into one line naming it.

def _read_text(path: str, what: str) -> str:
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


def _output_folder(path: str, option: str = "--out") -> str:
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


def _output_file(path: str | None, option: str) -> str | None:
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


def _backend(name: str):
    from adapters import get_backend
    try:
        backend = get_backend(name)
    except (KeyError, ValueError) as e:
        raise UsageError(str(e).strip("'\"")) from None
    ok, why = backend.available()
    if not ok:
        raise UsageError(f"backend {name!r} is not usable here: {why}")
    return backend


def _print_summary(title: str, results, stream=None):
    """A table: one row per op, one column per status, and a total row."""
    stream = stream or sys.stdout  # (looked up per call: a default bound at import goes stale under pytest)
    from reports.results import STATUSES, summarize
    rows: dict[str, dict[str, int]] = {}
    for r in results:
        key = ",".join(o.replace("stablehlo.", "") for o in r.ops) or "?"
        rows.setdefault(key, {}).setdefault(r.status, 0)
        rows[key][r.status] += 1
    cols = [s for s in STATUSES if any(s in v for v in rows.values())]
    width = max([len(k) for k in rows] + [5])
    print(f"\n{title}", file=stream)
    print(f"{'op':<{width}}  " + "  ".join(f"{c:>{max(len(c), 5)}}" for c in cols), file=stream)
    for key in sorted(rows):
        print(f"{key:<{width}}  " + "  ".join(f"{rows[key].get(c, 0):>{max(len(c), 5)}}" for c in cols), file=stream)
    total = summarize(results)
    print(f"{'TOTAL':<{width}}  " + "  ".join(f"{total.get(c, 0):>{max(len(c), 5)}}" for c in cols), file=stream)


def _exit_code(results) -> int:
    from reports.results import FAILING
    return EXIT_FINDINGS if any(r.status in FAILING for r in results) else EXIT_OK


def _listed(text: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def _element_types(text: str | None, option: str = "--dtypes") -> list[str] | None:
    """``--dtypes`` as canonical element type names ("si8" -> "i8"); any unknown name is an error."""
    from generators.quantized import QUANTIZED_KEYS, is_quantized_key
    from oracle.types import ELEMENT_TYPES, element_type

    names = _listed(text)
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


def _op_names(text: str | None, option: str = "--ops") -> list[str] | None:
    """``--ops`` as a list; any name the oracle does not know is an error."""
    import oracle

    names = _listed(text)
    if names is None:
        return None
    registry = oracle.all_ops()
    unknown = [n for n in names if (n if "." in n else f"stablehlo.{n}") not in registry]
    if unknown:
        raise UsageError(f"{option}: unknown op(s) {', '.join(unknown)}")
    if not names:
        raise UsageError(f"{option}: empty list")
    return names


def _planned(args) -> list:
    """The (op, element type) pairs ``--ops`` / ``--dtypes`` select."""
    from conformance.run import plan

    pairs = plan(_op_names(args.ops), _element_types(args.dtypes))
    if not pairs:
        raise UsageError(f"nothing to run: no op x element type matches --ops {args.ops or '(all)'} "
                         f"--dtypes {args.dtypes or '(all)'}")
    return pairs


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is so that what finished is written like after Ctrl-C."""


@contextlib.contextmanager
def stoppable():
    """SIGTERM stops the run like Ctrl-C (the caller's ``finally`` writes what finished).  Yields
    a dict whose "by" names the signal that arrived: a library may wrap the KeyboardInterrupt
    it raises (Hypothesis, in some phases) and the run must still end as stopped."""
    stopped: dict = {}

    def stop(signum, frame):
        stopped["by"] = signum
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    def quiet_when_swallowed(unraisable):
        # The signal can land inside a callback whose exceptions Python cannot propagate (a gc
        # callback, a __del__): Python prints it as "Exception ignored" with a traceback.  The
        # stop is recorded in ``stopped`` and the next result ends the run, so say nothing.
        if not (stopped.get("by") and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            previous_hook(unraisable)

    try:
        previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:  # not the main thread (a test calling main()): the signals stay as they were
        yield stopped
        return
    previous_hook, sys.unraisablehook = sys.unraisablehook, quiet_when_swallowed
    try:
        yield stopped
    finally:
        sys.unraisablehook = previous_hook
        for s, handler in previous.items():
            signal.signal(s, handler)


def _run_logged(args, backend, path: str, work, **meta):
    """``work(on_result)`` with every result logged to ``path`` as it ends (reports/results.py
    ResultsLog); returns (results, why it stopped early or "").  Ctrl-C / SIGTERM end the run,
    not the program: the results so far are written and summarized, then the exit is 130 / 143."""
    from conformance.environment import environment
    from reports.results import ResultsLog

    log = ResultsLog(path, backend.name, environment=environment(backend), **meta)
    started, stopped, signals = time.time(), None, {}
    def on_result(result):
        log.add(result)
        if signals.get("by"):  # the signal's exception was swallowed on the way (a library's retry loop)
            raise Terminated() if signals["by"] == signal.SIGTERM else KeyboardInterrupt()

    try:
        with stoppable() as signals:
            work(on_result)
    except BaseException as e:
        if not (isinstance(e, KeyboardInterrupt) or signals.get("by")):
            raise  # a crash: the results so far are still written (finally), then the traceback
        stopped = Terminated() if signals.get("by") == signal.SIGTERM or isinstance(e, Terminated) else e
        stopped = stopped if isinstance(stopped, KeyboardInterrupt) else KeyboardInterrupt()
    finally:
        backend.close()
        log.close(complete=stopped is None, seconds=round(time.time() - started, 1))
    return log.cases, stopped


def _finish(args, backend_name: str, title: str, results, path: str, stopped, reproducers=None,
            junit: bool = True) -> int:
    """The closing summary, --junit (unless the caller writes it for several runs at once), and the
    exit code (130 / 143 when Ctrl-C / SIGTERM stopped it)."""
    from reports.summary import closing_summary, exit_code

    why = "" if stopped is None else "SIGTERM" if isinstance(stopped, Terminated) else "Ctrl-C"
    print(closing_summary(title, backend_name, results, results_path=path, reproducers=reproducers,
                          expect_known=getattr(args, "expect_known", False), interrupted=why))
    if junit:
        _maybe_junit(args, [path])
    if stopped is not None:
        return 143 if isinstance(stopped, Terminated) else 130
    return exit_code(backend_name, results, expect_known=getattr(args, "expect_known", False))


def _backend_names(text: str) -> list[str]:
    """``--backend a,b``: several backends (a cmd: template is one, commas and all)."""
    if text.startswith("cmd:"):
        return [text]
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError("--backend: no backend named")
    return names


def cmd_run(args) -> int:
    names = _backend_names(args.backend)
    if len(names) == 1:
        return _run_one(args, names[0], args.out, _planned(args))
    return _run_several(args, names)


def _run_several(args, names: list[str]) -> int:
    """``run --backend a,b``: one run per backend in OUT/<backend>/, then the portability hazards:
    the implementation-defined cases whose masked elements the backends answer differently are
    marked ``divergent`` in every backend's results.json (judge/divergence.py)."""
    from judge.divergence import divergence
    from reports.results import mark_divergent

    pairs = _planned(args)
    _output_folder(args.out)
    for name in names:
        _backend(name).close()  # every backend is usable before the first run starts
    codes, runs = [], {}
    for name in names:
        path_name = name.replace("/", "_").replace(" ", "_")
        results: list = []
        code = _run_one(args, name, os.path.join(args.out, path_name), pairs, keep=results, junit=False)
        codes.append(code)
        runs[name] = (results, os.path.join(args.out, path_name, "results.json"))
        if code in (130, 143):  # stopped: what finished is written, no comparison
            _maybe_junit(args, [path for _, path in runs.values()])
            return code
    by_case: dict = {}
    for name, (results, _) in runs.items():
        for r in results:
            by_case.setdefault(r.id, {})[name] = getattr(r, "masked_outputs", None)
    divergent = {case_id: d for case_id, values in by_case.items() if (d := divergence(values))}
    for _, path in runs.values():
        mark_divergent(path, divergent)
    print(f"\nportability: {len(divergent)} implementation-defined case(s) where {', '.join(names)} give "
          "different values on the elements the spec leaves to the implementation (\"divergent\" in each "
          "results.json; they do not fail the run)")
    for case_id, d in list(divergent.items())[:10]:
        values = ", ".join(f"{b} {v}" for b, v in d["values"].items())
        print(f"  {case_id}: output #{d['output']} {d['index']}: {values} ({d['elements']} element(s) differ)")
    _maybe_junit(args, [path for _, path in runs.values()])  # one test suite per backend
    return max(codes)


def _run_one(args, name: str, out: str, pairs, keep: list | None = None, junit: bool = True) -> int:
    from conformance.run import run_differential

    _output_folder(out)
    _output_file(args.junit, "--junit")
    backend = _backend(name)
    path = os.path.join(out, "results.json")
    results, stopped = _run_logged(
        args, backend, path,
        lambda on_result: run_differential(backend, pairs, max_examples=args.max_examples, seed=args.seed,
                                           out_dir=out, timeout=args.timeout, progress=not args.quiet,
                                           on_result=on_result, jobs=args.jobs),
        seed=args.seed, max_examples=args.max_examples)
    if keep is not None:
        keep.extend(results)
    reproducers = os.path.join(out, "reproducers")
    return _finish(args, backend.name, f"{backend.name} vs oracle: {len(results)} cases "
                   f"({len(pairs)} op x element type pairs, up to {args.max_examples} cases each)", results, path,
                   stopped, reproducers if os.path.isdir(reproducers) else None, junit=junit)


def _maybe_junit(args, results_paths: list[str]) -> None:
    """``--junit OUT.xml``: the results just written (one test suite per results file), as JUnit XML."""
    if getattr(args, "junit", None):
        from reports.html import load_run
        from reports.junit import write_junit
        print(f"junit: {write_junit(args.junit, [load_run(path) for path in results_paths])}")


def cmd_report(args) -> int:
    from reports.html import load_run, render_report
    from reports.results import atomic_write_text

    if not (args.html or args.junit):
        raise UsageError("nothing to write: give --html OUT.html and/or --junit OUT.xml")
    _output_file(args.html, "--html")
    _output_file(args.junit, "--junit")
    runs = [load_run(p) for p in args.paths]  # BadInputFile names the file that is not a results file
    if args.html:
        base = os.path.dirname(os.path.abspath(args.html))
        atomic_write_text(args.html, render_report(runs, base=base))
        print(f"report: {args.html}")
    if args.junit:
        from reports.junit import write_junit
        print(f"junit: {write_junit(args.junit, runs)}")
    return EXIT_OK


def cmd_certify(args) -> int:
    from conformance.certify import certify

    ops, dtypes = _op_names(args.ops), _element_types(args.dtypes)
    _output_folder(args.out)
    backend = _backend(args.backend)
    started = time.time()
    try:
        with stoppable():
            summary = certify(backend, args.out, ops=ops, dtypes=dtypes,
                              max_examples=args.max_examples, seed=args.seed,
                              corpus=not args.no_corpus, spec=not args.no_spec, timeout=args.timeout,
                              progress=not args.quiet)
    except KeyError as e:
        raise UsageError(e.args[0]) from None
    finally:
        backend.close()
    from reports.summary import legend

    print(open(os.path.join(args.out, "summary.txt")).read())
    present = {status for kind in RESULT_KINDS if kind in summary for status in summary[kind]["cases"]}
    print(legend(present).lstrip("\n"))
    print(f"\nresults:     {args.out}/ (differential.json, spec-examples.json, corpus.json, summary.json; "
          f"reproducers/ holds one folder per failure)")
    print(f"HTML report: {os.path.join(args.out, 'report.html')}  ({time.time() - started:.0f}s)")
    code = EXIT_OK if summary["verdict"] != "deviates" else EXIT_FINDINGS
    print(f"exit code {code}: " + ("some failure is not a listed deviation" if code else
                                   "no failure outside the listed deviations (certify expects those)"))
    return code


def cmd_corpus(args) -> int:
    """Test files (either format, mixed per ``// -----`` case) on a backend, spread over ``--jobs``
    processes: a file that cannot be read or has nothing to run is an ``error`` result among the
    others, never the end of the run (unless it is the only file: exit 2); a file without checks
    tests that its program runs (what it returns is judged); a program whose @main takes
    arguments is checked differentially (conformance/check.py)."""
    from conformance.check import check_program
    from conformance.corpus import iter_file_results, read_test_file
    from conformance.run import Progress
    from reports.results import FAILING

    files = []
    for p in args.paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(p) for f in fs if f.endswith(".mlir"))
            if not found:
                raise UsageError(f"{p}: no .mlir file in this folder")
            files += found
        elif os.path.exists(p):
            files.append(p)
        else:
            raise UsageError(f"{p}: no such file or folder")
    if len(files) == 1 and read_test_file(files[0])[1]:  # the run's only file is no text at all
        raise UsageError(read_test_file(files[0])[1])
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give at least 1")
    _output_folder(args.out)
    _output_file(args.junit, "--junit")
    backend = _backend(args.backend)
    bar = Progress(len(files), f"{backend.name} (files)", enabled=not args.quiet)

    def work(on_result):
        for path, results in iter_file_results(files, backend, jobs=args.jobs, timeout=args.timeout,
                                               out_dir=args.out, check=check_program):
            for r in results:
                on_result(r)
            worst = next((r.status for r in results if r.status in FAILING), results[0].status)
            bar.update(worst, os.path.basename(path), cases=len(results))
    path = os.path.join(args.out, "results.json")
    results, stopped = _run_logged(args, backend, path, work)
    return _finish(args, backend.name, f"{backend.name}: {len(results)} corpus cases from {len(files)} files",
                   results, path, stopped)


def cmd_eval(args) -> int:
    import numpy as np

    import oracle
    from oracle.arrays import read_arrays_file

    text = _read_text(args.program, "program")
    _output_file(args.out, "--out")
    try:
        module = oracle.parse_module(text, filename=args.program)
    except oracle.MlirError as e:
        more = len(e.diagnostics) - 1
        raise UsageError(str(e).splitlines()[0] + (f" (and {more} more)" if more > 0 else "")) from None
    if not any(f.name == "main" for f in module.functions):
        raise UsageError(f"{args.program}: no func.func @main to evaluate")
    inputs = read_arrays_file(args.inputs) if args.inputs else []
    try:
        outputs = oracle.evaluate(module, inputs)
    except oracle.OracleError as e:
        raise UsageError(f"{args.program}: {e}".splitlines()[0]) from None
    with np.printoptions(threshold=200):
        for i, (t, v) in enumerate(zip(module.main.result_types, outputs)):
            print(f"result #{i}: {t}\n{v!r}")
    if args.out:
        from oracle.arrays import save_arrays
        with open(args.out, "wb") as f:  # (a path numpy would give a ".npz" suffix is kept as given)
            save_arrays(f, outputs)
    return EXIT_OK


def cmd_repro(args) -> int:
    """Replay a reproducer folder through the judge every path uses (judge/verdict.py): one-op
    cases, multi-output and multi-op programs (replay judging), quantized and grid programs."""
    from conformance.fuzz import FINDING_STATUSES, check_program, signature_of
    from judge.known_deviations import describe, entry_of
    from reports.reproducer import read_reproducer
    from reports.results import CaseResult

    if os.path.isfile(args.dir):  # a testdata-format .mlir (reports/testdata.py) or any corpus file
        return _repro_file(args)
    try:
        data = read_reproducer(args.dir)
    except OSError as e:
        raise UsageError(f"not a reproducer folder: {e}") from None
    backend = _backend(args.backend)  # (a grid program's inputs come back per process)
    try:
        verdict = check_program(backend, data["module"], data["inputs"], timeout=args.timeout)
    finally:
        backend.close()
    status = Status.ERROR if verdict.status == Status.ERROR_ORACLE else verdict.status
    where = f" ({verdict.op}, {verdict.dtype})" if status in FINDING_STATUSES and verdict.op else ""
    print(f"{backend.name}: {status}{where}" + (f"\n{verdict.message}" if verdict.message else ""))
    entry = entry_of(backend.name, verdict, data["module"])
    if entry:  # as a campaign counts it and check records it: a listed deviation, not a new finding
        print(f"known deviation: {describe(entry)}")
    if status in FINDING_STATUSES:  # what a fuzz finding's signature is (conformance/replay_findings.py)
        print(f"signature: {signature_of(backend.name, verdict)}")
    result = CaseResult(id=data["case"].get("id", os.path.basename(args.dir)), ops=[verdict.op] if verdict.op else [],
                        dtypes=[verdict.dtype] if verdict.dtype else [], status=status)
    print(_still_fails([result]))
    return _exit_code([result])


def _still_fails(results) -> str:
    from reports.results import FAILING
    return "still fails" if any(r.status in FAILING for r in results) else "no longer fails"


def _repro_file(args) -> int:
    from conformance.corpus import load_cases, run_case

    cases = load_cases(args.dir)
    if not cases:
        raise UsageError(f"no test case in {args.dir}")
    backend = _backend(args.backend)
    try:
        results = [run_case(c, backend, timeout=args.timeout) for c in cases]
    finally:
        backend.close()
    for r in results:
        print(f"{backend.name}: {r.id}: {r.status}" + (f"\n{r.message}" if r.message else ""))
    print(_still_fails(results))
    return _exit_code(results)


def _dims(text: str | None) -> dict[str, int] | None:
    """``--dims b=4,c=2`` (dimension variables), ``--dims 4`` (every variable) -> {name: size}, "*" for all."""
    if text is None:
        return None
    dims = {}
    for item in _listed(text) or []:
        name, _, size = item.rpartition("=")
        if not size.isdigit() or (name and not name.replace("_", "a").isalnum() and name != "?"):
            raise UsageError(f"--dims {text}: expected NAME=SIZE,... or SIZE (a size for every variable), "
                             f"not {item!r}")
        dims[name or "*"] = int(size)
    if not dims:
        raise UsageError("--dims: empty list")
    return dims


def cmd_check(args) -> int:
    """Programs (files or folders of .mlir) checked differentially on one backend or several
    (``--backend a,b``: one run per backend in OUT/<backend>/): drawn inputs (or --inputs), dynamic
    dimensions refined to --dims or drawn sizes, every output judged (conformance/check.py)."""
    from conformance.check import DEFAULT_EXAMPLES
    from oracle.arrays import read_arrays_file

    args.examples = DEFAULT_EXAMPLES if args.examples is None else args.examples
    if args.examples < 1:
        raise UsageError(f"--examples {args.examples}: give at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give at least 1")
    dims = _dims(args.dims)
    programs = _check_programs(args.paths)
    inputs = read_arrays_file(args.inputs) if args.inputs else None
    names = _backend_names(args.backend)
    _output_folder(args.out)
    _output_file(args.junit, "--junit")
    for name in names[1:]:
        _backend(name).close()  # every backend is usable before the first run starts
    codes, paths = [], []
    for name in names:
        out = args.out if len(names) == 1 else os.path.join(args.out, name.replace("/", "_").replace(" ", "_"))
        code = _check_one(args, name, out, programs, dims, inputs)
        codes.append(code)
        paths.append(os.path.join(out, "results.json"))
        if code in (130, 143):
            break
    if len(names) > 1:
        _maybe_junit(args, paths)  # one test suite per backend
    return codes[-1] if codes[-1] in (130, 143) else max(codes)


def _check_programs(paths: list[str]) -> list:
    """(name, file, text) per .mlir file of ``paths``, or the ``error`` case of a file that cannot be
    read (one bad file among many is one error case; a path that does not exist is a usage error)."""
    from conformance.check import unreadable

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
    programs = []
    for name, f in files:
        try:
            programs.append((name, f, _read_text(f, "program")))
        except UsageError as e:
            programs.append(unreadable(name, f, str(e)))
    return programs


def _check_one(args, name: str, out: str, programs: list, dims, inputs) -> int:
    from conformance.check import check_texts
    from conformance.run import Progress

    _output_folder(out)
    backend = _backend(name)
    bar = Progress(len(programs) * args.examples, f"{backend.name} (input sets)", enabled=not args.quiet)

    def work(on_result):
        def each(result):
            on_result(result)
            bar.update(result.status, result.id)
        check_texts(programs, backend, examples=args.examples, dims=dims, seed=args.seed, inputs=inputs,
                    timeout=args.timeout, out_dir=out, jobs=args.jobs or os.cpu_count() or 1, on_result=each)
    path = os.path.join(out, "results.json")
    results, stopped = _run_logged(args, backend, path, work, seed=args.seed, examples=args.examples)
    reproducers = os.path.join(out, "reproducers")
    per = "1 given input set" if inputs is not None else f"up to {args.examples} input sets"
    return _finish(args, backend.name, f"{backend.name} vs oracle: {len(results)} cases ({len(programs)} "
                   f"programs, {per} each)", results, path, stopped,
                   reproducers if os.path.isdir(reproducers) else None, junit=len(_backend_names(args.backend)) == 1)


def cmd_backends(args) -> int:
    from adapters.registry import backend_lines
    print("\n".join(backend_lines(check=args.check)))
    return EXIT_OK


def cmd_probe(args) -> int:
    from conformance.probe import as_case_results, probe, support_path
    from conformance.run import Progress

    pairs = _planned(args)
    backend = _backend(args.backend)
    bar = Progress(len(pairs), f"probe {backend.name}", enabled=not args.quiet)
    try:
        support = probe(backend, pairs, refresh=args.refresh, seed=args.seed, timeout=args.timeout,
                        on_pair=lambda info, et, entry: bar.update(entry["status"], f"{info.mnemonic} {et}"))
    finally:
        backend.close()
    results = as_case_results(support)
    _print_summary(f"{backend.name}: support of {len(pairs)} op x element type pairs "
                   f"(one program each; rejected = refused by the backend)", results)
    print(f"\ncache: {support_path(backend) or '(disk cache off)'}")
    return EXIT_OK


def _fuzz_ops(args) -> list | None:
    """``--ops`` minus ``--exclude-ops`` as the OpInfos random programs draw (None: all of them)."""
    from generators.random_programs import generatable_ops

    wanted, excluded = _op_names(args.ops), _op_names(args.exclude_ops, "--exclude-ops")
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


def cmd_fuzz(args) -> int:
    from conformance.fuzz import Campaign, parse_shard

    try:
        shard = parse_shard(args.shard)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.minutes is None and args.programs is None:
        raise UsageError("say how long: --minutes M and/or --programs N")
    for option, value in (("--minutes", args.minutes), ("--programs", args.programs), ("--max-ops", args.max_ops),
                          ("--input-sets", args.input_sets)):
        if value is not None and value <= 0:
            raise UsageError(f"{option} must be > 0 (got {value})")
    ops = _fuzz_ops(args)
    dtypes = _element_types(args.dtypes)
    exclude_dtypes = _element_types(args.exclude_dtypes, "--exclude-dtypes") or ()
    names = _listed(args.backend) or []
    if not names or len(set(names)) != len(names):
        raise UsageError(f"--backend: one backend or a comma-separated list without repeats (got {args.backend!r})")
    _output_folder(args.out)
    backends = []
    try:
        for name in names:
            backends.append(_backend(name))
        try:
            campaign = Campaign(backends, args.out, seed=args.seed, shard=shard, max_ops=args.max_ops,
                                input_sets=args.input_sets, database=args.database, timeout=args.timeout,
                                progress=not args.quiet, grid=args.grid, ops=ops, dtypes=dtypes,
                                exclude_dtypes=exclude_dtypes, include_known=args.include_known,
                                mode=args.mode or ("random" if args.grid or any(
                                    (args.ops, args.exclude_ops, args.dtypes, args.exclude_dtypes)) else "mixed"),
                                seeds=[args.seeds] if args.seeds else None)
        except ValueError as e:
            raise UsageError(str(e)) from None
        with stoppable():  # SIGTERM like Ctrl-C: the campaign writes summary.json on its way out
            summary = campaign.run(minutes=args.minutes, max_programs=args.programs)
    except KeyboardInterrupt:
        print(f"\nINTERRUPTED: summary.json is up to date; run the same command again to continue the campaign "
              f"({os.path.join(args.out, 'summary.json')})", file=sys.stderr)
        raise
    finally:
        for backend in backends:
            backend.close()
    split = ", ".join(f"{k} {v}s" for k, v in summary["time_split"].items() if v)
    known = sum(v["count"] for v in summary["known_deviation_failures"].values())
    print(f"{summary['backend']}: {summary['programs']} programs ({summary['programs_per_s']}/s) in "
          f"{summary['seconds']}s, {summary['input_sets']} input sets, finite outputs "
          f"{summary['finite_output_fraction']}, {len(summary['ops_covered'])} ops covered\n"
          f"time: {split} (shrinking {100 * summary['shrink_share']:.0f}% of the wall time)\n"
          f"findings: {summary['new_findings']} new, {len(summary['findings']) - summary['new_findings']} from "
          f"earlier runs in {args.out}, {summary['known_repeats']} repeats of known signatures, "
          f"{known} failures explained by known deviations ({len(summary['known_deviation_failures'])} signatures)")
    if len(summary["per_mode"]) > 1:
        print("per mode: " + ", ".join(f"{mode} {n['programs']} programs ({n['findings']} new findings, "
                                      f"{n['known_deviation_failures']} known-deviation failures)"
                                      for mode, n in summary["per_mode"].items()))
    for f in summary["findings"]:
        beside = "; ".join(f"{b}: {v}" for b, v in f["beside"].items())
        print(f"  {'NEW ' if f['new'] else ''}{f['signature']}: {f['reproducer']}" + (f" [{beside}]" if beside else ""))
    for pair, n in summary["disagreements"].items():
        print(f"  backends disagree ({pair}): {n} programs")
    for signature, flaky in summary["flaky"].items():  # (not findings: not confirmed on a fresh worker)
        print(f"  flaky {signature} x{flaky['count']} (on a fresh worker: {' then '.join(flaky['again'])}; "
              f"not a finding): {flaky['reproducer']}")
    print(f"summary: {os.path.join(args.out, 'summary.json')}")
    if summary["stopped"]:
        print(f"ERROR: {summary['stopped']}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FINDINGS if summary["findings"] else EXIT_OK


def cmd_triage(args) -> int:
    """The findings of fuzz campaign folders by signature (new / known deviation / stale), each
    replayed through the judge; triage.json and triage.html written in --out (default: the first DIR)."""
    for folder in args.dirs:
        if not os.path.isdir(os.path.join(folder, "findings")):
            raise UsageError(f"{folder}: not a fuzz campaign folder (no findings/ in it)")
    out = args.out or args.dirs[0]
    _output_folder(out)
    return _triaged(args.dirs, out, replay=not args.no_replay, timeout=args.timeout)


def cmd_campaign(args) -> int:
    """One fuzz campaign as --shards jobs on rq workers sharing one Redis (conformance/cluster.py):
    started, watched per shard, merged into OUT/summary.json and triaged."""
    options = args.fuzz_options[1:] if args.fuzz_options[:1] == ["--"] else list(args.fuzz_options)
    try:
        from conformance.cluster import (OPTIONS_SET_BY_THE_CAMPAIGN, SHRINK_SLACK_SECONDS, ClusterCampaign,
                                         start_local_workers)
        import redis
    except ImportError as e:
        raise UsageError(f"campaign needs the rq and redis packages ({e}): "
                         "pip install 'stablehlo-conformance[redis]'") from None
    taken = [o for o in options if o.split("=")[0] in OPTIONS_SET_BY_THE_CAMPAIGN]
    if taken:
        raise UsageError(f"{', '.join(taken)}: the campaign sets these for each shard; give --out and --redis "
                         "before the --")
    if args.shards < 1 or args.local_workers < 0:
        raise UsageError(f"--shards must be >= 1 and --local-workers >= 0 (got {args.shards}, {args.local_workers})")
    try:
        fuzz = build_parser().parse_args(["fuzz", *options])  # the shards' options, checked here first
    except SystemExit as e:
        return int(e.code or 0) or EXIT_USAGE  # (argparse said why)
    if fuzz.minutes is None and fuzz.programs is None:
        raise UsageError("say how long each shard runs, after the --: --minutes M and/or --programs N")
    _output_folder(args.out)
    try:
        campaign = ClusterCampaign(args.redis, args.shards, options, args.out,
                                   job_timeout=60 * fuzz.minutes + SHRINK_SLACK_SECONDS if fuzz.minutes else 86400)
    except (redis.RedisError, ValueError) as e:
        raise UsageError(f"--redis {args.redis}: {e}") from None
    campaign.enqueue()
    workers = start_local_workers(args.redis, args.local_workers)
    stopped = None
    try:
        try:
            with stoppable():
                campaign.watch()
        except KeyboardInterrupt as e:
            stopped = e
            print("\nstopping the shards; their results are merged (Ctrl-C again to leave now)", file=sys.stderr)
            campaign.stop()
            with stoppable():
                campaign.watch()
    finally:
        summary = campaign.merged_summary(complete=stopped is None)
        for worker in workers:
            if worker.poll() is None and stopped is not None:
                worker.terminate()
    for shard in summary["shards"]:
        problem = f"  {shard['error'].splitlines()[-1] if shard['error'] else ''}"
        print(f"shard {shard['index']}: {shard['state']} on {shard['host'] or '?'}, {shard['programs']} programs, "
              f"{shard['findings']} findings{problem.rstrip()}")
    print(f"campaign: {summary['programs']} programs, {len(summary['findings'])} findings "
          f"({summary['new_findings']} new); summary: {os.path.join(args.out, 'summary.json')}")
    folders = [s["folder"] for s in summary["shards"] if s["folder"]]
    code = _triaged(folders, args.out, replay=True, timeout=fuzz.timeout) if folders else EXIT_USAGE
    if stopped is not None:
        return 143 if isinstance(stopped, Terminated) else 130
    return EXIT_USAGE if any(s["state"] != "finished" or s["error"] for s in summary["shards"]) else code


def _triaged(dirs: list[str], out: str, *, replay: bool, timeout: float) -> int:
    """Triage of campaign folders, printed, with triage.json / triage.html in ``out``."""
    from conformance.triage import KNOWN, NEW, STALE, triage, write_report

    backends: dict = {}

    def backend_named(name: str):
        if name not in backends:
            backends[name] = _backend(name)
        return backends[name]
    try:
        items = triage(dirs, backend_named, replay=replay, timeout=timeout)
    finally:
        for backend in backends.values():
            backend.close()
    width = max([len(t.signature) for t in items] + [9])
    for t in items:
        note = f"  now {t.now}" if t.now else ""
        why = f"  ({t.reason[:100]})" if t.reason else ""
        print(f"{t.verdict:<16} {t.signature:<{width}}{note}{why}")
    counts = {v: sum(t.verdict == v for t in items) for v in (NEW, KNOWN, STALE)}
    json_path, html_path = write_report(items, out)
    print(f"{len(items)} signatures: {counts[NEW]} new, {counts[KNOWN]} known deviation, {counts[STALE]} stale\n"
          f"report: {html_path} ({json_path})")
    return EXIT_FINDINGS if counts[NEW] else EXIT_OK


def cmd_exhaustive(args) -> int:
    """Every value of the small float types through each element-wise op (conformance/exhaustive.py)."""
    from .exhaustive import plan_exhaustive, run_exhaustive
    try:
        pairs = plan_exhaustive(_listed(args.ops), _listed(args.dtypes))
    except KeyError as e:
        raise UsageError(str(e).strip("'\"")) from None
    if not pairs:
        raise UsageError("no element-wise op takes the small float types asked for")
    backend = _backend(args.backend)
    try:
        sweeps = run_exhaustive(backend, pairs, seed=args.seed, out_dir=args.out, timeout=args.timeout)
    finally:
        backend.close()
    bad = [s for s in sweeps if s.status in FAILING and not s.known_deviation]
    known = sum(1 for s in sweeps if s.known_deviation)
    print(f"{backend.name}: {len(sweeps)} sweeps, {sum(s.values for s in sweeps)} values, {len(bad)} with new "
          f"findings, {known} explained by known deviations; {os.path.join(args.out, 'exhaustive.json')}")
    return 1 if bad else 0


def cmd_collectives(args) -> int:
    from conformance.grid_coverage import run_coverage

    from generators.collectives import STRATEGIES

    ops = _listed(args.ops)
    unknown = sorted(set(ops or ()) - set(STRATEGIES))
    if unknown or ops == []:
        raise UsageError(f"--ops: unknown collective(s) {', '.join(unknown) or '(empty list)'} "
                         f"(known: {', '.join(sorted(STRATEGIES))})")
    dtype = _element_types(args.dtype, "--dtype")
    if len(dtype) != 1:
        raise UsageError(f"--dtype: one element type, not {args.dtype}")
    _output_folder(args.out)
    backend = _backend(args.backend)
    path = os.path.join(args.out, "results.json")
    results, stopped = _run_logged(
        args, backend, path,
        lambda on_result: run_coverage(backend, dtype=dtype[0], examples=args.max_examples, seed=args.seed,
                                       ops=ops, out_dir=args.out, on_result=on_result),
        seed=args.seed, max_examples=args.max_examples)
    rows: dict = {}
    for r in results:
        key = f"{r.ops[0].split('.')[-1]} {r.extra['strategy']}"
        rows.setdefault(key, {}).setdefault(r.status, []).append("x".join(map(str, r.extra["grid"])))
    print(f"{backend.name}: {len(results)} cases (collective x strategy x grid shape, {args.dtype})")
    for key in sorted(rows):
        print(f"  {key:<46} " + "; ".join(f"{status} {len(grids)}" for status, grids in sorted(rows[key].items())))
    if stopped is not None:
        print(f"INTERRUPTED: the {len(results)} cases that finished are in {path}")
        return 143 if isinstance(stopped, Terminated) else 130
    print(f"results: {path}")
    return _exit_code(results)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shlo-conform", description="StableHLO differential conformance suite")
    sub = p.add_subparsers(dest="command", required=True)

    def backend_options(parser, *, out=True):
        parser.add_argument("--backend", required=True, help="see `shlo-conform backends`")
        parser.add_argument("--timeout", type=float, default=60.0, help="seconds per backend run")
        if out:
            parser.add_argument("--out", default="results", help="folder for results.json and reproducers")
            parser.add_argument("--quiet", action="store_true", help="no progress display")

    r = sub.add_parser("run", help="differential run: one-op programs on a backend vs the oracle")
    backend_options(r)
    r.add_argument("--ops", help="comma-separated op names (default: every op the oracle can generate)")
    r.add_argument("--dtypes", help="comma-separated element types (default: every type each op takes)")
    r.add_argument("--max-examples", type=int, default=2,
                   help="cases per op x element type (default 2: every pair, a few minutes on 2 cores; "
                        "`certify` is the exhaustive run)")
    r.add_argument("--jobs", type=int, default=None,
                   help="backend worker processes at once (default: one per core)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--junit", help="also write the results as JUnit XML to this file")
    r.add_argument("--expect-known", action="store_true",
                   help="exit 0 when every failure is a deviation listed in judge/deviations/BACKEND.toml")
    r.set_defaults(fn=cmd_run)  # --backend a,b: a run per backend in OUT/<backend>/, compared on
    # the implementation-defined elements (portability hazards: "divergent")

    e = sub.add_parser("eval", help="evaluate a program on the oracle and print its outputs")
    e.add_argument("program")
    e.add_argument("--inputs", help=".npz with the inputs in order (arg0, arg1, ...)")
    e.add_argument("--out", help="write the outputs to this .npz")
    e.set_defaults(fn=cmd_eval)

    c = sub.add_parser("corpus", help="run test files (interpret or testdata format) on a backend")
    c.add_argument("paths", nargs="+")
    backend_options(c)
    c.add_argument("--jobs", type=int, default=None,
                   help="worker processes reading, running and judging files at once (default: one per core)")
    c.add_argument("--junit", help="also write the results as JUnit XML to this file")
    c.add_argument("--expect-known", action="store_true",
                   help="exit 0 when every failure is a deviation listed in judge/deviations/BACKEND.toml")
    c.set_defaults(fn=cmd_corpus)

    ck = sub.add_parser("check", help="your own programs (files or folders of .mlir) differentially on a backend: "
                                      "drawn or given inputs, dynamic shapes refined, every output judged")
    ck.add_argument("paths", nargs="+", metavar="PATH")
    backend_options(ck)
    ck.add_argument("--inputs", help=".npz with one input set for @main (arg0, arg1, ... or names, in order)")
    ck.add_argument("--examples", type=int, default=None,
                    help="input sets per program (default: one of each kind: mild values, the special values, "
                         "edge-reaching values)")
    ck.add_argument("--dims", help="sizes of the dynamic dimensions: NAME=SIZE,... (JAX's dimension variables) "
                                   "or SIZE for every one (default: small sizes drawn per input set)")
    ck.add_argument("--seed", type=int, default=0)
    ck.add_argument("--jobs", type=int, default=None,
                    help="input sets run at once (default: one per core)")
    ck.add_argument("--junit", help="also write the results as JUnit XML to this file")
    ck.add_argument("--expect-known", action="store_true",
                    help="exit 0 when every failure is a deviation listed in judge/deviations/BACKEND.toml")
    ck.set_defaults(fn=cmd_check)

    rp = sub.add_parser("repro", help="replay a reproducer (folder, or testdata .mlir) on a backend")
    rp.add_argument("dir", help="a reproducer folder, or a testdata-format .mlir file")
    backend_options(rp, out=False)
    rp.set_defaults(fn=cmd_repro)

    rep = sub.add_parser("report", help="one self-contained HTML page (and/or JUnit XML) from results.json files")
    rep.add_argument("paths", nargs="+", help="results.json files or folders holding one")
    rep.add_argument("--html", help="write the HTML report here")
    rep.add_argument("--junit", help="write JUnit XML here")
    rep.set_defaults(fn=cmd_report)

    ce = sub.add_parser("certify", help="fixed-seed run of everything on a backend: report + summary")
    backend_options(ce)
    ce.set_defaults(out="certify")
    ce.add_argument("--ops", help="comma-separated op names (default: all)")
    ce.add_argument("--dtypes", help="comma-separated element types (default: all the backend claims)")
    ce.add_argument("--max-examples", type=int, default=3)
    ce.add_argument("--seed", type=int, default=0)
    ce.add_argument("--no-corpus", action="store_true", help="skip the interpreter corpus")
    ce.add_argument("--no-spec", action="store_true", help="skip the spec examples")
    ce.set_defaults(fn=cmd_certify)

    fz = sub.add_parser("fuzz", help="fuzz campaign: random multi-op programs vs the oracle, shrunk findings")
    backend_options(fz)
    fz.set_defaults(out="fuzz")
    fz.add_argument("--minutes", type=float, help="stop after this many minutes")
    fz.add_argument("--programs", type=int, help="stop after this many programs")
    fz.add_argument("--seed", type=int, default=0)
    fz.add_argument("--shard", default="0/1", help="i/N: this machine's share of a campaign (seeds differ)")
    fz.add_argument("--max-ops", type=int, default=8, help="ops per program (1..N)")
    fz.add_argument("--input-sets", type=int, default=3, help="input sets per compiled program")
    fz.add_argument("--grid", action="store_true",
                    help="programs on random process grids (up to 8): collectives mixed with ordinary ops")
    fz.add_argument("--database", help="redis://host:port: the findings store shards share (default: one folder "
                                       "per backend and version under the cache dir, see adapters/cache.py)")
    fz.add_argument("--ops", help="comma-separated ops to draw (default: every op random programs draw)")
    fz.add_argument("--exclude-ops", help="comma-separated ops never to draw")
    fz.add_argument("--dtypes", help="comma-separated element types ops are drawn for")
    fz.add_argument("--exclude-dtypes", help="comma-separated element types never drawn for an op")
    fz.add_argument("--include-known", action="store_true",
                    help="also run what the probe cache or the deviation table says a backend refuses or crashes on")
    fz.add_argument("--mode", help="programs drawn: random (DAGs), mutation (mutants of real programs, --seeds), "
                                   "template (fusion-prone patterns) or mixed (a third of each; the default, except "
                                   "that --ops, --exclude-ops, --dtypes, --exclude-dtypes and --grid mean random)")
    fz.add_argument("--seeds", help="folder (or .mlir file) of real programs mutation mode mutates "
                                    "(default: suites/data/jax_programs)")
    fz.set_defaults(fn=cmd_fuzz)

    ca = sub.add_parser("campaign", help="one fuzz campaign as N shards on rq workers sharing one Redis: "
                                         "started, watched, merged and triaged",
                        description="Everything after -- is `shlo-conform fuzz`'s options for every shard, e.g. "
                                    "shlo-conform campaign --shards 8 --redis redis://10.0.0.5:6379 --out night "
                                    "-- --backend xla --minutes 60.  Workers: `rq worker --url URL "
                                    "shlo-conform-shards` on each machine, or --local-workers K here.")
    ca.add_argument("--shards", type=int, required=True, help="how many shards (jobs) the campaign has")
    ca.add_argument("--redis", required=True, help="redis://host:port: the queue and the shared findings store")
    ca.add_argument("--out", required=True, help="folder for the shards' results, summary.json and the triage")
    ca.add_argument("--local-workers", type=int, default=0,
                    help="also start this many workers on this machine (they leave when the queue is empty)")
    ca.add_argument("fuzz_options", nargs=argparse.REMAINDER, help="-- then fuzz options for every shard")
    ca.set_defaults(fn=cmd_campaign)

    tr = sub.add_parser("triage", help="fuzz findings of campaign folders by signature, each replayed: "
                                       "new / known deviation / stale, with an HTML report")
    tr.add_argument("dirs", nargs="+", metavar="DIR", help="fuzz campaign output folders (shards, nights)")
    tr.add_argument("--out", help="folder for triage.json and triage.html (default: the first DIR)")
    tr.add_argument("--no-replay", action="store_true", help="sort by the deviation table only (no stale)")
    tr.add_argument("--timeout", type=float, default=60.0, help="seconds per backend run")
    tr.set_defaults(fn=cmd_triage)

    co = sub.add_parser("collectives", help="every collective x process-group strategy x grid shape on a backend")
    backend_options(co)
    co.add_argument("--ops", help="comma-separated collectives (default: all six)")
    co.add_argument("--dtype", default="f32")
    co.add_argument("--max-examples", type=int, default=1)
    co.add_argument("--seed", type=int, default=0)
    co.set_defaults(fn=cmd_collectives)

    ex = sub.add_parser("exhaustive", help="element-wise ops over every value of f16/bf16/f8/f6/f4 (binary: "
                                           "every pair of <=8-bit values) vs the oracle")
    backend_options(ex)
    ex.set_defaults(out="exhaustive")
    ex.add_argument("--ops", help="comma-separated op names (default: every element-wise op)")
    ex.add_argument("--dtypes", help="comma-separated small float types (default: all of them)")
    ex.add_argument("--seed", type=int, default=0)
    ex.set_defaults(fn=cmd_exhaustive)

    b = sub.add_parser("backends", help="list the backends and whether they are installed (--check: usable) here")
    b.add_argument("--check", action="store_true", help="start each backend to confirm that it is usable here")
    b.set_defaults(fn=cmd_backends)

    pr = sub.add_parser("probe", help="which op x element type pairs a backend accepts (cached on disk)")
    backend_options(pr, out=False)
    pr.add_argument("--ops", help="comma-separated op names (default: every op the oracle can generate)")
    pr.add_argument("--dtypes", help="comma-separated element types (default: every type each op takes)")
    pr.add_argument("--refresh", action="store_true", help="probe again even what is cached")
    pr.add_argument("--seed", type=int, default=0)
    pr.add_argument("--quiet", action="store_true", help="no progress display")
    pr.set_defaults(fn=cmd_probe)
    return p


def main(argv=None) -> int:
    # numpy's RuntimeWarnings (overflow, invalid value, ...) are the oracle computing IEEE
    # results on purpose: they are not news to the user and would break the progress line
    warnings.simplefilter("ignore", RuntimeWarning)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    if getattr(args, "max_examples", 1) is not None and getattr(args, "max_examples", 1) < 1:
        print("shlo-conform: error: --max-examples must be >= 1", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "timeout", 1) <= 0:
        print(f"shlo-conform: error: --timeout must be > 0 seconds (got {args.timeout})", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.fn(args)
    except (UsageError, BadInputFile) as e:
        print(f"shlo-conform: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        print("\ninterrupted", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130


if __name__ == "__main__":
    sys.exit(main())
