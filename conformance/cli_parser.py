"""``shlo-conform``'s command line: every command, its options and their help.

Options several commands take are declared once (one helper per group); a command adds them in
the order its ``--help`` lists them.  Users script against these names: they do not change.
"""

from __future__ import annotations

import argparse

#: ``--ops`` / ``--dtypes`` of the commands that take any op of the oracle.
ALL_OPS_HELP = "comma-separated op names (default: every op the oracle can generate)"
ALL_DTYPES_HELP = "comma-separated element types (default: every type each op takes)"
#: ``accuracy``: random draws per op x element type too wide to sweep over every value.
ACCURACY_SAMPLES = 4096


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


def _accuracy_option(parser) -> None:
    """--accuracy: the profile that judges what the spec leaves to the implementation's precision."""
    parser.add_argument("--accuracy", default="default", metavar="PROFILE",
                        help="accuracy profile for the values the spec gives no accuracy for (transcendentals, "
                             "inexact converts): default, correctly-rounded, opencl-full, xla-exhaustive, or a "
                             "TOML file in the tolerance table's format (docs/judging.md#accuracy); outside it a "
                             "case is `inaccurate`, which never fails a run")


def _results_options(parser) -> None:
    """--junit and --expect-known: how a run's results are handed on and what fails it."""
    parser.add_argument("--junit", help="also write the results as JUnit XML to this file")
    parser.add_argument("--expect-known", action="store_true",
                        help="exit 0 when every failure is a deviation listed in judge/deviations/BACKEND.toml")


