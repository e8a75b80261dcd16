// Hand-written for this project in the layout of the StableHLO repo's testdata files;
// @check.expect_almost_eq allows |actual - expected| <= 1e-3.
//   1 / 3 = 0.333333..., 2 / 8 = 0.25, -7 / 2 = -3.5 (the expectation 0.3333 is 3.3e-5 away).
module @jit_testcase {
  func.func public @main() -> tensor<3xf32> {
    %0:2 = call @inputs() : () -> (tensor<3xf32>, tensor<3xf32>)
    %1 = call @expected() : () -> tensor<3xf32>
    %2 = stablehlo.divide %0#0, %0#1 : tensor<3xf32>
    stablehlo.custom_call @check.expect_almost_eq(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %2 : tensor<3xf32>
  }
  func.func private @inputs() -> (tensor<3xf32>, tensor<3xf32>) {
    %0 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, -7.000000e+00]> : tensor<3xf32>
    %1 = stablehlo.constant dense<[3.000000e+00, 8.000000e+00, 2.000000e+00]> : tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  func.func private @expected() -> tensor<3xf32> {
    %0 = stablehlo.constant dense<[3.333000e-01, 2.500000e-01, -3.500000e+00]> : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
