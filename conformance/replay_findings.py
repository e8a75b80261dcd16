"""Replay every finding of fuzz campaign folders through its own command.txt, as a user would
(a fresh process each), and count those that fail again under the same signature (exit 1 and
the ``signature:`` line of ``shlo-conform repro``) and those that do not:

    python -m conformance.replay_findings DIR... [--timeout S]

Exit 0 when every finding replays, 1 when one does not, 2 on a folder that is not a campaign's.
Unlike ``shlo-conform triage`` (which replays in one process, to sort findings), this checks
the campaign's promise: every finding replays through its own command."""

from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def findings_of(folder: str) -> list[tuple[str, str]]:
    """(signature, reproducer folder) of every finding written in a campaign folder."""
    if not any(os.path.exists(os.path.join(folder, name)) for name in ("findings", "summary.json")):
        raise ValueError(f"{folder}: not a fuzz campaign folder (no findings/ or summary.json in it)")
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "findings", "*", "finding.json"))):
        with open(path) as f:
            record = json.load(f)
        found.append((record["signature"], record["reproducer"]))
    return found


def replay(reproducer: str, timeout: float = 600) -> tuple[int, str]:
    """Run the reproducer's command.txt: (exit code, the signature it printed or "")."""
    with open(os.path.join(reproducer, "command.txt")) as f:
        words = shlex.split(f.read())
    if words[:1] == ["shlo-conform"]:  # the CLI of this checkout, whatever is installed
        words = [sys.executable, "-m", "conformance.cli", *words[1:]]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        done = subprocess.run(words, capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, ""
    signature = next((line.split(":", 1)[1].strip() for line in done.stdout.splitlines()
                      if line.startswith("signature:")), "")
    return done.returncode, signature


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.replay_findings", description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    try:
        findings = [item for folder in args.dirs for item in findings_of(folder)]
    except (ValueError, OSError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    same = 0
    for signature, reproducer in findings:
        code, now = replay(reproducer, args.timeout)
        ok = code == 1 and now == signature
        same += ok
        print(f"{'replays ' if ok else 'DIFFERS '} {signature}" + ("" if ok else f" (exit {code}, now {now or 'no failure'})")
              + f": {reproducer}")
    print(f"{same} of {len(findings)} findings replay through their command.txt")
    return 0 if same == len(findings) else 1


if __name__ == "__main__":
    sys.exit(main())