def _deviations_option(parser) -> None:
    """--deviations: the submitter's known deviations, counted apart from the suite's."""
    parser.add_argument("--deviations", metavar="FILE",
                        help="your own known deviations of the backend (TOML, the format of judge/deviations/; "
                             "entries may have link and versions): applied after the suite's and reported as "
                             "waived by the submitter")


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
    _accuracy_option(r)
    _results_options(r)
    _deviations_option(r)
    # --backend a,b: a run per backend in OUT/<backend>/, compared on the implementation-defined
    # elements (portability hazards: "divergent")

    e = sub.add_parser("eval", help="evaluate a program on the oracle and print its outputs")
    e.add_argument("program")
    e.add_argument("--inputs", help=".npz with the inputs in order (arg0, arg1, ...)")
    e.add_argument("--out", help="write the outputs to this .npz")

    c = sub.add_parser("corpus", help="run test files (interpret or testdata format) on a backend")
    c.add_argument("paths", nargs="+")
    _backend_options(c)
    _jobs_option(c, "worker processes reading, running and judging files")
    _accuracy_option(c)
    _results_options(c)

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
    _accuracy_option(ck)
    _results_options(ck)
    _deviations_option(ck)

    rp = sub.add_parser("repro", help="replay a reproducer (folder, or testdata .mlir) on a backend")
    rp.add_argument("dir", help="a reproducer folder, or a testdata-format .mlir file")
    _backend_options(rp, out=False)

    up = sub.add_parser("upstream", help="a finding as an upstream bug report: report.md and a standalone "
                                         "reproducer on the backend's own packages (--blame, --versions)")
    up.add_argument("finding", nargs="?", help="a reproducer folder, a fuzz finding folder, results.json#CASE-ID, "
                                               "or a deviation entry FILE:INDEX (e.g. xla:5)")
    up.add_argument("--backend", help="the backend (default: the reproducer's, or the entry's first)")
    _timeout_option(up)
    up.add_argument("--out", default="upstream", help="folder for report.md, reproduce.py and the inputs")
    up.add_argument("--blame", action="store_true",
                    help="turn each optimisation switch of the backend off in turn; name those that fix it")
    up.add_argument("--versions", metavar="SPEC",
                    help="replay on released versions, e.g. 'jaxlib>=0.7,<=0.10.2' (a venv per version, cached)")
    up.add_argument("--shrink-seconds", type=float, default=60.0, help="time for shrinking the program")
    up.add_argument("--all-entries", action="store_true",
                    help="a report per entry of the backend's deviation file, and index.md")
    up.add_argument("--entries", help="with --all-entries: only these entry numbers (comma-separated)")
    up.add_argument("--entries-file", help="with --all-entries: the deviation file's stem (default: the backend's)")

    rep = sub.add_parser("report", help="one self-contained HTML page (and/or JUnit XML) from results.json files")
    rep.add_argument("paths", nargs="+", help="results.json files or folders holding one")
    rep.add_argument("--html", help="write the HTML report here")
    rep.add_argument("--junit", help="write JUnit XML here")

    ce = sub.add_parser("certify", help="fixed-seed run of everything on a backend: report + summary")
    _backend_options(ce)
    ce.set_defaults(out="certify")
    _selection_options(ce, ops="comma-separated op names (default: all)",
                       dtypes="comma-separated element types (default: all the backend claims)")
    _max_examples_option(ce, 3)
    _seed_option(ce)
    ce.add_argument("--no-corpus", action="store_true", help="skip the interpreter corpus")
    ce.add_argument("--no-spec", action="store_true", help="skip the spec examples")
    _jobs_option(ce, "backend worker processes")
    _deviations_option(ce)
    _accuracy_option(ce)
    ce.add_argument("--statement", metavar="FILE",
                    help="TOML with what you state about the submission (product, device, contact, ...): "
                         "copied into the package's statement.toml")
    ce.add_argument("--archive", action="store_true", help="also write the package as OUT.tar.gz")
    ce.add_argument("--shard", metavar="i/N",
                    help="certify slice i of N of the plan (0 <= i < N: pairs i, i + N, ...; the spec examples "
                         "and the corpus go with slice 0; join the slices with certify-merge)")

    cm = sub.add_parser("certify-merge", help="one submission package from the shards of one certify plan")
    cm.add_argument("dirs", nargs="+", metavar="DIR", help="the shards' packages (certify --shard i/N --out DIR)")
    cm.add_argument("--out", required=True, help="folder for the merged package")
    cm.add_argument("--archive", action="store_true", help="also write the package as OUT.tar.gz")

    ve = sub.add_parser("verify", help="check a submission package: integrity, plan, verdict (re-judged here)")
    ve.add_argument("package", help="a certify --out folder, or its .tar.gz")
    ve.add_argument("--rerun", type=int, default=0, metavar="N",
                    help="also rerun every failing case and N passing ones on --backend, comparing with the package")
    ve.add_argument("--backend", help="the backend --rerun runs on (default: the package's)")
    _timeout_option(ve)

    sb = sub.add_parser("scoreboard", help="one HTML page across submission packages: op x backend matrix, "
                                           "op x element type heat maps, statements")
    sb.add_argument("packages", nargs="+", metavar="PACKAGE")
    sb.add_argument("--html", required=True, help="write the page here")

    fz = sub.add_parser("fuzz", help="fuzz campaign: random multi-op programs vs the oracle, shrunk findings")
    _backend_options(fz)
    fz.set_defaults(out="fuzz")
    fz.add_argument("--minutes", type=float, help="stop after this many minutes")
    fz.add_argument("--programs", type=int, help="stop after this many programs")
    _seed_option(fz)
    fz.add_argument("--shard", default="0/1", help="i/N: this machine's share of a campaign (seeds differ)")
    fz.add_argument("--max-ops", type=int, default=8, help="ops per program (1..N)")
    fz.add_argument("--input-sets", type=int, default=3, help="input sets per compiled program")
    _accuracy_option(fz)
    fz.add_argument("--grid", action="store_true",
                    help="programs on random process grids (up to 8): collectives mixed with ordinary ops")
    fz.add_argument("--database", help="redis://host:port: the findings store shards share (default: one folder "
                                       "per backend and version under the cache dir, see adapters/cache.py)")
    fz.add_argument("--ops", help="comma-separated ops to draw (default: every op random programs draw)")
    fz.add_argument("--exclude-ops", help="comma-separated ops never to draw")
    fz.add_argument("--dtypes", help="comma-separated element types ops are drawn for")
    fz.add_argument("--exclude-dtypes", help="comma-separated element types never drawn for an op")
    _deviations_option(fz)
    fz.add_argument("--include-known", action="store_true",
                    help="also run what the probe cache or the deviation table says a backend refuses or crashes on")
    fz.add_argument("--mode", help="programs drawn: random (DAGs), mutation (mutants of real programs, --seeds), "
                                   "template (fusion-prone patterns) or mixed (a third of each; the default, except "
                                   "that --ops, --exclude-ops, --dtypes, --exclude-dtypes and --grid mean random)")
    fz.add_argument("--seeds", help="folder (or .mlir file) of real programs mutation mode mutates "
                                    "(default: suites/data/jax_programs)")

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

    tr = sub.add_parser("triage", help="fuzz findings of campaign folders by signature, each replayed: "
                                       "new / known deviation / stale, with an HTML report")
    tr.add_argument("dirs", nargs="+", metavar="DIR", help="fuzz campaign output folders (shards, nights)")
    tr.add_argument("--out", help="folder for triage.json and triage.html (default: the first DIR)")
    tr.add_argument("--no-replay", action="store_true", help="sort by the deviation table only (no stale)")
    _timeout_option(tr)

    co = sub.add_parser("collectives", help="every collective x process-group strategy x grid shape on a backend")
    _backend_options(co)
    co.add_argument("--ops", help="comma-separated collectives (default: all six)")
    co.add_argument("--dtype", default="f32")
    _max_examples_option(co, 1)
    _seed_option(co)

    ex = sub.add_parser("exhaustive", help="element-wise ops over every value of f16/bf16/f8/f6/f4 (binary: "
                                           "every pair of <=8-bit values) vs the oracle")
    _backend_options(ex)
    ex.set_defaults(out="exhaustive")
    _selection_options(ex, ops="comma-separated op names (default: every element-wise op)",
                       dtypes="comma-separated small float types (default: all of them)")
    _seed_option(ex)

    ac = sub.add_parser("accuracy", help="measured ULP error per element-wise float op x type on a backend "
                                         "(Markdown + JSON table; the HTML report shows it)")
    _backend_options(ac)
    ac.set_defaults(out="accuracy")
    _selection_options(ac, ops="comma-separated op names (default: every element-wise op with an approximated result)",
                       dtypes="comma-separated element types (default: f16,bf16,f32,f64,complex<f32>,complex<f64>)")
    ac.add_argument("--samples", type=int, default=ACCURACY_SAMPLES,
                    help=f"random draws per op x type too wide to sweep every value (default: {ACCURACY_SAMPLES})")
    _seed_option(ac)
    _accuracy_option(ac)

    b = sub.add_parser("backends", help="list the backends and whether they are installed (--check: usable) here")
    b.add_argument("--check", action="store_true", help="start each backend to confirm that it is usable here")

    pr = sub.add_parser("probe", help="which op x element type pairs a backend accepts (cached on disk)")
    _backend_options(pr, out=False)
    _selection_options(pr)
    pr.add_argument("--refresh", action="store_true", help="probe again even what is cached")
    _seed_option(pr)
    _quiet_option(pr)
    return p
