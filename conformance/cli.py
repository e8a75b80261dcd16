"""``shlo-conform``: the command-line interface (a stable interface: users script against it).

Exit codes: 0 = everything passed, 1 = mismatches / crashes / timeouts / errors found,
2 = usage or input error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


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


def _print_summary(title: str, results, stream=sys.stdout):
    """A table: one row per op, one column per status, and a total row."""
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


def cmd_run(args) -> int:
    from conformance.run import plan, run_differential
    from reports.results import write_results

    backend = _backend(args.backend)
    ops = [o.strip() for o in args.ops.split(",") if o.strip()] if args.ops else None
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()] if args.dtypes else None
    try:
        pairs = plan(ops, dtypes)
    except KeyError as e:
        raise UsageError(e.args[0]) from None
    if not pairs:
        raise UsageError("nothing to run: no generatable op x element type matches the filters")
    os.makedirs(args.out, exist_ok=True)
    started = time.time()
    try:
        results = run_differential(backend, pairs, max_examples=args.max_examples, seed=args.seed,
                                   out_dir=args.out, timeout=args.timeout, progress=not args.quiet)
    finally:
        backend.close()
    path = os.path.join(args.out, "results.json")
    write_results(path, backend.name, results, seed=args.seed, max_examples=args.max_examples,
                  seconds=round(time.time() - started, 1))
    _print_summary(f"{backend.name} vs oracle: {len(results)} cases, {len(pairs)} op x dtype pairs", results)
    print(f"\nresults: {path}")
    return _exit_code(results)


def cmd_corpus(args) -> int:
    from conformance.corpus import load_cases, run_case
    from conformance.run import Progress
    from reports.results import write_results

    backend = _backend(args.backend)
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(dp, f) for dp, _, fs in os.walk(p) for f in fs if f.endswith(".mlir"))
        elif os.path.exists(p):
            files.append(p)
        else:
            raise UsageError(f"no such file or directory: {p}")
    cases = []
    for f in files:
        cases += load_cases(f)
    bar = Progress(len(cases), backend.name, enabled=not args.quiet)
    results = []
    try:
        for c in cases:
            r = run_case(c, backend, timeout=args.timeout)
            results.append(r)
            bar.update(r.status, r.id)
    finally:
        backend.close()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "results.json")
    write_results(path, backend.name, results)
    _print_summary(f"{backend.name}: {len(results)} corpus cases from {len(files)} files", results)
    print(f"\nresults: {path}")
    return _exit_code(results)


def cmd_eval(args) -> int:
    import numpy as np

    import oracle
    from reports.arrays import load_arrays

    try:
        text = open(args.program).read()
    except OSError as e:
        raise UsageError(f"cannot read {args.program}: {e.strerror}") from None
    try:
        module = oracle.parse_module(text, filename=args.program)
    except oracle.MlirError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    inputs = load_arrays(args.inputs) if args.inputs else []
    try:
        outputs = oracle.evaluate(module, inputs)
    except oracle.OracleError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    with np.printoptions(threshold=200):
        for i, (t, v) in enumerate(zip(module.main.result_types, outputs)):
            print(f"result #{i}: {t}\n{v!r}")
    if args.out:
        from reports.arrays import save_arrays
        save_arrays(args.out, outputs)
    return EXIT_OK


def cmd_repro(args) -> int:
    from conformance.run import Case, check_case
    import oracle
    from reports.reproducer import read_reproducer

    try:
        data = read_reproducer(args.dir)
    except OSError as e:
        raise UsageError(f"not a reproducer folder: {e}") from None
    backend = _backend(args.backend)
    module = oracle.parse_module(data["program"], filename=os.path.join(args.dir, "program.mlir"))
    op = next((o.name for o in module.main.ops if o.name.startswith("stablehlo.")), "")
    from oracle.types import element_type_of_dtype
    case = Case(data["case"].get("id", os.path.basename(args.dir)), op,
                [element_type_of_dtype(x.dtype).name for x in data["inputs"]], module, data["program"],
                data["inputs"])
    try:
        r = check_case(case, backend, timeout=args.timeout)
    finally:
        backend.close()
    print(f"{backend.name}: {r.status}" + (f"\n{r.message}" if r.message else ""))
    return _exit_code([r])


def cmd_backends(args) -> int:
    from adapters import BACKEND_NAMES, get_backend
    for name in BACKEND_NAMES:
        try:
            ok, why = get_backend(name).available()
        except Exception as e:  # an adapter that cannot even be built is reported, not raised
            ok, why = False, f"{type(e).__name__}: {e}"
        print(f"{name:<16} {'usable' if ok else 'not usable'}" + (f"  ({why})" if why else ""))
    return EXIT_OK


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
    r.add_argument("--max-examples", type=int, default=5)
    r.add_argument("--seed", type=int, default=0)
    r.set_defaults(fn=cmd_run)

    e = sub.add_parser("eval", help="evaluate a program on the oracle and print its outputs")
    e.add_argument("program")
    e.add_argument("--inputs", help=".npz with the inputs in order (arg0, arg1, ...)")
    e.add_argument("--out", help="write the outputs to this .npz")
    e.set_defaults(fn=cmd_eval)

    c = sub.add_parser("corpus", help="run test files (interpret or testdata format) on a backend")
    c.add_argument("paths", nargs="+")
    backend_options(c)
    c.set_defaults(fn=cmd_corpus)

    rp = sub.add_parser("repro", help="replay a reproducer folder on a backend")
    rp.add_argument("dir")
    backend_options(rp, out=False)
    rp.set_defaults(fn=cmd_repro)

    b = sub.add_parser("backends", help="list the backends and whether they are usable here")
    b.set_defaults(fn=cmd_backends)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    if getattr(args, "max_examples", 1) is not None and getattr(args, "max_examples", 1) < 1:
        print("shlo-conform: error: --max-examples must be >= 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        return args.fn(args)
    except UsageError as e:
        print(f"shlo-conform: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
