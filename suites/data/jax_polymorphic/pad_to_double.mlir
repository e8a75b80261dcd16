// pad_to_double: dynamic_pad.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?xf32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b,). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0) : (tensor<i32>, tensor<?xf32>) -> tensor<?xf32>
    return %2 : tensor<?xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?xf32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = call @_pad(%arg0, %arg1, %c) : (tensor<i32>, tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
  func.func private @_pad(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?xf32>, %arg2: tensor<i32>) -> tensor<?xf32> {
    %c = stablehlo.constant dense<0> : tensor<1xi32>
    %0 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %2 = stablehlo.dynamic_pad %arg1, %0, %c, %1, %c : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
    return %2 : tensor<?xf32>
  }
}
