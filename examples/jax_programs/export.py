"""Export everyday JAX programs to the StableHLO ``testdata`` format (suites/data/jax_programs/).

Each program is ``jax.jit(f).lower(*inputs).as_text()`` -- exactly what a user hands the
suite -- with fixed inputs and XLA's (jax on CPU) outputs as the goldens, written by
``reports.testdata.to_testdata`` so that ``shlo-conform corpus`` and suites/test_jax_programs.py
read them.  Results that a linear-algebra routine does not fix uniquely (eigenvector signs,
singular vectors, Q of QR) are never goldens: each program returns what is unique instead
(eigenvalues, reconstructions such as Q R or V diag(w) V^T, |diag R|, singular values).

Floats are checked with ``check.expect_almost_eq`` (|actual - expected| <= 1e-3, the official
checker's tolerance; the values here are O(1)), integers and booleans exactly.

    python examples/jax_programs/export.py [OUT_DIR]     # rewrites the data (and suites/data/jax_sharded/)
    python examples/jax_programs/export.py --only NAME[,NAME...]   # (re)writes only these programs
    python examples/jax_programs/export.py --no-goldens OUT_DIR    # the plain programs, for shlo-conform check
"""

from __future__ import annotations

import os
import sys

# two CPU devices, for the sharded program over a 2-device mesh (set before jax starts)
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import jax.scipy.special as jss  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from reports.testdata import to_testdata  # noqa: E402

DEFAULT_OUT = os.path.join(ROOT, "suites", "data", "jax_programs")
SHARDED_OUT = os.path.join(ROOT, "suites", "data", "jax_sharded")


def _rng(seed):
    return np.random.default_rng(seed)


def _normal(seed, shape, dtype=np.float32):
    return _rng(seed).standard_normal(shape).astype(dtype)


def _spd(seed, n, dtype=np.float64, batch=()):
    """A symmetric positive definite matrix (well conditioned)."""
    a = _rng(seed).standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _hpd(seed, n, dtype=np.complex128):
    r = _rng(seed)
    a = r.standard_normal((n, n)) + 1j * r.standard_normal((n, n))
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype)


def _general(seed, n, m=None, dtype=np.float64):
    return (_rng(seed).standard_normal((n, m or n)) + 2 * np.eye(n, m or n)).astype(dtype)


def _key(seed, impl=None):
    return np.asarray(jax.random.key_data(jax.random.key(seed, impl=impl) if impl else jax.random.PRNGKey(seed)))


def _layer_norm(x, gamma, beta):
    mean = jnp.mean(x.astype(jnp.float32), axis=-1, keepdims=True)
    var = jnp.var(x.astype(jnp.float32), axis=-1, keepdims=True)
    y = (x.astype(jnp.float32) - mean) * lax.rsqrt(var + 1e-5)
    return (y * gamma.astype(jnp.float32) + beta.astype(jnp.float32)).astype(jnp.bfloat16)


def _eigh_parts(a):
    w, v = jnp.linalg.eigh(a)
    return w, (v * w[..., None, :]) @ jnp.conj(jnp.swapaxes(v, -1, -2))


def _qr_parts(a):
    q, r = jnp.linalg.qr(a)
    return jnp.abs(jnp.diagonal(r)), q @ r  # (Q^H Q - I is rounding noise: its signs are no golden)


def _qr_pivoting_parts(a):
    q, r, p = jsl.qr(a, pivoting=True, mode="economic")
    return jnp.abs(jnp.diagonal(r)), jnp.round(q @ r - a[:, p], 8), p  # rounding noise -> (signed) zeros


