// Hand-written for this project in the layout of the older StableHLO testdata files: the
// check is `stablehlo.custom_call @check.eq` returning tensor<i1> (floats: almost_eq 1e-4).
//   0.5 * 4 = 2, 3 * -1.5 = -4.5, -0 * 2 = -0, 2048 * 2048 = 4194304 > f16 max (65504) -> inf.
module @jit_testcase {
  func.func public @main() -> tensor<i1> {
    %0:2 = call @inputs() : () -> (tensor<4xf16>, tensor<4xf16>)
    %1 = call @expected() : () -> tensor<4xf16>
    %2 = stablehlo.multiply %0#0, %0#1 : tensor<4xf16>
    %3 = stablehlo.custom_call @check.eq(%2, %1) : (tensor<4xf16>, tensor<4xf16>) -> tensor<i1>
    return %3 : tensor<i1>
  }
  func.func private @inputs() -> (tensor<4xf16>, tensor<4xf16>) {
    %0 = stablehlo.constant dense<[5.000000e-01, 3.000000e+00, -0.000000e+00, 2.048000e+03]> : tensor<4xf16>
    %1 = stablehlo.constant dense<[4.000000e+00, -1.500000e+00, 2.000000e+00, 2.048000e+03]> : tensor<4xf16>
    return %0, %1 : tensor<4xf16>, tensor<4xf16>
  }
  func.func private @expected() -> tensor<4xf16> {
    %0 = stablehlo.constant dense<[2.000000e+00, -4.500000e+00, -0.000000e+00, 0x7C00]> : tensor<4xf16>
    return %0 : tensor<4xf16>
  }
}
