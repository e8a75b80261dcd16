// cumsum: dynamic_reduce_window.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x2xf32>) -> (tensor<?x2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 2). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0) : (tensor<i32>, tensor<?x2xf32>) -> tensor<?x2xf32>
    return %2 : tensor<?x2xf32>
  }
  func.func @reduce_window_float32_reducer(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x2xf32>) -> (tensor<?x2xf32> {jax.result_info = "result"}) {
    %0 = call @cumsum(%arg0, %arg1) : (tensor<i32>, tensor<?x2xf32>) -> tensor<?x2xf32>
    return %0 : tensor<?x2xf32>
  }
  func.func private @cumsum(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x2xf32>) -> tensor<?x2xf32> {
    %0 = call @cumsum_0(%arg0, %arg1) : (tensor<i32>, tensor<?x2xf32>) -> tensor<?x2xf32>
    return %0 : tensor<?x2xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<i32>, %arg1: tensor<?x2xf32>) -> tensor<?x2xf32> {
    %c = stablehlo.constant dense<1> : tensor<1xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = stablehlo.convert %arg0 : tensor<i32>
    %2 = stablehlo.add %1, %c_1 : tensor<i32>
    %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
    %4 = stablehlo.concatenate %3, %c_0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %5 = stablehlo.reshape %4 : (tensor<2xi32>) -> tensor<1x2xi32>
    %6 = stablehlo.concatenate %c_0, %c_0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %7 = stablehlo.reshape %6 : (tensor<2xi32>) -> tensor<1x2xi32>
    %8 = stablehlo.concatenate %5, %7, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
    %9 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %10 = stablehlo.concatenate %9, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %11 = stablehlo.concatenate %c, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %12 = stablehlo.concatenate %c, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %13 = stablehlo.concatenate %c, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %14 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg1, %0, %10, %11, %12, %13, %8) {api_version = 2 : i32, called_computations = [@reduce_window_float32_reducer]} : (tensor<?x2xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x2xf32>
    return %14 : tensor<?x2xf32>
  }
}
