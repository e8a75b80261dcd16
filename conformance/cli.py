"""``shlo-conform``: the command-line interface (a stable interface: users script against it).

The CLI parses, calls the command's module and prints.  Exit codes (conformance/exits.py):
0 = everything passed, 1 = mismatches / crashes / timeouts / errors found, 2 = usage or input
error, 130 / 143 = stopped by Ctrl-C / SIGTERM (what finished is written).  A command imports
its modules when it runs: a command loads only what it uses.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

from judge.status import FAILING, Status
from oracle.errors import BadInputFile

from .cli_arguments import (UsageError, backend_names, check_programs, collective_names, dimension_sizes,
                            element_types, fuzz_ops, jobs_option, listed, mlir_files, op_names, output_file,
                            output_folder, planned, read_text, usable_backend)
from .exits import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, STOPPED_CODES, findings_exit_code, stoppable, stopped_by,
                    stopped_exit_code)

#: The parts of a certification, as its summary.json names them.
RESULT_KINDS = ("differential", "spec-example", "corpus")


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


def _finish(args, backend_name: str, title: str, results, path: str, stopped, reproducers=None,
            junit: bool = True) -> int:
    """The closing summary, --junit (unless the caller writes it for several runs at once), and the
    exit code (130 / 143 when Ctrl-C / SIGTERM stopped it)."""
    from reports.summary import closing_summary, exit_code

    print(closing_summary(title, backend_name, results, results_path=path, reproducers=reproducers,
                          expect_known=getattr(args, "expect_known", False), interrupted=stopped_by(stopped)))
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
        usable_backend(name).close()  # every backend is usable before the first run starts
    codes, runs = [], {}
    for name in names:
        path_name = name.replace("/", "_").replace(" ", "_")
        results: list = []
        code = _run_one(args, name, os.path.join(args.out, path_name), pairs, keep=results, junit=False)
        codes.append(code)
        runs[name] = (results, os.path.join(args.out, path_name, "results.json"))
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


def _run_one(args, name: str, out: str, pairs, keep: list | None = None, junit: bool = True) -> int:
    from conformance.logged_run import run_logged
    from conformance.run import run_differential

    output_folder(out)
    output_file(args.junit, "--junit")
    backend = usable_backend(name)
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
        from reports.html import load_run
        from reports.junit import write_junit
        print(f"junit: {write_junit(args.junit, [load_run(path) for path in results_paths])}")


def cmd_report(args) -> int:
    from reports.html import load_run, render_report
    from reports.results import atomic_write_text

    if not (args.html or args.junit):
        raise UsageError("nothing to write: give --html OUT.html and/or --junit OUT.xml")
    output_file(args.html, "--html")
    output_file(args.junit, "--junit")
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

    ops, dtypes = op_names(args.ops), element_types(args.dtypes)
    output_folder(args.out)
    backend = usable_backend(args.backend)
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
    from conformance.logged_run import run_logged
    from conformance.run import Progress

    files = [path for _, path in mlir_files(args.paths)]
    if len(files) == 1 and read_test_file(files[0])[1]:  # the run's only file is no text at all
        raise UsageError(read_test_file(files[0])[1])
    jobs_option(args.jobs)
    output_folder(args.out)
    output_file(args.junit, "--junit")
    backend = usable_backend(args.backend)
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
    from judge.known_deviations import describe, entry_of
    from reports.reproducer import read_reproducer
    from reports.results import CaseResult

    if os.path.isfile(args.dir):  # a testdata-format .mlir (reports/testdata.py) or any corpus file
        return _repro_file(args)
    try:
        data = read_reproducer(args.dir)
    except OSError as e:
        raise UsageError(f"not a reproducer folder: {e}") from None
    backend = usable_backend(args.backend)  # (a grid program's inputs come back per process)
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
    return _replayed([result])


def _repro_file(args) -> int:
    from conformance.corpus import load_cases, run_case

    cases = load_cases(args.dir)
    if not cases:
        raise UsageError(f"no test case in {args.dir}")
    backend = usable_backend(args.backend)
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
        usable_backend(name).close()  # every backend is usable before the first run starts
    codes, paths = [], []
    for name in names:
        out = args.out if len(names) == 1 else os.path.join(args.out, name.replace("/", "_").replace(" ", "_"))
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
    backend = usable_backend(name)
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
    from adapters import BACKEND_NAMES, all_backend_names, get_backend
    from adapters.plugins import describe
    for name in all_backend_names():
        backend = None
        try:
            backend = get_backend(name)
            ok, why = backend.available()
        except Exception as e:  # an adapter that cannot even be built is reported, not raised
            ok, why = False, f"{type(e).__name__}: {e}"
        finally:
            if backend is not None:
                backend.close()
        if name not in BACKEND_NAMES:
            why = f"{describe(name)}; {why}" if why else describe(name)
        print(f"{name:<16} {'usable' if ok else 'not usable'}" + (f"  ({why})" if why else ""))
    print("cmd:TEMPLATE     any program: --backend 'cmd:RUNNER {program} {inputs} {outputs}' (see README)")
    return EXIT_OK


def cmd_probe(args) -> int:
    from conformance.probe import as_case_results, probe, support_path
    from conformance.run import Progress

    pairs = planned(args)
    backend = usable_backend(args.backend)
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
    ops = fuzz_ops(args)
    dtypes = element_types(args.dtypes)
    exclude_dtypes = element_types(args.exclude_dtypes, "--exclude-dtypes") or ()
    names = listed(args.backend) or []
    if not names or len(set(names)) != len(names):
        raise UsageError(f"--backend: one backend or a comma-separated list without repeats (got {args.backend!r})")
    output_folder(args.out)
    backends = []
    try:
        for name in names:
            backends.append(usable_backend(name))
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
    output_folder(out)
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
    output_folder(args.out)
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
        return stopped_exit_code(stopped)
    return EXIT_USAGE if any(s["state"] != "finished" or s["error"] for s in summary["shards"]) else code


def _triaged(dirs: list[str], out: str, *, replay: bool, timeout: float) -> int:
    """Triage of campaign folders, printed, with triage.json / triage.html in ``out``."""
    from conformance.triage import KNOWN, NEW, STALE, triage, write_report

    backends: dict = {}

    def backend_named(name: str):
        if name not in backends:
            backends[name] = usable_backend(name)
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
        pairs = plan_exhaustive(listed(args.ops), listed(args.dtypes))
    except KeyError as e:
        raise UsageError(str(e).strip("'\"")) from None
    if not pairs:
        raise UsageError("no element-wise op takes the small float types asked for")
    backend = usable_backend(args.backend)
    try:
        sweeps = run_exhaustive(backend, pairs, seed=args.seed, out_dir=args.out, timeout=args.timeout)
    finally:
        backend.close()
    bad = [s for s in sweeps if s.status in FAILING and not s.known_deviation]
    known = sum(1 for s in sweeps if s.known_deviation)
    print(f"{backend.name}: {len(sweeps)} sweeps, {sum(s.values for s in sweeps)} values, {len(bad)} with new "
          f"findings, {known} explained by known deviations; {os.path.join(args.out, 'exhaustive.json')}")
    return EXIT_FINDINGS if bad else EXIT_OK


def cmd_collectives(args) -> int:
    """Every collective x process-group strategy x grid shape (conformance/grid_coverage.py)."""
    from conformance.grid_coverage import coverage_table, run_coverage
    from conformance.logged_run import run_logged

    ops = collective_names(args.ops)
    dtype = element_types(args.dtype, "--dtype")
    if len(dtype) != 1:
        raise UsageError(f"--dtype: one element type, not {args.dtype}")
    output_folder(args.out)
    backend = usable_backend(args.backend)
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


# ------------------------------------------------------------ options several commands share
# Each is declared once here; a command adds them in the order its --help lists them.

#: ``--ops`` / ``--dtypes`` of the commands that take any op of the oracle.
ALL_OPS_HELP = "comma-separated op names (default: every op the oracle can generate)"
ALL_DTYPES_HELP = "comma-separated element types (default: every type each op takes)"


def _backend_options(parser, *, out: bool = True) -> None:
    """--backend and --timeout; with ``out``, --out and --quiet too."""
    parser.add_argument("--backend", required=True, help="see `shlo-conform backends`")
    _timeout_option(parser)
    if out:
        parser.add_argument("--out", default="results", help="folder for results.json and reproducers")
        _quiet_option(parser)


def _timeout_option(parser) -> None:
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per backend run")


def _quiet_option(parser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress display")


def _selection_options(parser, *, ops: str = ALL_OPS_HELP, dtypes: str = ALL_DTYPES_HELP) -> None:
    """--ops and --dtypes, with the command's own words for their defaults."""
    parser.add_argument("--ops", help=ops)
    parser.add_argument("--dtypes", help=dtypes)


