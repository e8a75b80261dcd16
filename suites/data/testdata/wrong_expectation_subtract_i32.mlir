// Hand-written for this project: a testdata-layout file whose expectation is DELIBERATELY
// WRONG, to prove that failures are detected.  10 - 4 = 6, 3 - 5 = -2, -5 - -5 = 0, but
// @expected claims [6, 2, 0]: the run must report a mismatch at index 1.
module @jit_testcase {
  func.func public @main() -> tensor<3xi32> {
    %0:2 = call @inputs() : () -> (tensor<3xi32>, tensor<3xi32>)
    %1 = call @expected() : () -> tensor<3xi32>
    %2 = stablehlo.subtract %0#0, %0#1 : tensor<3xi32>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<3xi32>, tensor<3xi32>) -> ()
    return %2 : tensor<3xi32>
  }
  func.func private @inputs() -> (tensor<3xi32>, tensor<3xi32>) {
    %0 = stablehlo.constant dense<[10, 3, -5]> : tensor<3xi32>
    %1 = stablehlo.constant dense<[4, 5, -5]> : tensor<3xi32>
    return %0, %1 : tensor<3xi32>, tensor<3xi32>
  }
  func.func private @expected() -> tensor<3xi32> {
    %0 = stablehlo.constant dense<[6, 2, 0]> : tensor<3xi32>
    return %0 : tensor<3xi32>
  }
}
