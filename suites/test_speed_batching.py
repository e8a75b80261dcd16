"""Which programs XLA batches: the ones its compiler aborts on (listed deviations) run alone,
similar ones still share a module (adapters/xla.py: aborts_xla, XlaBackend.batchable)."""

from __future__ import annotations

from adapters.xla import XlaBackend, aborts_xla


def _one_op(op: str, operand_types: list[str], result_type: str, attributes: str = "") -> str:
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operand_types))
    operands = ", ".join(f"%a{i}" for i in range(len(operand_types)))
    return (f"func.func @main({args}) -> {result_type} {{\n"
            f'  %0 = "stablehlo.{op}"({operands}) {attributes}: ({", ".join(operand_types)}) -> {result_type}\n'
            f"  func.return %0 : {result_type}\n}}\n")


def _batchable(program: str) -> bool:
    return XlaBackend.batchable(XlaBackend.__new__(XlaBackend), program)


def test_programs_xla_aborts_on_run_alone():
    aborting = [
        _one_op("concatenate", ["tensor<4x3xi2>", "tensor<5x3xi2>"], "tensor<9x3xi2>", "{dimension = 0 : i64} "),
        _one_op("concatenate", ["tensor<2x!quant.uniform<i2:f32, 0.5>>"] * 2, "tensor<4x!quant.uniform<i2:f32, 0.5>>",
                "{dimension = 0 : i64} "),
        _one_op("sort", ["tensor<3x5xui4>"], "tensor<3x5xui4>"),
        _one_op("dot_general", ["tensor<3xf8E4M3>", "tensor<3xf8E4M3>"], "tensor<f8E4M3FNUZ>"),
        _one_op("bitcast_convert", ["tensor<2xcomplex<f64>>"], "tensor<2x2xcomplex<f32>>"),
    ]
    for program in aborting:
        assert aborts_xla(program) and not _batchable(program), program


def test_similar_programs_still_share_a_module():
    batched = [
        _one_op("add", ["tensor<4xi2>", "tensor<4xi2>"], "tensor<4xi2>"),
        _one_op("concatenate", ["tensor<4x3xi4>", "tensor<5x3xi4>"], "tensor<9x3xi4>", "{dimension = 0 : i64} "),
        _one_op("sort", ["tensor<3x5xi8>"], "tensor<3x5xi8>"),
        _one_op("dot_general", ["tensor<3xf8E4M3FNUZ>", "tensor<3xf8E4M3FNUZ>"], "tensor<f8E4M3FNUZ>"),
        _one_op("bitcast_convert", ["tensor<2xcomplex<f32>>"], "tensor<2xi64>"),
    ]
    for program in batched:
        assert not aborts_xla(program) and _batchable(program), program