def _svd_parts(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return s, (u * s) @ vh


def _lu_parts(a):
    p, l, u = jsl.lu(a)
    return p @ l @ u, jnp.abs(jnp.diagonal(u))


def _slogdet(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return sign, logdet


def _eig_residual(a):
    """|A v - w v| per eigenpair (zero up to rounding) and the sorted eigenvalues: no golden depends
    on LAPACK's eigenvalue order or the eigenvectors' phases."""
    w, v = jnp.linalg.eig(a)
    return (*_sorted_parts(w), jnp.round(jnp.linalg.norm(a @ v - v * w, axis=0), 6))


def _hermitian_part(h):
    """Of a symmetric matrix's Hessenberg form (tridiagonal up to rounding): eigvalsh reads one triangle."""
    return (h + h.T) / 2


def _sorted_parts(w):
    """Sorted real parts and sorted |imaginary parts|: the eigenvalues as a multiset, with no order
    that a conjugate pair's rounding could flip."""
    return jnp.sort(w.real), jnp.sort(jnp.abs(w.imag))


def _lu_factor_pivots(a):
    lu, piv = jsl.lu_factor(a)
    return piv


def _eigh_tridiagonal(d, e):
    w = jsl.eigh_tridiagonal(d, e, eigvals_only=True)
    v = jsl.eigh_tridiagonal(d, e)[1]
    return w, v


def _reconstruct(w, v):
    """V diag(w) V^T (= T): unique although the eigenvectors' signs are not; rounded to 8 digits
    so that the rounding noise of the zero entries becomes zeros, not a golden."""
    return w, jnp.round((v * w) @ v.T, 8)


def _tridiagonal_eigvals_upper(a):
    """The eigenvalues of T from lax.linalg.tridiagonal(a, lower=False) (T itself is not unique)."""
    _, d, e, _ = lax.linalg.tridiagonal(a, lower=False)
    return jnp.linalg.eigvalsh(jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1))


def _ragged(lhs_batch, rhs_batch, lhs_contract, rhs_contract, lhs_ragged, rhs_group):
    """lax.ragged_dot_general with these dimension numbers (JAX emits chlo.ragged_dot)."""
    dims = lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)),
        lhs_ragged_dimensions=lhs_ragged, rhs_group_dimensions=rhs_group)
    return lambda lhs, rhs, group_sizes: lax.ragged_dot_general(lhs, rhs, group_sizes, dims)


