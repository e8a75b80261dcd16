"""Tokens and side effects (spec "after_all", "infeed", "outfeed", "send", "recv",
"custom_call").

The oracle runs one process, so the outside world is simulated in the evaluator's Context:

- infeed: ``ctx.infeed`` is the queue the caller supplies; each infeed op with payload
  results reads the oldest entry, which holds its payload values (a sequence of values, or
  one array when the op has exactly one payload result).  An infeed with no payload reads
  nothing.
- outfeed: each outfeed op appends the list of its inputs to ``ctx.outfeed``.
- send / recv: ``ctx.channels[channel_id]`` is a queue of payloads (lists of values); send
  appends, recv takes the oldest.  The caller may pre-fill channels (host to device) and
  read the rest back (device to host): see ``oracle.evaluator.evaluate_with_effects``.

``infeed_config``, ``outfeed_config`` and what ``is_host_transfer`` means are
implementation-defined (the spec); the oracle ignores them.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..allowances import ImplDefined
from .. import lapack  # noqa: F401  registers the lapack_*_ffi targets beside custom_calls' own
from ..custom_calls import TARGETS, compare_custom_call, lookup_target
from ..errors import OracleError, Unsupported
from ..evaluator import TOKEN_VALUE, check_value
from ..registry import add_impl_defined, op
from ..types import ALL_ELEMENT_TYPES, TensorType, TokenType

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)

# ChannelHandle.type values (stablehlo's ChannelType enum)
_DEVICE_TO_DEVICE, _DEVICE_TO_HOST, _HOST_TO_DEVICE = 1, 2, 3
_CHANNEL_TYPE_NAMES = {0: "CHANNEL_TYPE_INVALID", 1: "DEVICE_TO_DEVICE", 2: "DEVICE_TO_HOST", 3: "HOST_TO_DEVICE"}


def _check_tokens(op_, values, label: str) -> None:
    for i, v in enumerate(values):
        if not isinstance(v.type, TokenType):
            raise OracleError(f"{label} #{i} must be a token, got {v.type}", op=op_.name, constraint="I1")


def _payload_and_token(op_) -> list:
    """infeed / recv (C2)-(C4): 0 < size(results), payload tensors first, a token last."""
    results = op_.results
    if not results:  # (C2) / infeed (C1)
        raise OracleError("needs at least one result (the token)", op=op_.name, constraint="C1")
    if not isinstance(results[-1].type, TokenType):  # recv (C4) / infeed (C3)
        raise OracleError(f"the last result must be a token, got {results[-1].type}", op=op_.name, constraint="C3")
    payload = [r.type for r in results[:-1]]
    for i, t in enumerate(payload):
        if not isinstance(t, TensorType):  # recv (C3) / infeed (C2)
            raise OracleError(f"payload result #{i} must be a tensor, got {t}", op=op_.name, constraint="C2")
    return payload


def _take_payload(op_, entry, payload_types, source: str) -> list:
    values = [entry] if isinstance(entry, np.ndarray) and len(payload_types) == 1 else list(entry)
    if len(values) != len(payload_types):
        raise OracleError(f"{source} holds {len(values)} values, the op reads {len(payload_types)}", op=op_.name)
    values = [np.asarray(v) for v in values]
    for i, (t, v) in enumerate(zip(payload_types, values)):
        check_value(t, v, what=f"{op_.name}: value #{i} read from {source}")
    return [np.array(v, copy=True) for v in values]


# ------------------------------------------------------------------------- after_all

@op("stablehlo.after_all", family="side_effects", notes="a token; only orders side effects")
def after_all(op_, args, ctx, env):
    _check_tokens(op_, op_.operands, "input")  # after_all (I1): variadic number of token
    return [TOKEN_VALUE]


# ------------------------------------------------------------------- infeed / outfeed

@op("stablehlo.infeed", fuzz=False, family="side_effects",
    notes="reads the oldest entry of the caller-supplied queue ctx.infeed; infeed_config is ignored")
def infeed(op_, args, ctx, env):
    _check_tokens(op_, op_.operands, "operand")
    payload = _payload_and_token(op_)
    if not payload:
        return [TOKEN_VALUE]
    if not ctx.infeed:
        raise OracleError(f"the infeed queue is empty (supply values with evaluate(..., infeed=[...])); this op "
                          f"reads ({', '.join(map(str, payload))})", op=op_.name)
    return _take_payload(op_, ctx.infeed.pop(0), payload, "the infeed entry") + [TOKEN_VALUE]


@op("stablehlo.outfeed", fuzz=False, family="side_effects",
    notes="appends its inputs to ctx.outfeed; outfeed_config is ignored")
def outfeed(op_, args, ctx, env):
    if not op_.operands or not isinstance(op_.operands[-1].type, TokenType):  # outfeed (I2)
        raise OracleError("the last operand must be a token", op=op_.name, constraint="I2")
    for i, v in enumerate(op_.operands[:-1]):
        if not isinstance(v.type, TensorType):  # outfeed (I1): tensors or quantized tensors
            raise OracleError(f"input #{i} must be a tensor, got {v.type}", op=op_.name, constraint="I1")
    ctx.outfeed.append([np.array(a, copy=True) for a in args[:-1]])
    return [TOKEN_VALUE]


# ------------------------------------------------------------------------ send / recv

def _channel(op_, host_type: int) -> int:
    handle = op_.attr("channel_handle")  # #stablehlo.channel_handle<handle = N, type = T>
    channel_id, channel_type = int(handle["handle"]), int(handle["type"])
    is_host = bool(op_.attr("is_host_transfer", False))
    want = host_type if is_host else _DEVICE_TO_DEVICE
    if channel_type != want:  # send / recv (C1): channel_type follows is_host_transfer
        raise OracleError(f"channel_type is {_CHANNEL_TYPE_NAMES.get(channel_type, channel_type)} but "
                          f"is_host_transfer = {str(is_host).lower()} requires {_CHANNEL_TYPE_NAMES[want]}",
                          op=op_.name, constraint="C1")
    return channel_id


class _GridChannels:
    """The channels of one ``evaluate_parallel`` run, shared by its process threads: a recv
    waits (up to RECV_TIMEOUT seconds) for the matching send of another process."""

    def __init__(self):
        self.cond = threading.Condition()
        self.queues: dict[int, list] = {}

    def put(self, channel_id: int, payload: list) -> None:
        with self.cond:
            self.queues.setdefault(channel_id, []).append(payload)
            self.cond.notify_all()

    def take(self, channel_id: int, op_) -> list:
        with self.cond:
            if not self.cond.wait_for(lambda: self.queues.get(channel_id), RECV_TIMEOUT):
                raise OracleError(f"nothing was sent on channel {channel_id} for {RECV_TIMEOUT:g} s (deadlock?)",
                                  op=op_.name)
            return self.queues[channel_id].pop(0)


#: seconds a recv in a process grid waits for a send before reporting a deadlock
RECV_TIMEOUT = 60.0
_GRID_CHANNELS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # Rendezvous -> _GridChannels
_GRID_LOCK = threading.Lock()


def _grid_channels(ctx) -> _GridChannels | None:
    """The channels shared by the processes of the grid ctx evaluates in (None: one process)."""
    process = ctx.extra.get("process")
    rendezvous = getattr(process, "rendezvous", None)
    if rendezvous is None:
        return None
    with _GRID_LOCK:
        if rendezvous not in _GRID_CHANNELS:
            _GRID_CHANNELS[rendezvous] = _GridChannels()
        return _GRID_CHANNELS[rendezvous]


@op("stablehlo.send", fuzz=False, family="side_effects",
    notes="appends its inputs to ctx.channels[channel_id] (in a process grid: to the grid's shared channel)")
def send(op_, args, ctx, env):
    channel_id = _channel(op_, _DEVICE_TO_HOST)
    if not op_.operands or not isinstance(op_.operands[-1].type, TokenType):  # send (I2)
        raise OracleError("the last operand must be a token", op=op_.name, constraint="I2")
    payload = [np.array(a, copy=True) for a in args[:-1]]
    shared = _grid_channels(ctx)
    if shared is not None:
        shared.put(channel_id, payload)
    else:
        ctx.channels.setdefault(channel_id, []).append(payload)
    return [TOKEN_VALUE]


@op("stablehlo.recv", family="side_effects", notes="takes the oldest payload of ctx.channels[channel_id]",
    fuzz=False)
def recv(op_, args, ctx, env):
    channel_id = _channel(op_, _HOST_TO_DEVICE)
    _check_tokens(op_, op_.operands, "operand")
    payload = _payload_and_token(op_)
    shared = _grid_channels(ctx)
    if shared is not None:
        entry = shared.take(channel_id, op_)
    else:
        queue = ctx.channels.get(channel_id)
        if not queue:
            raise OracleError(f"nothing was sent on channel {channel_id} (this process is alone: a send must come "
                              f"first, or the caller pre-fills ctx.channels[{channel_id}])", op=op_.name)
        entry = queue.pop(0)
    return _take_payload(op_, entry, payload, f"channel {channel_id}") + [TOKEN_VALUE]


# ------------------------------------------------------------------------ custom_call

@op("stablehlo.custom_call", family="side_effects", element_types=_ALL_NAMES, fuzz=False,
    extra={"compare": compare_custom_call},  # per-target judges (oracle/custom_calls.py, oracle/lapack.py)
    notes="evaluates targets registered in oracle/custom_calls.py; generated cases use the Sharding target")
def custom_call(op_, args, ctx, env):
    name = op_.attr("call_target_name")
    target = lookup_target(name)
    if target is None:
        known = ", ".join(sorted(TARGETS)) or "none"
        raise Unsupported(f"custom_call target {name!r} is not registered in oracle/custom_calls.py "
                          f"(the oracle knows: {known})", op=op_.name, location=op_.location)
    return target(op_, args, ctx)


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    ImplDefined("custom_call", "always", "the callee is whatever the implementation binds",
                'custom_call: "Encapsulates an implementation-defined operation call_target_name"',
                None),
    ImplDefined("infeed", "always", "data comes from outside the program",
                'infeed: "Semantics of infeed_config is implementation-defined."', None),
    ImplDefined("recv", "always", "data comes from another process or the host",
                'recv: "If is_host_transfer is true, then the operation transfers data from the '
                'host. Otherwise, it transfers data from another device. What this means is '
                'implementation-defined."', None),
)
