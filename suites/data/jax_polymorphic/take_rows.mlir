// take_rows: gather with two dimension variables.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<?xi32>) -> (tensor<?x3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?xi32>) -> tensor<i32>
    %2 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 3),args[1].shape = (c,). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %3 = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%3, %0, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'c'. Using the following polymorphic shapes specifications: args[0].shape = (b, 3),args[1].shape = (c,). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), 'c' = {1} from specification 'c' for dimension args[1].shape[0] (= {1}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %4 = call @_wrapped_jax_export_main(%0, %1, %arg0, %arg1) : (tensor<i32>, tensor<i32>, tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
    return %4 : tensor<?x3xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<i32> {jax.global_constant = "c"}, %arg2: tensor<?x3xf32>, %arg3: tensor<?xi32>) -> (tensor<?x3xf32> {jax.result_info = "result"}) {
    %0 = call @_take(%arg0, %arg1, %arg2, %arg3) : (tensor<i32>, tensor<i32>, tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
  func.func private @_take(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<i32> {jax.global_constant = "c"}, %arg2: tensor<?x3xf32>, %arg3: tensor<?xi32>) -> tensor<?x3xf32> {
    %c = stablehlo.constant dense<1> : tensor<1xi32>
    %0 = stablehlo.reshape %arg1 : (tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.concatenate %0, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %2 = stablehlo.dynamic_broadcast_in_dim %arg3, %1, dims = [0] : (tensor<?xi32>, tensor<2xi32>) -> tensor<?x1xi32>
    %3 = "stablehlo.gather"(%arg2, %2) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<?x3xf32>, tensor<?x1xi32>) -> tensor<?x3xf32>
    return %3 : tensor<?x3xf32>
  }
}
