"""Crashes bucketed by where they abort (judge/messages.py crash_site): the
site parser on crash texts as XLA, IREE and torch print them, and a campaign on a backend that
aborts at two sites from many ops reports exactly two crash findings, each listing its ops."""

from __future__ import annotations

import json
import os

import pytest

import oracle
from adapters.base import RunResult
from adapters.oracle_backend import OracleBackend
from conformance.fuzz import Campaign, Verdict, signature_of
from judge.messages import crash_site
from conformance.triage import collect

XLA_ABORT = "crashed while compiling: xla worker killed by SIGABRT (signal 6); stderr:\n"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))


# ------------------------------------------------------------------ the site parser

@pytest.mark.parametrize("message, site", [
    # glog's fatal line: time, pid and folders differ from run to run, the site does not
    (XLA_ABORT + "F1127 01:02:03.456789    4242 external/xla/xla/hlo/ir/hlo_sharding.cc:1436] Check failed: "
                 "!IsManualLeaf() && !IsUnknownLeaf() \n*** Check failure stack trace: ***\n"
                 "PC: @     0x7f3a1c2b3d4e  (unknown)  abort",
     "hlo_sharding.cc:1436 Check failed: !IsManualLeaf() && !IsUnknownLeaf()"),
    (XLA_ABORT + "F0000 00:00:1711111111.999 77 hlo_sharding.cc:1436] Check failed: "
                 "!IsManualLeaf() && !IsUnknownLeaf()",
     "hlo_sharding.cc:1436 Check failed: !IsManualLeaf() && !IsUnknownLeaf()"),
    # XLA's warnings on a grid program come first (glog W lines, with locations): not the site
    (XLA_ABORT + "W1127 12:01:21.634988   14797 py_client.cc:496] Module has GSPMD attrs or ops, but Shardy is "
                 "enabled.\nW1127 12:01:21.639566   14827 sharding_propagation.cc:3132] GSPMD sharding propagation "
                 "is going to be deprecated\nF1127 12:01:21.639852   14827 hlo_sharding.cc:1436] Check failed: "
                 "!IsManualLeaf() && !IsUnknownLeaf() \n*** Check failure stack trace: ***",
     "hlo_sharding.cc:1436 Check failed: !IsManualLeaf() && !IsUnknownLeaf()"),
    # a LOG(FATAL) message, as the issue quotes it
    ("hlo_instruction.cc:1615 Invalid binary instruction opcode parameter",
     "hlo_instruction.cc:1615 Invalid binary instruction opcode parameter"),
    # values in the check's message are normalized: other shapes, same bucket
    (XLA_ABORT + "F0000 00:00:1700000000.123 4242 spmd_partitioner.cc:5715] Check failed: "
                 "lhs_rank == 3 (2 vs. 3) for tensor<4x8xf32>",
     "spmd_partitioner.cc:5715 Check failed: lhs_rank == N (N vs. N) for tensor<...>"),
    # a signal with absl's PC line: the signal and the backend's frame, no address
    ("crashed while running: xla worker killed by SIGFPE (signal 8); stderr:\n"
     "*** SIGFPE received at time=1700000000 on cpu 1 ***\n"
     "PC: @     0x7f3a1c2b3d4e  (unknown)  xla::cpu::IrEmitter::HandleAllGather()\n"
     "[failure_signal_handler.cc : 345] RAW: Signal 8 raised at PC=0x7f3a1c2b3d4e while already in "
     "FailureSignalHandler()",
     "SIGFPE in xla::cpu::IrEmitter::HandleAllGather()"),
    # torch: faulthandler's Python frames; the generated kernel's temporary file is no part of it,
    # nor are the harness's frames (adapters/)
    ("crashed while running: torch-inductor worker killed by SIGFPE (signal 8); stderr:\n"
     "Fatal Python error: Floating point exception\n\nCurrent thread 0x00007f0d12345678 (most recent call first):\n"
     '  File "/var/cache/torchinductor_root/c3/cc3xyzabc.py", line 57 in call\n'
     '  File "/work/.venv/lib/python3.11/site-packages/torch/_inductor/output_code.py", line 460 in __call__\n'
     '  File "/work/main/adapters/torch_backend.py", line 300 in run',
     "SIGFPE in <generated>:call < torch/_inductor/output_code.py:__call__"),
    # IREE's compiler: LLVM's stack dump, whose first frames are the signal handler's
    ("crashed while compiling: iree-compile killed by SIGSEGV; stderr:\n"
     "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.\n"
     "Stack dump:\n0.\tProgram arguments: iree-compile - --iree-input-type=stablehlo\n"
     " #0 0x00007f2c5d1e2a3b llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) /src/Unix/Signals.inc:723:0\n"
     " #1 0x00007f2c5d1e0b2c llvm::sys::RunSignalHandlers() /src/Support/Signals.cpp:106:0\n"
     " #2 0x00007f2c59842520 (/lib/x86_64-linux-gnu/libc.so.6+0x42520)\n"
     " #3 0x00007f2c5e0f1234 mlir::iree_compiler::foldPadIntoConv(mlir::Operation*) /src/PadFold.cpp:88:0\n"
     " #4 0x00007f2c5e0f5678 mlir::detail::walk(mlir::Operation*) /src/Visitors.cpp:12:0",
     "SIGSEGV in mlir::iree_compiler::foldPadIntoConv(mlir::Operation*) < mlir::detail::walk(mlir::Operation*)"),
    ("iree-compile: /src/iree/compiler/Foo.cpp:12: void f(): Assertion `rank > 0' failed.",
     "Foo.cpp:12 void f(): Assertion `rank > N' failed."),
    ("crashed: LLVM ERROR: Cannot select: 0x55aa12: f16 = fpext 0x55bb34", "Cannot select: N: T = fpext N"),
    ("terminate called after throwing an instance of 'std::out_of_range'\n"
     "  what():  vector::_M_range_check: __n (which is 5) >= this->size() (which is 3)",
     "terminate called after throwing an instance of 'std::out_of_range': vector::_M_range_check: __n "
     "(which is N) >= this->size() (which is N)"),
    # a signal alone says nothing of where: no site (the crash keeps its op and type)
    ("process grid 4 x 1: crashed while compiling: xla worker killed by SIGFPE (signal 8)", ""),
    ("worker died (SIGSEGV)", ""),
])
def test_crash_site(message, site):
    assert crash_site(message) == site


