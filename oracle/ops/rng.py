"""Random numbers (spec "rng_bit_generator", "rng").

rng_bit_generator
    The spec makes the output a deterministic function of ``initial_state`` but leaves the
    algorithm open: DEFAULT is implementation-defined, THREE_FRY and PHILOX are
    "implementation-defined variant[s]" of the Salmon et al. (SC 2011) generators.  The
    oracle implements XLA's variants bit for bit (the de facto standard: jax's PRNG keys
    and every XLA backend use them), recorded in oracle/impl_defined.py; DEFAULT is
    evaluated as XLA's PHILOX and compared only by shape, type and a state that advances.

    XLA's layout, in words (xla/hlo/builder/lib/prng.cc and rng_bit_generator_expander):

    * THREE_FRY: key = state[0], counter = state[1].  Threefry-2x32 with 20 rounds encrypts
      the 64-bit counter ``state[1] + i`` (split into its low and high 32-bit words) under
      the key's two 32-bit words.  64-bit outputs take one block per element (low word
      first); outputs of 32 bits and less take one 32-bit word per element: the shape is
      split in two along its first even dimension (else its largest), the block's word 0
      fills the even positions of that dimension and word 1 the odd ones.  Narrower types
      keep the low bits of the word.  The new state is [key, counter + blocks used].
    * PHILOX: key = state[0]; the 128-bit counter is (low, high) = (state[1], state[0]) for
      a 2-element state, (state[1], state[2]) for a 3-element one.  Philox-4x32 with 10
      rounds encrypts ``counter + i`` (128-bit addition) under the key's two 32-bit words;
      the four words of block i fill elements 4i..4i+3 (32 bits and less, low bits kept)
      or the word pairs (0,1) and (2,3) fill elements 2i, 2i+1 (64 bits).  The new state
      is [key, new counter's low word] or [key, low, high].

rng
    The spec fixes the distribution only (UNIFORM over [a, b), NORMAL with mean a and
    standard deviation b); backends are compared with it statistically
    (oracle/statistical.py), never bit for bit.  The oracle draws from numpy's PCG64
    seeded with a counter of the rng ops evaluated in the Context, so a program evaluates
    the same way every time.
"""

from __future__ import annotations

import math

import numpy as np

from ..allowances import ImplDefined, Tolerance
from ..impl_defined_masks import rng_bit_generator_default
from ..errors import OracleError, UndefinedBehavior
from ..numerics import from_bits, round_to
from ..registry import add_impl_defined, op, record_facts
from ..types import ALL_ELEMENT_TYPES, TensorType, as_element_type
from ..statistical import compare_rng, compare_rng_bit_generator
from ._checks import reject_quantized

__all__ = ["threefry2x32", "philox4x32", "rng_bits", "ALGORITHMS", "BIT_GENERATOR_TYPES", "RNG_TYPES"]

ALGORITHMS = ("DEFAULT", "THREE_FRY", "PHILOX")

#: rng_bit_generator's output: "tensor of integer or floating-point type" (i1 is boolean).
BIT_GENERATOR_TYPES = tuple(t.name for t in ALL_ELEMENT_TYPES if t.is_integer or t.is_float)
#: rng's a, b and result: "integer, boolean, or floating-point type".
RNG_TYPES = tuple(t.name for t in ALL_ELEMENT_TYPES if t.is_integer or t.is_bool or t.is_float)

_U32 = np.uint32
_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)


def _split64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """uint64 -> (low, high) uint32 words."""
    x = np.asarray(x, dtype=_U64)
    return (x & _MASK32).astype(_U32), (x >> _U64(32)).astype(_U32)


