// matmul_two_vars: dot_general with b and c.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32>, %arg1: tensor<4x?xf32>) -> (tensor<?x?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<4x?xf32>) -> tensor<i32>
    %2 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 4),args[1].shape = (4, c). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %3 = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%3, %0, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'c'. Using the following polymorphic shapes specifications: args[0].shape = (b, 4),args[1].shape = (4, c). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), 'c' = {1} from specification 'c' for dimension args[1].shape[1] (= {1}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %4 = call @_wrapped_jax_export_main(%0, %1, %arg0, %arg1) : (tensor<i32>, tensor<i32>, tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
    return %4 : tensor<?x?xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<i32> {jax.global_constant = "c"}, %arg2: tensor<?x4xf32>, %arg3: tensor<4x?xf32>) -> (tensor<?x?xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }
}
