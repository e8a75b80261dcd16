"""The fuzzing commands: ``fuzz`` (one campaign on this machine), ``campaign`` (its shards on rq
workers sharing one Redis) and ``triage`` (their findings by signature, each replayed).  Each
checks its options, calls conformance/fuzz.py, cluster.py or triage.py, and prints."""

from __future__ import annotations

import os
import sys

from .cli_arguments import UsageError, backend_of, element_types, fuzz_ops, listed, output_folder, usable_backend
from .cli_parser import build_parser
from .exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, stoppable, stopped_exit_code


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
            backends.append(backend_of(args, name))
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
            backends[name] = usable_backend(name)  # (replayed under the default accuracy profile)
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