# name -> (function, inputs, what it exercises).  Keep inputs small: the files live in the repo.
PROGRAMS = {
    "gelu_exact_f32": (lambda x: jax.nn.gelu(x, approximate=False), [_normal(1, (4, 8))], "chlo.erf"),
    "gelu_tanh_f32": (lambda x: jax.nn.gelu(x, approximate=True), [_normal(2, (4, 8))], "tanh"),
    "softmax_f32": (lambda x: jax.nn.softmax(x, axis=-1), [_normal(3, (3, 7))], "reduce max/sum, exp"),
    "logsumexp_f64": (lambda x: jax.nn.logsumexp(x, axis=0), [_normal(4, (5, 3), np.float64)], "reduce, log"),
    "layer_norm_bf16": (_layer_norm, [_normal(5, (4, 16)).astype(jnp.bfloat16), _normal(6, (16,)).astype(
        jnp.bfloat16), _normal(7, (16,)).astype(jnp.bfloat16)], "bf16 <-> f32 convert, rsqrt"),
    "random_uniform_f32": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (16,)), [_key(0)],
                           "threefry, shift_right_logical, bitcast_convert"),
    "random_normal_f32": (lambda k: jax.random.normal(jax.random.wrap_key_data(k), (16,)), [_key(1)],
                          "chlo.erf_inv"),
    "random_gamma_f32": (lambda k: jax.random.gamma(jax.random.wrap_key_data(k), 2.5, (8,)), [_key(2)],
                         "rejection sampling in while"),
    "random_gamma_rbg_f32": (lambda k: jax.random.gamma(jax.random.wrap_key_data(k, impl="rbg"), 2.5, (5,)),
                             [_key(3, "rbg")], "rng_bit_generator in rejection-sampling while loops"),
    "random_bernoulli_rbg": (lambda k: jax.random.bernoulli(jax.random.wrap_key_data(k, impl="rbg"), 0.3, (16,)),
                             [_key(4, "rbg")], "rng_bit_generator, bitcast_convert"),
    "top_k_f32": (lambda x: lax.top_k(x, 3), [_normal(8, (4, 10))], "chlo.top_k"),
    "argsort_f32": (lambda x: jnp.argsort(x, axis=-1), [_normal(9, (3, 9))], "sort with iota"),
    "gammaln_f32": (jss.gammaln, [np.abs(_normal(10, (12,))) * 3 + 0.1], "chlo.lgamma"),
    "digamma_f32": (jss.digamma, [np.abs(_normal(11, (12,))) * 3 + 0.1], "chlo.digamma"),
    "log_ndtr_f32": (jss.log_ndtr, [_normal(12, (12,)) * 4], "chlo.erfc"),
    "erfc_f64": (jss.erfc, [_normal(13, (12,), np.float64) * 2], "chlo.erfc"),
    "solve_f64": (jnp.linalg.solve, [_general(20, 4), _normal(21, (4, 2), np.float64)], "lapack_dgetrf_ffi"),
    "inv_f64": (jnp.linalg.inv, [_general(22, 4)], "lapack_dgetrf_ffi"),
    "det_f64": (jnp.linalg.det, [_general(23, 4)], "lapack_dgetrf_ffi"),
    "slogdet_f64": (_slogdet, [_general(24, 5)], "lapack_dgetrf_ffi"),
    "lu_factor_pivots_f64": (_lu_factor_pivots, [_general(25, 5)], "lapack_dgetrf_ffi pivots"),
    "scipy_lu_f64": (_lu_parts, [_general(26, 4)], "lapack_dgetrf_ffi"),
    "cholesky_f64": (jnp.linalg.cholesky, [_spd(27, 4)], "lapack_dpotrf_ffi"),
    "cholesky_batched_f32": (jnp.linalg.cholesky, [_spd(28, 3, np.float32, batch=(2,))], "lapack_spotrf_ffi batch"),
    "qr_f64": (_qr_parts, [_general(29, 5, 3)], "lapack_dgeqrf_ffi + lapack_dorgqr_ffi"),
    "eigh_f64": (_eigh_parts, [_spd(30, 4)], "lapack_dsyevd_ffi"),
    "eigh_c128": (_eigh_parts, [_hpd(31, 3)], "lapack_zheevd_ffi"),
    "eigvalsh_batched_f32": (jnp.linalg.eigvalsh, [_spd(32, 3, np.float32, batch=(2,))], "lapack_ssyevd_ffi batch"),
    "svd_f64": (_svd_parts, [_general(33, 4, 3)], "lapack_dgesdd_ffi"),
    "svdvals_c64": (lambda a: jnp.linalg.svd(a, compute_uv=False),
                    [(_general(34, 3) + 1j * _general(35, 3)).astype(np.complex64)], "lapack_cgesdd_ffi"),
    "lstsq_f64": (lambda a, b: jnp.linalg.lstsq(a, b)[0], [_general(36, 5, 3), _normal(37, (5,), np.float64)],
                  "lapack_dgesdd_ffi"),
    "pinv_f64": (jnp.linalg.pinv, [_general(38, 3, 4)], "lapack_dgesdd_ffi"),
    "solve_triangular_f64": (lambda a, b: jsl.solve_triangular(a, b, lower=True),
                             [np.tril(_general(39, 4)), _normal(40, (4, 2), np.float64)], "triangular_solve"),
    "eigvals_f64": (lambda a: _sorted_parts(jnp.linalg.eigvals(a)), [_general(43, 4)], "lapack_dgeev_ffi"),
    "eig_residual_c128": (lambda a: _eig_residual(a), [(_general(44, 3) + 1j * _general(45, 3))], "lapack_zgeev_ffi"),
    "tridiagonal_solve_f32": (lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b),
                              [np.array([0, 1, -1, 2], np.float32), np.array([4, 5, 6, 7], np.float32),
                               np.array([1, 2, 0.5, 0], np.float32), _normal(46, (4, 2))], "lapack_sgtsv_ffi"),
    "qr_pivoting_f64": (_qr_pivoting_parts, [_general(47, 4, 3)], "lapack_dgeqp3_ffi + lapack_dorgqr_ffi"),
    "schur_c128": (lambda a: _sorted_parts(jnp.diagonal(jsl.schur(a, output="complex")[0])),
                   [(_general(48, 3) + 1j * _general(49, 3))], "lapack_zgees_ffi"),
    "hessenberg_f64": (lambda a: jnp.linalg.eigvalsh(_hermitian_part(jsl.hessenberg(a))), [_spd(50, 4)],
                       "lapack_dgehrd_ffi"),
    "cho_solve_f64": (lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b), [_spd(41, 4), _normal(42, (4,), np.float64)],
                      "lapack_dpotrf_ffi + triangular_solve"),
    "eigh_tridiagonal_f64": (lambda d, e: _reconstruct(*_eigh_tridiagonal(d, e)),
                             [np.array([2.0, 3.0, 1.0, 4.0]), np.array([1.0, -0.5, 0.25])],
                             "tridiagonal_solve_perturbed_ffi (inverse iteration): V diag(w) V^T"),
    "tridiagonal_upper_f64": (_tridiagonal_eigvals_upper, [_spd(57, 4)], "lapack_dsytrd_ffi uplo U: eigenvalues of T"),
    "ragged_dot_f32": (lax.ragged_dot, [_normal(51, (6, 4)), _normal(52, (3, 4, 2)), np.array([2, 0, 3], np.int32)],
                       "chlo.ragged_dot mode 1 (rows past the groups give 0)"),
    "ragged_dot_batched_groups_f32": (
        _ragged([0], [1], [2], [2], [1], [0]),
        [_normal(53, (2, 5, 3)), _normal(54, (3, 2, 3, 2)), np.array([[1, 2, 2], [0, 4, 0]], np.int32)],
        "chlo.ragged_dot mode 1 with a batch dim and group_sizes [b, g]"),
    "ragged_dot_contracting_f32": (
        _ragged([0], [0], [2], [1], [2], []),
        [_normal(55, (2, 3, 5)), _normal(56, (2, 5, 2)), np.array([[2, 3], [4, 0]], np.int32)],
        "chlo.ragged_dot mode 2 (ragged contracting dim) with group_sizes [b, g]"),
}


