// pair_sum: a dimension 2*b.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x2xf32>, %arg1: tensor<?xf32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %2 = stablehlo.compare GE, %0, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 2),args[1].shape = (2*b,). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %3 = stablehlo.convert %0 : tensor<i32>
    %4 = stablehlo.multiply %3, %c : tensor<i32>
    %5 = stablehlo.compare EQ, %1, %4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.convert %0 : tensor<i32>
    %7 = stablehlo.multiply %6, %c : tensor<i32>
    stablehlo.custom_call @shape_assertion(%5, %1, %7, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= {0}) and the specification '2*b' (= {1}). Using the following polymorphic shapes specifications: args[0].shape = (b, 2),args[1].shape = (2*b,). Obtained dimension variables: 'b' = {2} from specification 'b' for dimension args[0].shape[0] (= {2}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>, tensor<i32>) -> ()
    %8 = call @_wrapped_jax_export_main(%0, %arg0, %arg1) : (tensor<i32>, tensor<?x2xf32>, tensor<?xf32>) -> tensor<?xf32>
    return %8 : tensor<?xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x2xf32>, %arg2: tensor<?xf32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = stablehlo.multiply %0, %c : tensor<i32>
    %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.dynamic_reshape %arg1, %2 : (tensor<?x2xf32>, tensor<1xi32>) -> tensor<?xf32>
    %4 = stablehlo.add %3, %arg2 : tensor<?xf32>
    return %4 : tensor<?xf32>
  }
}
