"""``shlo-conform``: the command-line interface (a stable interface: users script against it).

A command parses (cli_parser.py), checks what it was given (cli_arguments.py), calls the
module that does the work and prints; the fuzzing commands are in cli_fuzz.py.  Exit codes
(conformance/exits.py): 0 = everything passed, 1 = mismatches / crashes / timeouts / errors
found, 2 = usage or input error, 130 / 143 = stopped by Ctrl-C / SIGTERM (what finished is
written).  A command imports its modules when it runs: a command loads only what it uses.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

from judge.status import CASE_STATUSES, FAILING, Status
from oracle.errors import BadInputFile

from .cli_arguments import (UsageError, backend_names, check_programs, collective_names, dimension_sizes,
                            element_types, jobs_option, listed, mlir_files, op_names, output_file, output_folder,
                            planned, read_text, backend_of)
from .cli_fuzz import cmd_campaign, cmd_fuzz, cmd_triage
from .cli_parser import build_parser
from .exits import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, STOPPED_CODES, findings_exit_code, stoppable, stopped_by,
                    stopped_exit_code)

#: The parts of a certification, as its summary.json names them.
RESULT_KINDS = ("differential", "spec-example", "corpus")


def _print_summary(title: str, results, stream=None):
    """A table: one row per op, one column per status, and a total row."""
    stream = stream or sys.stdout  # (looked up per call: a default bound at import goes stale under pytest)
    from reports.results import summarize
    rows: dict[str, dict[str, int]] = {}
    for r in results:
        key = ",".join(o.replace("stablehlo.", "") for o in r.ops) or "?"
        rows.setdefault(key, {}).setdefault(r.status, 0)
        rows[key][r.status] += 1
    cols = [s for s in CASE_STATUSES if any(s in v for v in rows.values())]
    width = max([len(k) for k in rows] + [5])
    print(f"\n{title}", file=stream)
    print(f"{'op':<{width}}  " + "  ".join(f"{c:>{max(len(c), 5)}}" for c in cols), file=stream)
    for key in sorted(rows):
        print(f"{key:<{width}}  " + "  ".join(f"{rows[key].get(c, 0):>{max(len(c), 5)}}" for c in cols), file=stream)
    total = summarize(results)
    print(f"{'TOTAL':<{width}}  " + "  ".join(f"{total.get(c, 0):>{max(len(c), 5)}}" for c in cols), file=stream)


def _finish(args, backend_name: str, title: str, results, path: str, stopped, reproducers=None,
            junit: bool = True) -> int:
    """The closing summary, --junit (unless the caller writes it for several runs at once), and the
    exit code (130 / 143 when Ctrl-C / SIGTERM stopped it)."""
    from reports.summary import closing_summary, exit_code

    print(closing_summary(title, backend_name, results, results_path=path, reproducers=reproducers,
                          expect_known=getattr(args, "expect_known", False), interrupted=stopped_by(stopped),
                          accuracy=getattr(args, "accuracy", None) or "default"))
    if junit:
        _maybe_junit(args, [path])
    if stopped is not None:
        return stopped_exit_code(stopped)
    return exit_code(backend_name, results, expect_known=getattr(args, "expect_known", False))


def cmd_run(args) -> int:
    names = backend_names(args.backend)
    if len(names) == 1:
        return _run_one(args, names[0], args.out, planned(args))
    return _run_several(args, names)


def _run_several(args, names: list[str]) -> int:
    """``run --backend a,b``: one run per backend in OUT/<backend>/, then the portability hazards:
    the implementation-defined cases whose masked elements the backends answer differently are
    marked ``divergent`` in every backend's results.json (conformance/portability.py)."""
    from conformance.portability import mark_divergence

    pairs = planned(args)
    output_folder(args.out)
    for name in names:
        backend_of(args, name).close()  # every backend is usable before the first run starts
    codes, runs = [], {}
    for name in names:
        out = _backend_folder(args.out, name)
        results: list = []
        code = _run_one(args, name, out, pairs, keep=results, junit=False)
        codes.append(code)
        runs[name] = (results, os.path.join(out, "results.json"))
        if code in STOPPED_CODES:  # stopped: what finished is written, no comparison
            _maybe_junit(args, [path for _, path in runs.values()])
            return code
    divergent = mark_divergence(runs)
    print(f"\nportability: {len(divergent)} implementation-defined case(s) where {', '.join(names)} give "
          "different values on the elements the spec leaves to the implementation (\"divergent\" in each "
          "results.json; they do not fail the run)")
    for case_id, d in list(divergent.items())[:10]:
        values = ", ".join(f"{b} {v}" for b, v in d["values"].items())
        print(f"  {case_id}: output #{d['output']} {d['index']}: {values} ({d['elements']} element(s) differ)")
    _maybe_junit(args, [path for _, path in runs.values()])  # one test suite per backend
    return max(codes)


