"""Oracle tests for tokens and side effects: after_all, infeed, outfeed, send, recv and
custom_call (hand-computed values; the interpret corpus runs the official tests)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

import oracle
from oracle import ir
from oracle.custom_calls import TARGETS, custom_call_target
from oracle.errors import OracleError, Unsupported
from oracle.evaluator import evaluate_with_effects
from oracle.grid import evaluate_parallel
from suites.test_oracle_structural import check_drawn_signatures
from suites.test_oracle_structural import run1

TOKEN = oracle.TOKEN_VALUE


def test_after_all_with_no_and_several_inputs():
    text = """func.func @main(%t: !stablehlo.token) -> (!stablehlo.token, !stablehlo.token) {
  %a = stablehlo.after_all : !stablehlo.token
  %b = stablehlo.after_all %a, %t, %a : !stablehlo.token
  func.return %a, %b : !stablehlo.token, !stablehlo.token
}"""
    assert run1(text, TOKEN) == [TOKEN, TOKEN]


# ======================================================================== infeed

INFEED = """func.func @main(%token: !stablehlo.token) -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<i1>, !stablehlo.token) {
  %r0:2 = "stablehlo.infeed"(%token) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  %r1:3 = "stablehlo.infeed"(%r0#1) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2x2xi64>, tensor<i1>, !stablehlo.token)
  func.return %r0#0, %r1#0, %r1#1, %r1#2 : tensor<2x2xi64>, tensor<2x2xi64>, tensor<i1>, !stablehlo.token
}"""


def test_infeed_reads_the_queue_in_order():
    """The spec's example: infeed_queue[0] goes to the first infeed, [1] to the second
    (here with a second payload value)."""
    q0 = np.array([[1, 2], [3, 4]], np.int64)
    q1 = np.array([[5, 6], [7, 8]], np.int64)
    module = oracle.parse_module(INFEED)
    out, ctx = evaluate_with_effects(module, [TOKEN], infeed=[q0, (q1, np.array(True)), q0])
    assert out[0].tolist() == q0.tolist() and out[1].tolist() == q1.tolist() and bool(out[2]) and out[3] is TOKEN
    assert len(ctx.infeed) == 1  # the third entry was not read


@pytest.mark.parametrize("queue, message", [
    ([], "infeed queue is empty"),
    ([np.zeros((2, 2), np.int64)], "infeed queue is empty"),
    ([np.zeros((2, 3), np.int64)], "does not match type tensor<2x2xi64>"),
    ([np.zeros((2, 2), np.int32)], "element type i64"),
    ([np.zeros((2, 2), np.int64), (np.zeros((2, 2), np.int64),)], "holds 1 values, the op reads 2"),
])
def test_infeed_queue_errors(queue, message):
    with pytest.raises(OracleError, match=message):
        oracle.evaluate(oracle.parse_module(INFEED), [TOKEN], infeed=queue)


def test_infeed_without_payload_reads_nothing():
    text = """func.func @main(%t: !stablehlo.token) -> !stablehlo.token {
  %r = "stablehlo.infeed"(%t) : (!stablehlo.token) -> !stablehlo.token
  func.return %r : !stablehlo.token
}"""
    out, ctx = evaluate_with_effects(oracle.parse_module(text), [TOKEN], infeed=[np.zeros(1)])
    assert out == [TOKEN] and len(ctx.infeed) == 1


# ======================================================================= outfeed

def test_outfeed_captures_every_execution_in_order():
    """An outfeed in a loop body writes once per iteration; values are copies."""
    text = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  %z = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %z, %v = %x, %tok = %t) : tensor<i32>, tensor<2xi32>, !stablehlo.token
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %tok2 = "stablehlo.outfeed"(%v, %i, %tok) {outfeed_config = ""} : (tensor<2xi32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    %w = stablehlo.add %v, %v : tensor<2xi32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %w, %tok2 : tensor<i32>, tensor<2xi32>, !stablehlo.token
  }
  func.return %r#1 : tensor<2xi32>
}"""
    out, ctx = evaluate_with_effects(oracle.parse_module(text), [np.array([1, -1], np.int32)])
    assert out[0].tolist() == [8, -8]
    assert [(v.tolist(), int(i)) for v, i in ctx.outfeed] == [([1, -1], 0), ([2, -2], 1), ([4, -4], 2)]


# =================================================================== send / recv

def _send_recv(send_type: int, recv_type: int, host: str) -> str:
    return f"""func.func @main(%x: tensor<2xf32>, %t: !stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>, !stablehlo.token) {{
  %s0 = "stablehlo.send"(%x, %t) {{channel_handle = #stablehlo.channel_handle<handle = 5, type = {send_type}>,
                                   is_host_transfer = {host}}} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %n = stablehlo.negate %x : tensor<2xf32>
  %s1 = "stablehlo.send"(%n, %s0) {{channel_handle = #stablehlo.channel_handle<handle = 5, type = {send_type}>,
                                   is_host_transfer = {host}}} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %r0:2 = "stablehlo.recv"(%s1) {{channel_handle = #stablehlo.channel_handle<handle = 5, type = {recv_type}>,
                                  is_host_transfer = {host}}} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %r1:2 = "stablehlo.recv"(%r0#1) {{channel_handle = #stablehlo.channel_handle<handle = 5, type = {recv_type}>,
                                  is_host_transfer = {host}}} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  func.return %r0#0, %r1#0, %r1#1 : tensor<2xf32>, tensor<2xf32>, !stablehlo.token
}}"""


def test_send_then_recv_on_one_channel_is_first_in_first_out():
    x = np.array([1.5, -0.0], np.float32)
    a, b, t = run1(_send_recv(1, 1, "false"), x, TOKEN)
    assert a.tolist() == [1.5, 0.0] and np.signbit(a[1]) and b.tolist() == [-1.5, 0.0] and t is TOKEN


def test_host_channels_are_filled_and_read_by_the_caller():
    """Host transfers: what the device sends stays for the host; recv reads what the host put."""
    text = """func.func @main(%x: tensor<i8>, %t: !stablehlo.token) -> tensor<i8> {
  %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
                                 is_host_transfer = true} : (tensor<i8>, !stablehlo.token) -> !stablehlo.token
  %r:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>,
                               is_host_transfer = true} : (!stablehlo.token) -> (tensor<i8>, !stablehlo.token)
  func.return %r#0 : tensor<i8>
}"""
    out, ctx = evaluate_with_effects(oracle.parse_module(text), [np.array(7, np.int8), TOKEN],
                                     channels={2: [[np.array(-3, np.int8)]]})
    assert int(out[0]) == -3 and [[int(v) for v in p] for p in ctx.channels[1]] == [[7]] and ctx.channels[2] == []
    with pytest.raises(OracleError, match="nothing was sent on channel 2"):
        oracle.evaluate(oracle.parse_module(text), [np.array(7, np.int8), TOKEN])


@pytest.mark.parametrize("op_name, host", [("stablehlo.send", True), ("stablehlo.recv", True),
                                           ("stablehlo.send", False)])
def test_channel_type_must_follow_is_host_transfer(op_name, host):
    """send / recv (C1), on IR built by hand (MLIR's verifier rejects the text)."""
    module = oracle.parse_module(_send_recv(2, 3, "true") if not host else _send_recv(1, 1, "false"))
    main = module.main
    ops = tuple(dataclasses.replace(o, attributes={**o.attributes, "is_host_transfer": ir.BoolAttr(host)})
                if o.name == op_name else o for o in main.ops)
    module = ir.Module((dataclasses.replace(main, ops=ops),))
    if op_name == "stablehlo.recv":
        ctx = oracle.Context(module, channels={5: [[np.zeros(2, np.float32)]] * 2})
    else:
        ctx = oracle.Context(module)
    with pytest.raises(OracleError, match=rf"{op_name}.*\(C1\) channel_type is"):
        oracle.evaluate(module, [np.zeros(2, np.float32), TOKEN], context=ctx)


def test_send_and_recv_between_processes_of_a_grid():
    """Process 0 sends, process 1 receives (it waits for the send); two channels in opposite
    directions at once."""
    text = """func.func @main(%x: tensor<2xi32>, %t: !stablehlo.token) -> tensor<2xi32> {
  %rid = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %first = stablehlo.compare EQ, %rid, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %r = "stablehlo.if"(%first) ({
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
                                   is_host_transfer = false} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %v:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
                                 is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    stablehlo.return %v#0 : tensor<2xi32>
  }, {
    %v:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
                                 is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %w = stablehlo.add %v#0, %x : tensor<2xi32>
    %s = "stablehlo.send"(%w, %v#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
                                      is_host_transfer = false} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    stablehlo.return %w : tensor<2xi32>
  }) : (tensor<i1>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}"""
    if oracle.lookup("stablehlo.replica_id") is None:
        pytest.skip("replica_id is not implemented")
    module = oracle.parse_module(text)
    inputs = {(0, 0): [np.array([1, 2], np.int32), TOKEN], (1, 0): [np.array([10, 20], np.int32), TOKEN]}
    out = evaluate_parallel(module, inputs, num_replicas=2, num_partitions=1)
    assert out[(0, 0)][0].tolist() == [11, 22] and out[(1, 0)][0].tolist() == [11, 22]


# =================================================================== custom_call

def test_custom_call_sharding_is_the_identity():
    text = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}"""
    x = np.array([np.inf, -0.0, 1.0], np.float32)
    (out,) = run1(text, x)
    assert out.view(np.uint32).tolist() == x.view(np.uint32).tolist()


def test_unknown_custom_call_target_is_named():
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.custom_call @foo(%x) {backend_config = {bar = 42 : i32}, api_version = 4 : i32} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""
    with pytest.raises(Unsupported, match=r"stablehlo.custom_call at .*custom_call target 'foo' is not registered"):
        run1(text, np.array(1.0, np.float32))


def test_registered_targets_see_attributes_and_called_computations():
    text = """func.func private @double(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %a : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
func.func @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = stablehlo.custom_call @stablehlo_conformance.call(%x) {called_computations = [@double]} : (tensor<2xi32>) -> tensor<2xi32>
  %1 = stablehlo.custom_call @test.scale(%x) {api_version = 4 : i32, backend_config = {factor = 3 : i32}, has_side_effect = true} : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0, %1 : tensor<2xi32>, tensor<2xi32>
}"""
    assert "test.scale" not in TARGETS

    @custom_call_target("test.scale")
    def scale(op, args, ctx):
        return [args[0] * np.int32(op.attr("backend_config")["factor"])]
    try:
        doubled, scaled = run1(text, np.array([1, -2], np.int32))
    finally:
        del TARGETS["test.scale"]
    assert doubled.tolist() == [2, -4] and scaled.tolist() == [3, -6]
    with pytest.raises(ValueError, match="registered twice"):
        custom_call_target("Sharding")(lambda op, args, ctx: args)


def test_drawn_custom_calls_verify_and_evaluate():
    assert len(check_drawn_signatures("stablehlo.custom_call", max_examples=15)) == 15


def test_loading_the_ops_registers_the_lapack_targets():
    """custom_call's targets include jaxlib's LAPACK FFI calls (oracle/lapack.py) as soon as the op
    records load, whatever else a process imported (a fresh interpreter, as the CLI starts)."""
    code = ("import oracle; oracle.all_ops()\n"
            "from oracle.custom_calls import TARGETS\n"
            "print(sum(name.startswith('lapack_') for name in TARGETS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) > 0