def _max_examples_option(parser, default: int, help: str | None = None) -> None:
    parser.add_argument("--max-examples", type=int, default=default, help=help)


def _jobs_option(parser, what: str) -> None:
    """--jobs: ``what`` runs that many at once."""
    parser.add_argument("--jobs", type=int, default=None, help=f"{what} at once (default: one per core)")


def _seed_option(parser) -> None:
    parser.add_argument("--seed", type=int, default=0)


def _results_options(parser) -> None:
    """--junit and --expect-known: how a run's results are handed on and what fails it."""
    parser.add_argument("--junit", help="also write the results as JUnit XML to this file")
    parser.add_argument("--expect-known", action="store_true",
                        help="exit 0 when every failure is a deviation listed in judge/deviations/BACKEND.toml")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shlo-conform", description="StableHLO differential conformance suite")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="differential run: one-op programs on a backend vs the oracle")
    _backend_options(r)
    _selection_options(r)
    _max_examples_option(r, 2, "cases per op x element type (default 2: every pair, a few minutes on 2 cores; "
                               "`certify` is the exhaustive run)")
    _jobs_option(r, "backend worker processes")
    _seed_option(r)
    _results_options(r)
    r.set_defaults(fn=cmd_run)  # --backend a,b: a run per backend in OUT/<backend>/, compared on
    # the implementation-defined elements (portability hazards: "divergent")

    e = sub.add_parser("eval", help="evaluate a program on the oracle and print its outputs")
    e.add_argument("program")
    e.add_argument("--inputs", help=".npz with the inputs in order (arg0, arg1, ...)")
    e.add_argument("--out", help="write the outputs to this .npz")
    e.set_defaults(fn=cmd_eval)

    c = sub.add_parser("corpus", help="run test files (interpret or testdata format) on a backend")
    c.add_argument("paths", nargs="+")
    _backend_options(c)
    _jobs_option(c, "worker processes reading, running and judging files")
    _results_options(c)
    c.set_defaults(fn=cmd_corpus)

    ck = sub.add_parser("check", help="your own programs (files or folders of .mlir) differentially on a backend: "
                                      "drawn or given inputs, dynamic shapes refined, every output judged")
    ck.add_argument("paths", nargs="+", metavar="PATH")
    _backend_options(ck)
    ck.add_argument("--inputs", help=".npz with one input set for @main (arg0, arg1, ... or names, in order)")
    ck.add_argument("--examples", type=int, default=None,
                    help="input sets per program (default: one of each kind: mild values, the special values, "
                         "edge-reaching values)")
    ck.add_argument("--dims", help="sizes of the dynamic dimensions: NAME=SIZE,... (JAX's dimension variables) "
                                   "or SIZE for every one (default: small sizes drawn per input set)")
    _seed_option(ck)
    _jobs_option(ck, "input sets run")
    _results_options(ck)
    ck.set_defaults(fn=cmd_check)

    rp = sub.add_parser("repro", help="replay a reproducer (folder, or testdata .mlir) on a backend")
    rp.add_argument("dir", help="a reproducer folder, or a testdata-format .mlir file")
    _backend_options(rp, out=False)
    rp.set_defaults(fn=cmd_repro)

    rep = sub.add_parser("report", help="one self-contained HTML page (and/or JUnit XML) from results.json files")
    rep.add_argument("paths", nargs="+", help="results.json files or folders holding one")
    rep.add_argument("--html", help="write the HTML report here")
    rep.add_argument("--junit", help="write JUnit XML here")
    rep.set_defaults(fn=cmd_report)

    ce = sub.add_parser("certify", help="fixed-seed run of everything on a backend: report + summary")
    _backend_options(ce)
    ce.set_defaults(out="certify")
    _selection_options(ce, ops="comma-separated op names (default: all)",
                       dtypes="comma-separated element types (default: all the backend claims)")
    _max_examples_option(ce, 3)
    _seed_option(ce)
    ce.add_argument("--no-corpus", action="store_true", help="skip the interpreter corpus")
    ce.add_argument("--no-spec", action="store_true", help="skip the spec examples")
    ce.set_defaults(fn=cmd_certify)

    fz = sub.add_parser("fuzz", help="fuzz campaign: random multi-op programs vs the oracle, shrunk findings")
    _backend_options(fz)
    fz.set_defaults(out="fuzz")
    fz.add_argument("--minutes", type=float, help="stop after this many minutes")
    fz.add_argument("--programs", type=int, help="stop after this many programs")
    _seed_option(fz)
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
    _timeout_option(tr)
    tr.set_defaults(fn=cmd_triage)

    co = sub.add_parser("collectives", help="every collective x process-group strategy x grid shape on a backend")
    _backend_options(co)
    co.add_argument("--ops", help="comma-separated collectives (default: all six)")
    co.add_argument("--dtype", default="f32")
    _max_examples_option(co, 1)
    _seed_option(co)
    co.set_defaults(fn=cmd_collectives)

    ex = sub.add_parser("exhaustive", help="element-wise ops over every value of f16/bf16/f8/f6/f4 (binary: "
                                           "every pair of <=8-bit values) vs the oracle")
    _backend_options(ex)
    ex.set_defaults(out="exhaustive")
    _selection_options(ex, ops="comma-separated op names (default: every element-wise op)",
                       dtypes="comma-separated small float types (default: all of them)")
    _seed_option(ex)
    ex.set_defaults(fn=cmd_exhaustive)

    b = sub.add_parser("backends", help="list the backends and whether they are usable here")
    b.set_defaults(fn=cmd_backends)

    pr = sub.add_parser("probe", help="which op x element type pairs a backend accepts (cached on disk)")
    _backend_options(pr, out=False)
    _selection_options(pr)
    pr.add_argument("--refresh", action="store_true", help="probe again even what is cached")
    _seed_option(pr)
    _quiet_option(pr)
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
        return stopped_exit_code(e)


if __name__ == "__main__":
    sys.exit(main())