def _backend_folder(out: str, name: str) -> str:
    """OUT/<backend>/: where one backend's run of several goes (a cmd: template's slashes and spaces made safe)."""
    return os.path.join(out, name.replace("/", "_").replace(" ", "_"))


def _run_one(args, name: str, out: str, pairs, keep: list | None = None, junit: bool = True) -> int:
    from conformance.logged_run import run_logged
    from conformance.run import run_differential

    output_folder(out)
    output_file(args.junit, "--junit")
    backend = backend_of(args, name)
    path = os.path.join(out, "results.json")
    results, stopped = run_logged(
        backend, path,
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
        from judge.results import load_run
        from reports.junit import write_junit
        print(f"junit: {write_junit(args.junit, [load_run(path) for path in results_paths])}")


def cmd_report(args) -> int:
    from judge.results import load_run
    from reports.accuracy import is_table_path
    from reports.html import write_report

    if not (args.html or args.junit):
        raise UsageError("nothing to write: give --html OUT.html and/or --junit OUT.xml")
    output_file(args.html, "--html")
    output_file(args.junit, "--junit")
    if args.html:  # BadInputFile / ValueError name the file that is not a results file or an accuracy table
        try:
            print(f"report: {write_report(args.paths, args.html)}")
        except ValueError as e:
            raise UsageError(str(e)) from None
    if args.junit:
        from reports.junit import write_junit
        print(f"junit: {write_junit(args.junit, [load_run(p) for p in args.paths if not is_table_path(p)])}")
    return EXIT_OK


def cmd_certify(args) -> int:
    from conformance.certify import certify
    from conformance.fuzz import parse_shard
    from conformance.package import PackageError, read_statement_file

    ops, dtypes = op_names(args.ops), element_types(args.dtypes)
    try:
        shard = parse_shard(args.shard or "0/1")
        statement = read_statement_file(args.statement) if args.statement else {}
    except (ValueError, PackageError) as e:
        raise UsageError(str(e)) from None
    jobs_option(args.jobs)
    output_folder(args.out)
    backend = backend_of(args, args.backend)
    started = time.time()
    try:
        with stoppable():
            summary = certify(backend, args.out, ops=ops, dtypes=dtypes,
                              max_examples=args.max_examples, seed=args.seed,
                              corpus=not args.no_corpus, spec=not args.no_spec, timeout=args.timeout,
                              progress=not args.quiet, shard=shard, statement=statement, jobs=args.jobs)
    except KeyError as e:
        raise UsageError(e.args[0]) from None
    finally:
        backend.close()
    return _certified(args, summary, started)


def _certified(args, summary: dict, started: float) -> int:
    """What certify and certify-merge print after writing a package, and their exit code."""
    from conformance.package import write_archive
    from reports.summary import legend

    print(open(os.path.join(args.out, "summary.txt")).read())
    present = {status for kind in RESULT_KINDS if kind in summary for status in summary[kind]["cases"]}
    print(legend(present).lstrip("\n"))
    print(f"\nresults:     {args.out}/ (differential.json, spec-examples.json, corpus.json, summary.json; "
          f"reproducers/ holds one folder per failure)")
    print(f"package:     {args.out}/ (certificate.txt, plan.json, statement.toml, waivers.toml, outputs.npz, "
          f"manifest.sha256; check it with shlo-conform verify {args.out})")
    if args.archive:
        print(f"archive:     {write_archive(args.out)}")
    print(f"HTML report: {os.path.join(args.out, 'report.html')}  ({time.time() - started:.0f}s)")
    code = EXIT_OK if summary["verdict"] != "deviates" else EXIT_FINDINGS
    print(f"exit code {code}: " + ("some failure is not a listed deviation" if code else
                                   "no failure outside the listed deviations (certify expects those)"))
    return code


def cmd_certify_merge(args) -> int:
    from conformance.certify_merge import merge_shards
    from conformance.package import PackageError

    output_folder(args.out)
    started = time.time()
    try:
        summary = merge_shards(args.dirs, args.out)
    except PackageError as e:
        raise UsageError(str(e)) from None
    return _certified(args, summary, started)


def cmd_verify(args) -> int:
    from conformance.package import PackageError
    from conformance.verify import verify_package

    if args.rerun < 0:
        raise UsageError(f"--rerun {args.rerun}: give 0 or more passing cases to rerun")
    try:
        problems, notes = verify_package(args.package, rerun=args.rerun, backend=args.backend,
                                         timeout=args.timeout)
    except PackageError as e:
        raise UsageError(str(e)) from None
    for line in notes:
        print(line)
    for line in problems:
        print(f"PROBLEM: {line}")
    print(f"{args.package}: " + (f"{len(problems)} problem(s)" if problems else "verified"))
    return EXIT_FINDINGS if problems else EXIT_OK


def cmd_scoreboard(args) -> int:
    from conformance.package import PackageError
    from conformance.scoreboard import write_scoreboard

    output_file(args.html, "--html")
    try:
        print(f"scoreboard: {write_scoreboard(args.packages, args.html)}")
    except PackageError as e:
        raise UsageError(str(e)) from None
    return EXIT_OK


def cmd_corpus(args) -> int:
    """Test files (either format, mixed per ``// -----`` case) on a backend, spread over ``--jobs``
    processes: a file that cannot be read or has nothing to run is an ``error`` result among the
    others, never the end of the run (unless it is the only file: exit 2); a file without checks
    tests that its program runs (what it returns is judged); a program whose @main takes
    arguments is checked differentially (conformance/check.py)."""
    from conformance.check import check_program
    from conformance.corpus import iter_file_results, read_test_file
    from conformance.logged_run import run_logged
    from conformance.run import Progress

    files = [path for _, path in mlir_files(args.paths)]
    if len(files) == 1 and read_test_file(files[0])[1]:  # the run's only file is no text at all
        raise UsageError(read_test_file(files[0])[1])
    jobs_option(args.jobs)
    output_folder(args.out)
    output_file(args.junit, "--junit")
    backend = backend_of(args, args.backend)
    bar = Progress(len(files), f"{backend.name} (files)", enabled=not args.quiet)

    def work(on_result):
        for path, results in iter_file_results(files, backend, jobs=args.jobs, timeout=args.timeout,
                                               out_dir=args.out, check=check_program):
            for r in results:
                on_result(r)
            worst = next((r.status for r in results if r.status in FAILING), results[0].status)
            bar.update(worst, os.path.basename(path), cases=len(results))
    path = os.path.join(args.out, "results.json")
    results, stopped = run_logged(backend, path, work)
    return _finish(args, backend.name, f"{backend.name}: {len(results)} corpus cases from {len(files)} files",
                   results, path, stopped)


def cmd_eval(args) -> int:
    import numpy as np

    import oracle
    from oracle.arrays import read_arrays_file

    text = read_text(args.program, "program")
    output_file(args.out, "--out")
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
    from judge.explain import describe
    from judge.results import CaseResult
    from reports.reproducer import read_reproducer

    if os.path.isfile(args.dir):  # a testdata-format .mlir (reports/testdata.py) or any corpus file
        return _repro_file(args)
    try:
        data = read_reproducer(args.dir)
    except OSError as e:
        raise UsageError(f"not a reproducer folder: {e}") from None
    backend = backend_of(args, args.backend)  # (a grid program's inputs come back per process)
    try:
        verdict = check_program(backend, data["module"], data["inputs"], timeout=args.timeout)
    finally:
        backend.close()
    status = Status.ERROR if verdict.status == Status.ERROR_ORACLE else verdict.status
    where = f" ({verdict.op}, {verdict.dtype})" if status in FINDING_STATUSES and verdict.op else ""
    print(f"{backend.name}: {status}{where}" + (f"\n{verdict.message}" if verdict.message else ""))
    entry = verdict.deviation  # (check_program records it on every failure)
    if entry:  # as a campaign counts it and check records it: a listed deviation, not a new finding
        print(f"known deviation: {describe(entry)}")
    if status in FINDING_STATUSES:  # what a fuzz finding's signature is (conformance/replay_findings.py)
        print(f"signature: {signature_of(backend.name, verdict)}")
    result = CaseResult(id=data["case"].get("id", os.path.basename(args.dir)), ops=[verdict.op] if verdict.op else [],
                        dtypes=[verdict.dtype] if verdict.dtype else [], status=status)
    return _replayed([result])


def _repro_file(args) -> int:
    from conformance.corpus import load_cases, run_case

    cases = load_cases(args.dir)
    if not cases:
        raise UsageError(f"no test case in {args.dir}")
    backend = backend_of(args, args.backend)
    try:
        results = [run_case(c, backend, timeout=args.timeout) for c in cases]
    finally:
        backend.close()
    for r in results:
        print(f"{backend.name}: {r.id}: {r.status}" + (f"\n{r.message}" if r.message else ""))
    return _replayed(results)


def _replayed(results) -> int:
    """A replay's last line, and its exit code: 1 while it still fails."""
    code = findings_exit_code(results)
    print("still fails" if code == EXIT_FINDINGS else "no longer fails")
    return code


def cmd_check(args) -> int:
    """Programs (files or folders of .mlir) checked differentially on one backend or several
    (``--backend a,b``: one run per backend in OUT/<backend>/): drawn inputs (or --inputs), dynamic
    dimensions refined to --dims or drawn sizes, every output judged (conformance/check.py)."""
    from conformance.check import DEFAULT_EXAMPLES
    from oracle.arrays import read_arrays_file

    args.examples = DEFAULT_EXAMPLES if args.examples is None else args.examples
    if args.examples < 1:
        raise UsageError(f"--examples {args.examples}: give at least 1")
    jobs_option(args.jobs)
    dims = dimension_sizes(args.dims)
    programs = check_programs(args.paths)
    inputs = read_arrays_file(args.inputs) if args.inputs else None
    names = backend_names(args.backend)
    output_folder(args.out)
    output_file(args.junit, "--junit")
    for name in names[1:]:
        backend_of(args, name).close()  # every backend is usable before the first run starts
    codes, paths = [], []
    for name in names:
        out = args.out if len(names) == 1 else _backend_folder(args.out, name)
        code = _check_one(args, name, out, programs, dims, inputs)
        codes.append(code)
        paths.append(os.path.join(out, "results.json"))
        if code in STOPPED_CODES:
            break
    if len(names) > 1:
        _maybe_junit(args, paths)  # one test suite per backend
    return codes[-1] if codes[-1] in STOPPED_CODES else max(codes)


def _check_one(args, name: str, out: str, programs: list, dims, inputs) -> int:
    from conformance.check import check_texts
    from conformance.logged_run import run_logged
    from conformance.run import Progress

    output_folder(out)
    backend = backend_of(args, name)
    bar = Progress(len(programs) * args.examples, f"{backend.name} (input sets)", enabled=not args.quiet)

    def work(on_result):
        def each(result):
            on_result(result)
            bar.update(result.status, result.id)
        check_texts(programs, backend, examples=args.examples, dims=dims, seed=args.seed, inputs=inputs,
                    timeout=args.timeout, out_dir=out, jobs=args.jobs or os.cpu_count() or 1, on_result=each)
    path = os.path.join(out, "results.json")
    results, stopped = run_logged(backend, path, work, seed=args.seed, examples=args.examples)
    reproducers = os.path.join(out, "reproducers")
    per = "1 given input set" if inputs is not None else f"up to {args.examples} input sets"
    return _finish(args, backend.name, f"{backend.name} vs oracle: {len(results)} cases ({len(programs)} "
                   f"programs, {per} each)", results, path, stopped,
                   reproducers if os.path.isdir(reproducers) else None, junit=len(backend_names(args.backend)) == 1)


def cmd_backends(args) -> int:
    from adapters.registry import backend_lines
    print("\n".join(backend_lines(check=args.check)))
    return EXIT_OK


def cmd_probe(args) -> int:
    from conformance.probe import as_case_results, probe, support_path
    from conformance.run import Progress

    pairs = planned(args)
    backend = backend_of(args, args.backend)
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


def cmd_upstream(args) -> int:
    """An upstream-ready report and standalone reproducer for a finding (conformance/upstream.py)."""
    from .upstream import cmd_upstream as write_upstream
    return write_upstream(args)


def _selected(plan_pairs, args, none_left: str) -> list:
    """``plan_pairs(--ops, --dtypes)``; a usage error naming an unknown op, or saying ``none_left``."""
    try:
        pairs = plan_pairs(listed(args.ops), listed(args.dtypes))
    except KeyError as e:
        raise UsageError(str(e).strip("'\"")) from None
    if not pairs:
        raise UsageError(none_left)
    return pairs


def cmd_exhaustive(args) -> int:
    """Every value of the small float types through each element-wise op (conformance/exhaustive.py)."""
    from .exhaustive import plan_exhaustive, run_exhaustive
    pairs = _selected(plan_exhaustive, args, "no element-wise op takes the small float types asked for")
    backend = backend_of(args, args.backend)
    try:
        sweeps = run_exhaustive(backend, pairs, seed=args.seed, out_dir=args.out, timeout=args.timeout)
    finally:
        backend.close()
    bad = [s for s in sweeps if s.status in FAILING and not s.known_deviation]
    known = sum(1 for s in sweeps if s.known_deviation)
    print(f"{backend.name}: {len(sweeps)} sweeps, {sum(s.values for s in sweeps)} values, {len(bad)} with new "
          f"findings, {known} explained by known deviations; {os.path.join(args.out, 'exhaustive.json')}")
    return EXIT_FINDINGS if bad else EXIT_OK


def cmd_accuracy(args) -> int:
    """Measured ULP error of each element-wise float op x type on a backend (conformance/accuracy.py)."""
    from reports.accuracy import write_table
    from .accuracy import plan_accuracy, run_accuracy

    pairs = _selected(plan_accuracy, args, "no element-wise op with an approximated result takes the element "
                                           "types asked for")
    output_folder(args.out)
    backend = backend_of(args, args.backend)
    try:
        table = run_accuracy(backend, pairs, samples=args.samples, seed=args.seed, timeout=args.timeout,
                             on_row=lambda partial: write_table(partial, args.out))
    finally:
        backend.close()
    json_path, md_path = write_table(table, args.out)
    measured = [r for r in table.rows if r.status == "measured"]
    print(f"{backend.name}: {len(measured)} of {len(table.rows)} op x element type pairs measured; "
          f"tables: {md_path}, {json_path}; HTML: shlo-conform report {args.out} --html accuracy.html")
    return EXIT_OK


def cmd_collectives(args) -> int:
    """Every collective x process-group strategy x grid shape (conformance/grid_coverage.py)."""
    from conformance.grid_coverage import coverage_table, run_coverage
    from conformance.logged_run import run_logged

    ops = collective_names(args.ops)
    dtype = element_types(args.dtype, "--dtype")
    if len(dtype) != 1:
        raise UsageError(f"--dtype: one element type, not {args.dtype}")
    output_folder(args.out)
    backend = backend_of(args, args.backend)
    path = os.path.join(args.out, "results.json")
    results, stopped = run_logged(
        backend, path,
        lambda on_result: run_coverage(backend, dtype=dtype[0], examples=args.max_examples, seed=args.seed,
                                       ops=ops, out_dir=args.out, on_result=on_result),
        seed=args.seed, max_examples=args.max_examples)
    rows = coverage_table(results)
    print(f"{backend.name}: {len(results)} cases (collective x strategy x grid shape, {args.dtype})")
    for key in sorted(rows):
        print(f"  {key:<46} " + "; ".join(f"{status} {count}" for status, count in sorted(rows[key].items())))
    if stopped is not None:
        print(f"INTERRUPTED: the {len(results)} cases that finished are in {path}")
        return stopped_exit_code(stopped)
    print(f"results: {path}")
    return findings_exit_code(results)


#: What each command of the parser (conformance/cli_parser.py) runs.
COMMANDS = {"run": cmd_run, "eval": cmd_eval, "corpus": cmd_corpus, "check": cmd_check, "repro": cmd_repro,
            "upstream": cmd_upstream,
            "report": cmd_report, "certify": cmd_certify, "fuzz": cmd_fuzz, "campaign": cmd_campaign,
            "triage": cmd_triage, "collectives": cmd_collectives, "exhaustive": cmd_exhaustive,
            "backends": cmd_backends, "probe": cmd_probe, "certify-merge": cmd_certify_merge,
            "verify": cmd_verify, "scoreboard": cmd_scoreboard, "accuracy": cmd_accuracy}


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
        return COMMANDS[args.command](args)
    except (UsageError, BadInputFile) as e:
        print(f"shlo-conform: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        print("\ninterrupted", file=sys.stderr)
        return stopped_exit_code(e)


if __name__ == "__main__":
    sys.exit(main())
