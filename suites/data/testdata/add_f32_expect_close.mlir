// Hand-written for this project in the layout of the StableHLO repo's testdata files
// (pretty syntax): @main calls @inputs / @expected, applies the op under test and checks
// the result with a custom_call.  Expected values computed by hand:
//   1.5 + 2.25 = 3.75, -2 + 2 = +0 (round to nearest), 0.25 + 0.5 = 0.75, inf + 1 = inf;
// @expected holds them as little-endian f32 bits: 0x40700000 0x00000000 0x3F400000 0x7F800000.
module @jit_testcase {
  func.func public @main() -> tensor<4xf32> {
    %0:2 = call @inputs() : () -> (tensor<4xf32>, tensor<4xf32>)
    %1 = call @expected() : () -> tensor<4xf32>
    %2 = stablehlo.add %0#0, %0#1 : tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    return %2 : tensor<4xf32>
  }
  func.func private @inputs() -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.constant dense<[1.500000e+00, -2.000000e+00, 2.500000e-01, 0x7F800000]> : tensor<4xf32>
    %1 = stablehlo.constant dense<[2.250000e+00, 2.000000e+00, 5.000000e-01, 1.000000e+00]> : tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @expected() -> tensor<4xf32> {
    %0 = stablehlo.constant dense<"0x00007040000000000000403F0000807F"> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
