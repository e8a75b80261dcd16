"""A worked example of ``shlo-conform check``: a small model exported with ``jax.export``, static
and shape-polymorphic, and programs whose symbolic shapes make JAX emit the dynamic ops
(dynamic_broadcast_in_dim, dynamic_iota, real_dynamic_slice, get_dimension_size,
dynamic_reshape, dynamic_pad, dynamic_gather, dynamic_reduce_window), written as plain .mlir
files WITHOUT goldens -- the programs a user holds -- to suites/data/jax_polymorphic/.

    python examples/jax_programs/export_polymorphic.py [OUT_DIR]
    shlo-conform check suites/data/jax_polymorphic --backend xla,iree-llvm-cpu --out results-check

``check`` draws inputs for each program (mild values, special values, edge-reaching values),
refines its symbolic dimensions to small sizes (another size per input set; ``--dims b=8`` fixes
them) with StableHLO's own shape refinement, runs the static program on each backend and judges
every output against the oracle.  ``legacy_dim_arg.mlir`` is written by hand in the form older
JAX exports have (one leading ``tensor<i64>`` argument per dimension variable, no shape
assertions), which the StableHLO repo's shape-polymorphic testdata uses.
"""

from __future__ import annotations

import os
import sys

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
from jax import export, lax  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
DEFAULT_OUT = os.path.join(ROOT, "suites", "data", "jax_polymorphic")

b, c = export.symbolic_shape("b, c")
(b4,) = export.symbolic_shape("b", constraints=["b >= 4"])  # slices that need room
F32, I32 = jnp.float32, jnp.int32


def arg(*shape, dtype=F32):
    return jax.ShapeDtypeStruct(shape, dtype)


def mlp(x, w1, b1, w2, b2):
    """A two-layer perceptron with a softmax head."""
    hidden = jax.nn.gelu(x @ w1 + b1)
    return jax.nn.softmax(hidden @ w2 + b2, axis=-1)


MLP_PARAMS = [arg(8, 16), arg(16), arg(16, 4), arg(4)]

# name -> (function, argument shapes (symbolic or not), what JAX emits for it)
PROGRAMS = {
    "mlp_static": (mlp, [arg(4, 8)] + MLP_PARAMS, "the model with a static batch of 4"),
    "mlp_batch": (mlp, [arg(b, 8)] + MLP_PARAMS, "the model with a symbolic batch b"),
    "broadcast_add": (lambda x, y: x + jnp.broadcast_to(y, (x.shape[0], 3)), [arg(b, 3), arg(3)],
                      "dynamic_broadcast_in_dim"),
    "iota_scale": (lambda x: jnp.arange(x.shape[0], dtype=F32) * x, [arg(b)], "dynamic_iota"),
    "size_as_value": (lambda x: x * x.shape[0] - jnp.mean(x), [arg(b)],
                      "get_dimension_size read as data"),
    "slice_interior": (lambda x: lax.slice(x, (1,), (x.shape[0] - 1,)), [arg(b4)], "real_dynamic_slice"),
    "slice_window": (lambda x, i: lax.dynamic_slice(x, (i,), (x.shape[0] - 2,)), [arg(b4), arg(dtype=I32)],
                     "real_dynamic_slice of a clamped start"),
    "strided_rows": (lambda x: x[1:x.shape[0] - 1:2], [arg(b4, 2)], "dynamic_iota and gather"),
    "drop_edges": (lambda x: x[1:-1], [arg(b, 3)], "dynamic_gather"),
    "take_rows": (lambda x, i: jnp.take(x, i, axis=0, mode="clip"), [arg(b, 3), arg(c, dtype=I32)],
                  "gather with two dimension variables"),
    "flatten": (lambda x: x.reshape(-1), [arg(b, 3)], "dynamic_reshape"),
    "pair_sum": (lambda x, y: x.reshape(-1) + y, [arg(b, 2), arg(2 * b)], "a dimension 2*b"),
    "pad_to_double": (lambda x: jnp.pad(x, (0, x.shape[0])), [arg(b)], "dynamic_pad"),
    "pad_interior": (lambda x: lax.pad(x, 0.0, ((0, x.shape[0], 1),)), [arg(b)], "dynamic_pad with interior"),
    "cumsum": (lambda x: jnp.cumsum(x, axis=0), [arg(b, 2)], "dynamic_reduce_window"),
    "matmul_two_vars": (lambda x, y: x @ y, [arg(b, 4), arg(4, c)], "dot_general with b and c"),
    "log_mean": (lambda x: jnp.mean(jnp.log(x), axis=0), [arg(b, 3)], "log: a positive-domain argument"),
    "sort_rows": (lambda x: jnp.sort(x, axis=0), [arg(b, 3)], "sort along the symbolic dimension"),
    "floor_scaled": (lambda x: jnp.floor(x * 2.5) / x.shape[0], [arg(b)], "floor"),
    "rotate_axes": (lambda x: jnp.transpose(x, (1, 2, 0)), [arg(b, 3, 4)], "a transpose that is a 3-cycle"),
}

#: The form of older JAX exports (and of the StableHLO repo's shape-polymorphic testdata): the
#: dimension variable is @main's first argument, the dynamic shapes are computed from it.
LEGACY_DIM_ARG = """\
// An older JAX export's form, written by hand: one leading tensor<i64> argument per dimension
// variable (here b, the leading dimension of %arg1), no shape assertions.
module @jit_scale_rows {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %0 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %1 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.constant dense<4> : tensor<1xi32>
    %4 = stablehlo.concatenate %2, %3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %5 = stablehlo.dynamic_broadcast_in_dim %0, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %6 = stablehlo.dynamic_iota %4, dim = 0 : (tensor<2xi32>) -> tensor<?x4xf32>
    %7 = stablehlo.multiply %arg1, %5 : tensor<?x4xf32>
    %8 = stablehlo.add %7, %6 : tensor<?x4xf32>
    return %8 : tensor<?x4xf32>
  }
}
"""


def _without_locations(text: str) -> str:
    """The program without its debug locations (paths of this machine): what a user's file holds
    whichever machine exported it."""
    from jaxlib.mlir import ir

    from oracle.mlir_text import mlir_context

    with mlir_context():
        return ir.Module.parse(text).operation.get_asm(enable_debug_info=False)


def export_all(out_dir: str = DEFAULT_OUT) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, (fn, args, what) in PROGRAMS.items():
        text = _without_locations(export.export(jax.jit(fn))(*args).mlir_module())
        path = os.path.join(out_dir, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(f"// {name}: {what}.\n// Exported by examples/jax_programs/export_polymorphic.py with "
                    f"jax {jax.__version__} (jax.export); no goldens: check it with shlo-conform check.\n" + text)
        written.append(path)
    path = os.path.join(out_dir, "legacy_dim_arg.mlir")
    with open(path, "w") as f:
        f.write(LEGACY_DIM_ARG)
    return written + [path]


if __name__ == "__main__":
    for p in export_all(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT):
        print(p)
