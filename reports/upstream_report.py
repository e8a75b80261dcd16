"""report.md of ``shlo-conform upstream``: one finding in the shape a compiler's tracker expects.

The facts come assembled (conformance/upstream.py); this module only lays them out: a title
naming the op and the wrong behaviour, the versions, "already reported as ..." where the
deviation entry has a link, the (shrunk) program, its inputs, the expected value with its
derivation (the specification's sentence and the computation on the operands), the actual
value, why the program is well defined, the standalone reproducer, and what ``--blame`` and
``--versions`` found.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class UpstreamFacts:
    title: str
    backend: str
    versions: dict                   # package -> version the finding was seen with
    program: str                     # the shrunk StableHLO program
    inputs: list                     # (type text, literal text) per @main argument
    spec_sentence: str               # the op's Semantics paragraph, verbatim
    derivation: list                 # one line per checked element: operands -> the spec's value
    actual: list                     # one line per checked element: what the backend returned
    well_defined: list               # why no implementation-defined element is compared
    script: str = "reproduce.py"
    script_needs: str = ""
    script_run: str = ""             # what the script printed, run without this suite, and its exit status
    commands: list = field(default_factory=list)   # iree-compile / iree-run-module lines, where they exist
    link: str = ""                   # the upstream issue the deviation entry links
    entry: str = ""                  # FILE:INDEX and the entry's reason, when one explains it
    blame: dict | None = None        # the standalone script's --blame answer
    version_range: dict | None = None  # upstream_versions' answer
    shrunk_from: int = 0             # ops before shrinking


def _block(text: str, lang: str = "") -> str:
    return f"```{lang}\n{text.rstrip()}\n```\n"


def blame_text(blame: dict | None) -> str:
    if blame is None:
        return "not run (`shlo-conform upstream --blame`)"
    if blame.get("error"):
        return f"could not be run: {blame['error']}"
    minimal = [f"{k}={v}" for k, v in blame.get("minimal", [])]
    if not blame.get("tried"):
        return ("none: this backend configuration has no optimisation switch to turn off" if blame.get("listed")
                else "no switch could be tried (listing the compiler's switches died)")
    if not minimal:
        return f"none: no single switch, nor all {blame.get('tried', 0)} together, makes it disappear"
    alone = [f"{k}={v}" for k, v in blame.get("alone", [])]
    if alone:
        return (f"each of these alone makes it disappear: {', '.join(f'`{a}`' for a in alone)} "
                f"({blame.get('tried', 0)} switches tried)")
    return f"the minimal set that makes it disappear: {', '.join(f'`{m}`' for m in minimal)}"


def range_text(found: dict | None) -> str:
    if found is None:
        return "not run (`shlo-conform upstream --versions SPEC`)"
    tried = ", ".join(f"{v}: {o}" for v, o in found.get("tried", {}).items())
    return f"{found['summary']} (replayed: {tried})"


def render_report(f: UpstreamFacts) -> str:
    lines = [f"# {f.title}\n"]
    if f.link:
        lines.append(f"**Already reported as {f.link}**\n")
    lines.append("## Versions\n")
    lines += [f"- {k} {v}" for k, v in f.versions.items()] + [f"- backend configuration: `{f.backend}`", ""]
    lines.append("## Program\n")
    shrunk = f" (shrunk from {f.shrunk_from} ops)" if f.shrunk_from > f.program.count("\"stablehlo.") else ""
    lines.append(f"The StableHLO program{shrunk}:\n")
    lines.append(_block(f.program, "mlir"))
    lines.append("Inputs (@main's arguments, in order):\n")
    for k, (ty, literal) in enumerate(f.inputs):
        lines.append(f"- `%arg{k}`: `{ty}` = `{literal}`")
    lines.append("\n## Expected\n")
    lines.append("From the StableHLO specification:\n")
    lines.append("> " + f.spec_sentence.replace("\n", "\n> ") + "\n")
    lines += [f"- {d}" for d in f.derivation] + [""]
    lines.append("## Actual\n")
    lines += [f"- {a}" for a in f.actual] + [""]
    lines.append("## Why the program is well defined\n")
    lines += [f"- {w}" for w in f.well_defined] + [""]
    if f.entry:
        lines.append(f"Listed as a known deviation of this suite ({f.entry}).\n")
    lines.append("## Reproduce\n")
    lines.append(f"`{f.script}` needs only {f.script_needs}; it prints expected against actual and exits 1 "
                 "while the bug is there, 0 once it is fixed:\n")
    lines.append(_block(f"python {f.script}", "sh"))
    if f.script_run:
        lines.append("Its output here (run without this suite):\n")
        lines.append(_block(f.script_run))
    if f.commands:
        lines.append("The same with the command-line tools (inputs as .npy files beside this report):\n")
        lines.append(_block("\n".join(f.commands), "sh"))
    lines.append("## Which optimisation\n")
    lines.append(blame_text(f.blame) + "\n")
    lines.append("## Versions affected\n")
    lines.append(range_text(f.version_range) + "\n")
    return "\n".join(lines)


def render_index(rows: list[dict]) -> str:
    """The index page of ``upstream --all-entries``: one row per entry."""
    out = ["# Upstream reports\n", "| entry | op | report | reproduces | blame | link |", "|---|---|---|---|---|---|"]
    for r in rows:
        report = f"[report]({r['folder']}/report.md)" if r.get("folder") else r.get("problem", "")
        out.append(f"| {r['entry']} | {r.get('op', '')} | {report} | {r.get('reproduces', '')} | "
                   f"{r.get('blame', '')} | {r.get('link', '')} |")
    return "\n".join(out) + "\n"