def test_a_crash_with_a_site_is_bucketed_by_it_and_one_without_by_op_and_type():
    site = "F0000 00:00:1700000000.1 1 hlo_sharding.cc:1436] Check failed: !IsManualLeaf()"
    a = Verdict("crash", XLA_ABORT + site, "stablehlo.atan", "f16")
    b = Verdict("crash", XLA_ABORT + site.replace("1700000000.1 1", "1711111111.9 77"), "stablehlo.all_reduce", "f32")
    assert signature_of("xla", a) == signature_of("xla", b) == \
        "xla|at hlo_sharding.cc:1436 Check failed: !IsManualLeaf()|*|crash"
    assert signature_of("xla", Verdict("crash", "worker died (SIGFPE)", "stablehlo.divide", "i32")) == \
        "xla|divide|i32|crash"
    assert signature_of("xla", Verdict("mismatch", XLA_ABORT + site, "stablehlo.add", "f32")) == "xla|add|f32|mismatch"


# --------------------------------------------------- a backend that aborts at two sites

#: site -> the ops whose compilation reaches it (a pass shared by several ops)
SITES = {
    "hlo_sharding.cc:1436] Check failed: !IsManualLeaf() && !IsUnknownLeaf()": ("sine", "cosine", "tanh"),
    "hlo_instruction.cc:1615] Invalid binary instruction opcode parameter": ("multiply", "subtract", "maximum"),
}


class AbortsAtTwoSites(OracleBackend):
    """The oracle, except that compiling a program with one of SITES' ops aborts at that site,
    with glog's line (its time and pid differ each time) as XLA prints it."""
    name = "aborts-at-two-sites"

    def __init__(self):
        super().__init__()
        self.aborts = 0

    def run_many(self, program, input_sets, timeout=60):
        for site, ops in SITES.items():
            if any(f"\"stablehlo.{op}\"" in program for op in ops):
                self.aborts += 1
                message = (f"crashed while compiling: {self.name} worker killed by SIGABRT (signal 6); stderr:\n"
                           f"F1127 01:02:{self.aborts % 60:02d}.{self.aborts:06d} {4000 + self.aborts} "
                           f"/build-{self.aborts}/xla/{site}\n*** Check failure stack trace: ***")
                return [RunResult("crash", None, message) for _ in input_sets]
        return super().run_many(program, input_sets, timeout)


def _ops():
    return [oracle.lookup(f"stablehlo.{n}") for ops in SITES.values() for n in ops] + \
        [oracle.lookup("stablehlo.add"), oracle.lookup("stablehlo.negate")]


def test_a_campaign_reports_one_finding_per_crash_site_listing_its_ops(tmp_path):
    backend = AbortsAtTwoSites()
    out = tmp_path / "campaign"
    summary = Campaign(backend, str(out), seed=5, progress=False, ops=_ops(), max_ops=3, input_sets=1,
                       dtypes=["f32", "f16", "bf16"]).run(max_programs=40)
    crashes = [f for f in summary["findings"] if f["status"] == "crash"]
    assert len(crashes) == 2 and len(summary["findings"]) == 2, [f["signature"] for f in summary["findings"]]
    for finding in crashes:
        site = next(s for s in SITES if s.split("]")[0] in finding["signature"])
        ops = {op for op, _ in finding["seen_with"]}
        assert ops <= set(SITES[site]), (site, finding["seen_with"])
        assert len(finding["seen_with"]) >= 2, finding  # many (op, type) pairs, one finding
        # finding.json lists them too
        records = [json.load(open(out / "findings" / d / "finding.json")) for d in os.listdir(out / "findings")]
        assert next(r for r in records if r["signature"] == finding["signature"])["seen_with"] == finding["seen_with"]
    assert summary["known_repeats"] > 0  # the same site reached again: counted, not reported again
    # triage merges by bucket: the two findings, each with the pairs every folder saw
    items = collect([str(out)])
    assert sorted(items) == sorted(f["signature"] for f in crashes)
    assert all(len(item.seen_with) >= 2 for item in items.values())


# ------------------------------------------------- counting finite outputs

def test_finite_elements_reads_signalling_nans_without_a_warning():
    import warnings

    import ml_dtypes
    import numpy as np

    from conformance.fuzz import finite_elements

    snan_f32 = np.array([0x7F800001, 0x3F800000, 0x7F800000], np.uint32).view(np.float32)  # sNaN, 1, inf
    snan_bf16 = np.array([0x7F81, 0x3F80, 0x0000, 0xFF80], np.uint16).view(ml_dtypes.bfloat16)  # sNaN, 1, 0, -inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # widening them to float64 raised 'invalid value encountered in cast'
        assert finite_elements([snan_f32, snan_bf16, np.array([1, 2], np.int8), np.array(np.nan + 1j)]) == (5, 10)
