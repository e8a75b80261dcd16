"""Which ops and custom_call targets JAX emits on CPU for the linear-algebra APIs, and which of
them the oracle does not evaluate.

Every public function of ``jax.numpy.linalg``, ``jax.scipy.linalg`` and ``jax.lax.linalg`` is
called on small well-conditioned inputs (the first argument list of ``CANDIDATES`` it accepts,
for f32, f64, c64 and c128), lowered with ``jax.jit(f).lower(...).as_text()`` and run on the
oracle.  Prints one line per (function, dtype) the oracle cannot run, then the totals.

    python examples/jax_programs/survey_linalg.py [-v] [--judge] [--more] [--dtypes float64,complex128]
                                                  [--only invhilbert,cross,rsf2csf]

``--judge`` also runs each program on XLA (adapters' ``xla`` backend) and judges its outputs
with the oracle's judge (judge.verdict.judge_program, replaying on XLA to attribute a mismatch to
an op; LAPACK targets by their property judges), counting the verdicts.  ``--only`` keeps the
functions and variants whose name is one of those given (a re-run of the ones that mismatched).
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections import Counter

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import jax.scipy.signal  # noqa: E402,F401
import jax.scipy.special  # noqa: E402,F401
import jax.scipy.stats  # noqa: E402,F401
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax._src.lax.linalg import geqrf  # noqa: E402  (not public; lax.linalg.ormqr takes its outputs)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import oracle  # noqa: E402
from oracle.errors import Unsupported  # noqa: E402
from oracle.mlir_text import parse_module  # noqa: E402

MODULES = {"jnp.linalg": jnp.linalg, "jax.scipy.linalg": jsl, "lax.linalg": lax.linalg}
#: ``--more``: everyday numerics besides linear algebra, surveyed the same way
MORE_MODULES = {"jax.scipy.special": jax.scipy.special, "jax.nn": jax.nn, "jnp.fft": jnp.fft,
                "jax.scipy.stats.norm": jax.scipy.stats.norm, "jax.scipy.signal": jax.scipy.signal}
DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _inputs(dtype):
    rng = np.random.default_rng(0)
    def m(*shape):
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)
    a = m(3, 3)
    spd = (a @ np.conj(a.T) + 3 * np.eye(3)).astype(dtype)
    v, b = m(3), m(3, 2)
    tri = np.triu(spd)
    return [(spd,), (spd, b), (spd, v), (tri, b), (spd, spd), (v,), (v, v), (m(3, 2),),
            (m(3), m(3) + 4, m(3), m(3, 2)),  # tridiagonal_solve: dl, d, du, b
            (spd, 2), (m(2, 2), m(3, 3)), (m(3, 2), m(3, 2)), (3,)]


#: functions whose arguments are not plain arrays: called through a wrapper
WRAPPED = {
    "cho_solve": lambda a, b: jsl.cho_solve((a, True), b),
    "lu_solve": lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b),
    "eigh_tridiagonal": lambda d, e: jsl.eigh_tridiagonal(d, e[:-1], eigvals_only=True),
    "funm": lambda a: jsl.funm(a, jnp.exp),
    "multi_dot": lambda a, b: jnp.linalg.multi_dot([a, b, a]),
    "tensorinv": lambda a: jnp.linalg.tensorinv(a, ind=1),
    "hadamard": lambda a: jsl.hadamard(4, a.dtype)[:3, :3] @ a,
    "solve_sylvester": lambda a, b: jsl.solve_sylvester(a, a.T + 2 * jnp.eye(3, dtype=a.dtype), b[:, :1] @ b[:, :1].T),
    "lu_pivots_to_permutation": lambda a: lax.linalg.lu_pivots_to_permutation(lax.linalg.lu(a)[1], 3),
    "ormqr": lambda a, b: lax.linalg.ormqr(*geqrf(a), b),
}

#: options that change what JAX emits (other LAPACK routines, uplo, sides, batches)
VARIANTS = {
    "svd QR algorithm": lambda a: lax.linalg.svd(a, algorithm=lax.linalg.SvdAlgorithm.QR),
    "svd full_matrices": lambda a: lax.linalg.svd(a, full_matrices=True),
    "svd values only": lambda a: lax.linalg.svd(a, compute_uv=False),
    "eig left vectors": lambda a: lax.linalg.eig(a, compute_left_eigenvectors=True),
    "eig values only": lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
    "eigh upper": lambda a: lax.linalg.eigh(a, lower=False),
    "eigh subset": lambda a: lax.linalg.eigh(a, subset_by_index=(0, 2)),
    "jnp eigh UPLO=U": lambda a: jnp.linalg.eigh(a, UPLO="U"),
    "tridiagonal upper": lambda a: lax.linalg.tridiagonal(a, lower=False),
    "tridiagonal lower": lambda a: lax.linalg.tridiagonal(a, lower=True),
    "qr pivoting": lambda a: lax.linalg.qr(a, pivoting=True),
    "qr full": lambda a: lax.linalg.qr(a, full_matrices=True),
    "cholesky upper": lambda a: jsl.cholesky(a, lower=False),
    "schur real": lambda a: jsl.schur(a.real, output="real"),
    "schur sort": lambda a: lax.linalg.schur(a, sort_eig_vals=False, compute_schur_vectors=True),
    "lu permute_l": lambda a: jsl.lu(a, permute_l=True),
    "solve pos": lambda a: jsl.solve(a, a[:, :1], assume_a="pos"),
    "solve sym": lambda a: jsl.solve(a, a[:, :1], assume_a="sym"),
    "solve her": lambda a: jsl.solve(a, a[:, :1], assume_a="her"),
    "trsm right transpose": lambda a: lax.linalg.triangular_solve(a, a[:2], left_side=False, lower=True,
                                                                   transpose_a=True, conjugate_a=True),
    "trsm unit upper": lambda a: lax.linalg.triangular_solve(a, a, left_side=True, lower=False, unit_diagonal=True),
    "cholesky_update": lambda a: lax.linalg.cholesky_update(jnp.linalg.cholesky(a).T, a[0]),
    "householder_product": lambda a: lax.linalg.householder_product(*geqrf(a)),
    "hessenberg": lambda a: lax.linalg.hessenberg(a),
    "batched svd": lambda a: jnp.linalg.svd(jnp.stack([a, 2 * a])),
    "batched eig": lambda a: jnp.linalg.eig(jnp.stack([a, 2 * a])),
    "batched qr": lambda a: jnp.linalg.qr(jnp.stack([a, 2 * a])),
    "batched solve": lambda a: jnp.linalg.solve(jnp.stack([a, 2 * a]), jnp.stack([a[:, :1], a[:, 1:2]])),
    "batched tridiagonal_solve": lambda a: lax.linalg.tridiagonal_solve(
        jnp.stack([a[0], a[1]]).at[:, 0].set(0), jnp.stack([a[1], a[2]]) + 4, jnp.stack([a[2], a[0]]).at[:, -1].set(0),
        jnp.stack([a, a])),
    "matrix_rank": lambda a: jnp.linalg.matrix_rank(a), "cond": lambda a: jnp.linalg.cond(a),
    "norm 2": lambda a: jnp.linalg.norm(a, 2), "norm nuc": lambda a: jnp.linalg.norm(a, "nuc"),
    "matrix_power -2": lambda a: jnp.linalg.matrix_power(a, -2),
    "sqrtm": lambda a: jsl.sqrtm(a), "expm": lambda a: jsl.expm(a), "logm-free funm": lambda a: jsl.funm(a, jnp.sin),
    "rsf2csf": lambda a: jsl.rsf2csf(*jsl.schur(a.real)),
    "eigh_tridiagonal vectors": lambda a: jsl.eigh_tridiagonal(a.real[0], a.real[1, :2]),
}


def _public(mod):
    for name in sorted(dir(mod)):
        fn = getattr(mod, name)
        if not name.startswith("_") and callable(fn) and not inspect.isclass(fn):
            yield name, WRAPPED.get(name, fn)


def _first_that_lowers(fn, dtype):
    for args in _inputs(dtype):
        static = [i for i, x in enumerate(args) if isinstance(x, (int, tuple))]
        try:
            jitted = jax.jit(fn, static_argnums=static)
            text = jitted.lower(*args).as_text()
            jitted(*args)
            return args, static, text
        except Exception:  # noqa: BLE001 - this argument list does not fit the function
            continue
    return None


def _run(label, dtype, text, dynamic, problems, verdicts, xla):
    """The oracle on one program (a failure is added to ``problems``); with ``xla``, XLA's outputs
    judged too (the verdict counted in ``verdicts``, a non-pass added to ``problems``)."""
    try:
        module = parse_module(text)
        oracle.evaluate(module, dynamic)
    except Unsupported as e:
        problems.append((label, np.dtype(dtype).name, "unsupported", str(e)))
        return
    except Exception as e:  # noqa: BLE001 - reported, the survey goes on
        problems.append((label, np.dtype(dtype).name, type(e).__name__, str(e)[:200]))
        return
    if xla is None:
        return
    from judge.verdict import Traits, judge_program
    got = xla.run(text, dynamic)
    if not got.ok:
        verdicts["xla failed"] += 1
        problems.append((label, np.dtype(dtype).name, "xla " + got.status, got.message[:200]))
        return

    def rerun(program):
        again = xla.run(program, dynamic)
        return again.outputs if again.ok else None
    try:
        verdict = judge_program(module, dynamic, got.outputs, rerun=rerun, traits=Traits.of(xla))
    except Exception as e:  # noqa: BLE001
        verdicts["judge error"] += 1
        problems.append((label, np.dtype(dtype).name, "judge " + type(e).__name__, str(e)[:200]))
        return
    listed = verdict.status == "mismatch" and bool(verdict.deviation)  # (the judge found the entry)
    verdicts["known deviation" if listed else verdict.status] += 1
    if verdict.status not in ("pass", "implementation-defined") and not listed:
        problems.append((label, np.dtype(dtype).name, "xla " + verdict.status, str(verdict.message)[:300]))


def survey(verbose: bool = False, judge: bool = False, dtypes=DTYPES, modules=MODULES, only=None):
    """``only``: the function / variant names to survey (None: all)."""
    problems, targets, ran, verdicts = [], Counter(), 0, Counter()
    xla = None
    if judge:
        from adapters import get_backend
        xla = get_backend("xla")
    for mod_name, mod in modules.items():
        for name, fn in _public(mod):
            if only is not None and name not in only:
                continue
            for dtype in dtypes:
                if verbose:
                    print(f"  {mod_name}.{name} {np.dtype(dtype).name}", flush=True)
                found = _first_that_lowers(fn, dtype)
                if found is None:
                    if verbose:
                        print(f"  skip {mod_name}.{name} {np.dtype(dtype).name}: no argument list fits")
                    continue
                args, static, text = found
                targets.update(set(re.findall(r"custom_call @(\w+)", text)))
                dynamic = [np.asarray(x) for i, x in enumerate(args) if i not in static]
                ran += 1
                _run(f"{mod_name}.{name}", dtype, text, dynamic, problems, verdicts, xla)
    variants = {f"variant {k}": f for k, f in VARIANTS.items()}
    for label, fn in variants.items():
        if only is not None and label.removeprefix("variant ") not in only:
            continue
        for dtype in dtypes:
            spd = _inputs(dtype)[0][0]
            try:
                text = jax.jit(fn).lower(spd).as_text()
                jax.jit(fn)(spd)
            except Exception as e:  # noqa: BLE001 - JAX itself refuses this variant / dtype
                if verbose:
                    print(f"  skip {label} {np.dtype(dtype).name}: {type(e).__name__}: {str(e)[:80]}")
                continue
            targets.update(set(re.findall(r"custom_call @(\w+)", text)))
            ran += 1
            _run(label, dtype, text, [spd], problems, verdicts, xla)
    if xla is not None:
        xla.close()
    return problems, targets, ran, verdicts


if __name__ == "__main__":
    argv = sys.argv[1:]
    chosen = DTYPES
    if "--dtypes" in argv:
        chosen = tuple(getattr(np, t) for t in argv[argv.index("--dtypes") + 1].split(","))
    modules = {**MODULES, **MORE_MODULES} if "--more" in argv else MODULES
    only = set(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else None
    problems, targets, ran, verdicts = survey("-v" in argv, "--judge" in argv, chosen, modules, only)
    for p in problems:
        print(" | ".join(p))
    print(f"{ran} (function, dtype) programs lowered and run on the oracle; {len(problems)} problems")
    if verdicts:
        print("XLA's outputs judged:", ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items())))
    print("custom_call targets emitted:", ", ".join(f"{t} x{n}" for t, n in sorted(targets.items())))