def _check_names(text: str, outputs) -> str:
    """Floats: expect_close (3 ULP) -> expect_almost_eq (1e-3 absolute); see the module docstring."""
    return text.replace("@check.expect_close(", "@check.expect_almost_eq(")


def export(out_dir: str = DEFAULT_OUT, only=None, goldens: bool = True) -> list[str]:
    """Every program, or the names in ``only`` (the others' goldens stay as they were written);
    ``goldens=False``: each program as jax lowers it (its inputs are @main's arguments), which
    ``shlo-conform check`` runs on drawn inputs."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, (fn, inputs, what) in PROGRAMS.items():
        if only is not None and name not in only:
            continue
        jitted = jax.jit(fn)
        program = jitted.lower(*inputs).as_text()
        if not goldens:
            path = os.path.join(out_dir, f"{name}.mlir")
            with open(path, "w") as f:
                f.write(f"// {name}: {what}.\n{program}")
            written.append(path)
            continue
        outputs = jax.tree_util.tree_leaves(jitted(*inputs))
        expected = [np.asarray(o) for o in outputs]
        comment = (f"{name}: {what}.\nExported by examples/jax_programs/export.py with jax {jax.__version__} "
                   "(jax.jit(f).lower(...).as_text());\n@expected holds XLA's (CPU) outputs.")
        text = _check_names(to_testdata(program, [np.asarray(x) for x in inputs], expected, comment=comment), expected)
        path = os.path.join(out_dir, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(text)
        written.append(path)
    return written


def _sharded(n_devices: int):
    """x * 2 under a sharding constraint, then x + psum(x) in a shard_map over an n-device mesh."""
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((n_devices,), ("x",), axis_types=(AxisType.Auto,))

    def f(x):
        y = jax.lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P("x")))
        return jax.shard_map(lambda a: a + jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"), out_specs=P("x"))(y)
    return f


def export_sharded(out_dir: str = SHARDED_OUT) -> list[str]:
    """Sharded programs as JAX prints them (sdy.mesh, sdy.sharding_constraint, sdy.manual_computation):
    no goldens, suites/test_jax_programs.py checks what the oracle does with them."""
    os.makedirs(out_dir, exist_ok=True)
    x = np.arange(4.0, dtype=np.float32)
    written = []
    for name, n in (("one_device_mesh", 1), ("manual_two_devices", 2)):
        path = os.path.join(out_dir, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(jax.jit(_sharded(n)).lower(x).as_text())
        written.append(path)
    return written


if __name__ == "__main__":
    args = sys.argv[1:]
    only, goldens = None, "--no-goldens" not in args
    args = [a for a in args if a != "--no-goldens"]
    if "--only" in args:
        at = args.index("--only")
        only = set(args[at + 1].split(","))
        del args[at:at + 2]
        unknown = only - set(PROGRAMS)
        if unknown:
            sys.exit(f"export.py: no program named {', '.join(sorted(unknown))}")
    if not goldens and not args:
        sys.exit("export.py: --no-goldens needs an OUT_DIR (suites/data/jax_programs/ holds the goldens)")
    for p in export(args[0] if args else DEFAULT_OUT, only, goldens):
        print(p)
    if not args and only is None:
        for p in export_sharded():
            print(p)
