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