def _join64(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(_U64) | (hi.astype(_U64) << _U64(32))


# ------------------------------------------------------------------------ Threefry-2x32

_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_THREEFRY_PARITY = 0x1BD11BDA


def threefry2x32(x0: np.ndarray, x1: np.ndarray, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32, 20 rounds (Salmon et al. 2011), on arrays of uint32 counter words."""
    ks = (_U32(k0), _U32(k1), _U32(k0 ^ k1 ^ _THREEFRY_PARITY))
    x0 = np.asarray(x0, dtype=_U32) + ks[0]
    x1 = np.asarray(x1, dtype=_U32) + ks[1]
    for block in range(5):  # 5 x 4 rounds, a key injection after each group of 4
        for r in _THREEFRY_ROTATIONS[4 * (block % 2):4 * (block % 2) + 4]:
            x0 = x0 + x1
            x1 = (x1 << _U32(r)) | (x1 >> _U32(32 - r))
            x1 = x1 ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + _U32(block + 1)
    return x0, x1


# -------------------------------------------------------------------------- Philox-4x32

_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def _mulhilo(x: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    product = x.astype(_U64) * _U64(m)  # < 2**64: exact
    return (product >> _U64(32)).astype(_U32), (product & _MASK32).astype(_U32)


def philox4x32(words: tuple, k0: int, k1: int, rounds: int = 10) -> tuple:
    """Philox-4x32 (Salmon et al. 2011), ``rounds`` rounds, on four arrays of uint32 words."""
    x0, x1, x2, x3 = (np.asarray(w, dtype=_U32) for w in words)
    for r in range(rounds):  # the key is raised by the Weyl constants after every round
        key0, key1 = (_U32((k + r * w) & 0xFFFFFFFF) for k, w in zip((k0, k1), _PHILOX_W))
        hi0, lo0 = _mulhilo(x0, _PHILOX_M[0])
        hi1, lo1 = _mulhilo(x2, _PHILOX_M[1])
        x0, x1, x2, x3 = hi1 ^ x1 ^ key0, lo1, hi0 ^ x3 ^ key1, lo0
    return x0, x1, x2, x3


# ---------------------------------------------------------------- XLA's bit layouts

def _split_shape(shape: tuple) -> tuple[int, tuple]:
    """The dimension XLA halves for <= 32-bit Threefry outputs: the first even one, else
    the first largest one (-1 for rank 0)."""
    if not shape:
        return -1, ()
    even = [d for d, n in enumerate(shape) if n % 2 == 0]
    dim = even[0] if even else int(np.argmax(shape))
    half = shape[:dim] + ((shape[dim] + 1) // 2,) + shape[dim + 1:]
    return dim, half


def _threefry_bits(key: int, counter: int, shape: tuple, bits: int) -> tuple[np.ndarray, int]:
    """(uint64 bit patterns of ``shape``, counter blocks used)."""
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    if bits == 64:
        n = math.prod(shape)
        ctr = _U64(counter) + np.arange(n, dtype=_U64)
        y0, y1 = threefry2x32(*_split64(ctr), k0, k1)
        return _join64(y0, y1).reshape(shape), n
    dim, half = _split_shape(shape)
    n = math.prod(half) if shape else 1
    ctr = _U64(counter) + np.arange(n, dtype=_U64)
    y0, y1 = threefry2x32(*_split64(ctr), k0, k1)
    if not shape:
        return y0[:1].astype(_U64).reshape(()), n
    # word 0 -> even, word 1 -> odd positions along ``dim``; drop the extra one if odd
    pair = np.stack([y0.reshape(half), y1.reshape(half)], axis=dim + 1)
    merged = pair.reshape(half[:dim] + (2 * half[dim],) + half[dim + 1:])
    out = np.take(merged, np.arange(shape[dim]), axis=dim)
    return out.astype(_U64), n


def _add128(lo: int, hi: int, n: int) -> tuple[int, int]:
    """(lo, hi) + n modulo 2**128, on Python ints."""
    total = (hi << 64 | lo) + n
    return total & ((1 << 64) - 1), (total >> 64) & ((1 << 64) - 1)


def _counters128(lo: int, hi: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The 128-bit counters (lo, hi) + i for i < count, as uint64 arrays (low words wrap,
    carrying one into the high word)."""
    c_lo = _U64(lo) + np.arange(count, dtype=_U64)
    return c_lo, _U64(hi) + (c_lo < _U64(lo)).astype(_U64)


def _philox_bits(key: int, lo: int, hi: int, shape: tuple, bits: int) -> tuple[np.ndarray, tuple]:
    """(uint64 bit patterns of ``shape``, the new 128-bit counter (lo, hi))."""
    n = math.prod(shape)
    per_block = 2 if bits == 64 else 4
    blocks = -(-n // per_block)
    c_lo, c_hi = _counters128(lo, hi, blocks)
    words = philox4x32((*_split64(c_lo), *_split64(c_hi)), key & 0xFFFFFFFF, key >> 32)
    if bits == 64:
        words = (_join64(words[0], words[1]), _join64(words[2], words[3]))
    flat = np.stack([w.astype(_U64) for w in words], axis=1).reshape(-1)[:n]
    return flat.reshape(shape), _add128(lo, hi, blocks)


def rng_bits(algorithm: str, state, shape: tuple, et) -> tuple[np.ndarray, np.ndarray]:
    """XLA's rng_bit_generator: (output_state, output of ``shape`` and element type ``et``).
    DEFAULT is computed as PHILOX (what XLA's CPU compiler picks; bit-exact in the tests)."""
    et = as_element_type(et)
    state = [int(s) for s in np.asarray(state, dtype=_U64).reshape(-1)]
    shape = tuple(int(d) for d in shape)
    bits = et.bits
    if algorithm == "THREE_FRY":
        raw, used = _threefry_bits(state[0], state[1], shape, bits)
        new_state = [state[0], (state[1] + used) % (1 << 64)]
    else:
        lo, hi = (state[1], state[0]) if len(state) == 2 else (state[1], state[2])
        raw, (new_lo, new_hi) = _philox_bits(state[0], lo, hi, shape, bits)
        new_state = [state[0], new_lo] + ([new_hi] if len(state) == 3 else [])
    if bits < 64:
        raw = raw & _U64((1 << bits) - 1)  # narrow types keep the low bits of the word
    return np.array(new_state, dtype=_U64), np.asarray(from_bits(raw, et)).reshape(shape)


# ------------------------------------------------------------------ rng_bit_generator

def _check_state(op_, algorithm: str) -> None:
    in_t, out_state_t = op_.operands[0].type, op_.results[0].type
    if not (isinstance(in_t, TensorType) and in_t.rank == 1 and str(in_t.element_type) == "ui64"):
        raise OracleError(f"initial_state must be a 1-dimensional tensor of ui64, got {in_t}",
                          op=op_.name, constraint="I2")
    if out_state_t != in_t:  # rng_bit_generator (C1)
        raise OracleError(f"type(output_state) {out_state_t} != type(initial_state) {in_t}",
                          op=op_.name, constraint="C1")
    size = in_t.shape[0]
    # (C2): 2 for THREE_FRY, 2 or 3 for PHILOX; DEFAULT's size is implementation-defined, and
    # the oracle's DEFAULT (XLA's PHILOX) takes PHILOX's sizes.
    allowed = (2,) if algorithm == "THREE_FRY" else (2, 3)
    if size not in allowed:
        raise OracleError(f"size(initial_state) = {size}, but {algorithm} takes "
                          f"{' or '.join(map(str, allowed))}" +
                          (" (implementation-defined for DEFAULT; the oracle's DEFAULT is PHILOX)"
                           if algorithm == "DEFAULT" else ""), op=op_.name, constraint="C2")


@op("stablehlo.rng_bit_generator", fuzz=False, family="rng", element_types=BIT_GENERATOR_TYPES,
    extra={"compare": compare_rng_bit_generator},
    notes="THREE_FRY / PHILOX: XLA's variants bit for bit; DEFAULT: XLA's PHILOX, compared by shape, "
          "type and state advance only (implementation-defined)")
def rng_bit_generator(op_, args, ctx, env):
    reject_quantized(op_)
    algorithm = op_.attr("rng_algorithm")
    if algorithm not in ALGORITHMS:  # (I1)
        raise OracleError(f"unknown rng_algorithm {algorithm}", op=op_.name, constraint="I1")
    _check_state(op_, algorithm)
    out_t = op_.results[1].type
    et = out_t.element_type
    if not (et.is_integer or et.is_float):
        raise OracleError(f"output must be a tensor of integer or floating-point type, got {out_t}",
                          op=op_.name)
    (state,) = args
    return list(rng_bits(algorithm, state, out_t.shape, et))


# ----------------------------------------------------------------------------- rng

def _seed(ctx) -> int:
    """A per-Context counter: each rng op of an evaluation gets its own stream, and the same
    program evaluates to the same values every time."""
    if ctx is None:
        return 0
    n = ctx.extra.get("rng_calls", 0)
    ctx.extra["rng_calls"] = n + 1
    return n


def _as_float(x) -> float:
    with np.errstate(all="ignore"):
        return float(np.asarray(x).astype(np.float64))


def rng_sample(distribution: str, a, b, shape: tuple, et, seed: int = 0) -> np.ndarray:
    """Samples of the spec's distribution in element type ``et``.  UNIFORM floats are
    a + (b - a) * U rounded to ``et``; a value that rounds up to b is redrawn, so every value
    lies in [a, b) as the spec says."""
    et = as_element_type(et)
    gen = np.random.Generator(np.random.PCG64(seed))
    if not et.is_float:
        lo, hi = (int(np.asarray(v).astype(np.uint64 if et.is_unsigned else np.int64)) for v in (a, b))
        values = gen.integers(lo, hi, size=shape, dtype=np.uint64 if et.is_unsigned else np.int64)
        return values.astype(et.dtype)
    fa, fb = _as_float(a), _as_float(b)
    if distribution == "NORMAL":
        return np.asarray(round_to(fa + fb * gen.standard_normal(shape), et), dtype=et.dtype).reshape(shape)
    x = np.asarray(round_to(fa + (fb - fa) * gen.random(shape), et), dtype=et.dtype).reshape(shape)
    for _ in range(64):  # each round redraws the few values that rounded to b
        hit = np.asarray(x).astype(np.float64) >= fb
        if not hit.any():
            break
        x[hit] = round_to(fa + (fb - fa) * gen.random(int(hit.sum())), et)
    else:
        x[np.asarray(x).astype(np.float64) >= fb] = np.asarray(a, dtype=et.dtype)  # [a, b) holds a single value
    return x


@op("stablehlo.rng", fuzz=False, family="rng", element_types=RNG_TYPES, extra={"compare": compare_rng},
    notes="samples from numpy's PCG64; compared statistically (oracle/statistical.py)")
def rng(op_, args, ctx, env):
    reject_quantized(op_)
    a, b, shape = args
    a_t, b_t, shape_t = (v.type for v in op_.operands)
    out_t = op_.results[0].type
    et = out_t.element_type
    if a_t.rank != 0 or b_t.rank != 0:  # (I1), (I2)
        raise OracleError(f"a and b must be 0-dimensional, got {a_t} and {b_t}", op=op_.name, constraint="I1")
    if not (a_t.element_type == b_t.element_type == et):  # rng (C1)
        raise OracleError(f"element types of a ({a_t}), b ({b_t}) and result ({out_t}) differ",
                          op=op_.name, constraint="C1")
    distribution = op_.attr("rng_distribution")
    if distribution not in ("UNIFORM", "NORMAL"):  # (I4)
        raise OracleError(f"unknown rng_distribution {distribution}", op=op_.name, constraint="I4")
    if distribution == "NORMAL" and not et.is_float:  # (C2)
        raise OracleError(f"NORMAL needs a floating-point type, got {et}", op=op_.name, constraint="C2")
    if tuple(int(d) for d in np.asarray(shape).reshape(-1)) != tuple(out_t.shape):  # (C3)
        raise OracleError(f"shape {np.asarray(shape).tolist()} != shape(result) {list(out_t.shape)}",
                          op=op_.name, constraint="C3")
    fa, fb = (_as_float(x) if et.is_float else int(np.asarray(x).astype(np.int64 if not et.is_unsigned
                                                                        else np.uint64)) for x in (a, b))
    if distribution == "UNIFORM" and not fa < fb:
        raise UndefinedBehavior(f"UNIFORM with a = {fa} >= b = {fb}", op=op_.name)
    if distribution == "NORMAL" and not fb >= 0:
        raise UndefinedBehavior(f"NORMAL with b = {fb} < 0", op=op_.name)
    return [rng_sample(distribution, a, b, tuple(out_t.shape), et, _seed(ctx))]


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    # --- whole results
    ImplDefined("rng", "always", "the generator is implementation-defined",
                'rng: "The exact way how random numbers are generated is implementation-defined."',
                None),
    ImplDefined("rng_bit_generator", "rng_algorithm = DEFAULT (both output_state and output)",
                "DEFAULT is an implementation-defined algorithm: only the types and a state that "
                "advances are checked (oracle/statistical.py: compare_rng_bit_generator). THREE_FRY "
                "and PHILOX are 'implementation-defined variants' too; the oracle implements XLA's "
                "variants bit for bit (oracle/ops/rng.py) and compares them exactly, since those are "
                "what jax's PRNG and every XLA backend define (a backend with another variant shows "
                "up as a mismatch and belongs in judge/deviations/)",
                'rng_bit_generator: "DEFAULT: Implementation-defined algorithm. THREE_FRY: '
                'Implementation-defined variant of the Threefry algorithm." and "not guaranteed to '
                'be deterministic between implementations"', rng_bit_generator_default),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# rng: NOT compared element by element (these rows are a note; their bounds are never used).
# The spec fixes a distribution, not values, so OpInfo.extra["compare"] judges a backend's
# sample statistically against it: range, Kolmogorov-Smirnov, mean and spread, false-alarm
# rate 1e-6 per case (oracle/statistical.py). rng_bit_generator THREE_FRY/PHILOX: exact bits.
record_facts("stablehlo.rng", tolerances={kind: Tolerance(reason=(
    "statistical, not element-wise: range [a, b) / finite, Kolmogorov-Smirnov and moment "
    "tests against the spec's distribution at a false-alarm rate of 1e-6 per case "
    "(oracle/statistical.py); rounding to the type is allowed for (4 ULP band)"))
    for kind in ("integer", "float", "narrow_float")})
