// mlp_batch: the model with a symbolic batch b.
// Exported by examples/jax_programs/export_polymorphic.py with jax 0.10.2 (jax.export); no goldens: check it with shlo-conform check.
module @jit_mlp attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x4xf32>, %arg4: tensor<4xf32>) -> (tensor<?x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x8xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 8). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<i32>, tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    return %2 : tensor<?x4xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x8xf32>, %arg2: tensor<8x16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<16x4xf32>, %arg5: tensor<4xf32>) -> (tensor<?x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<1xi32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c_1 = stablehlo.constant dense<4> : tensor<1xi32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %cst_5 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %c_6 = stablehlo.constant dense<16> : tensor<1xi32>
    %0 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.concatenate %2, %c_6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %4 = stablehlo.dynamic_broadcast_in_dim %1, %3, dims = [0, 1] : (tensor<1x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
    %5 = stablehlo.add %0, %4 : tensor<?x16xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<?x16xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<?x16xf32>
    %8 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %9 = stablehlo.concatenate %8, %c_6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %10 = stablehlo.dynamic_broadcast_in_dim %cst_5, %9, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
    %11 = stablehlo.multiply %10, %7 : tensor<?x16xf32>
    %12 = stablehlo.add %5, %11 : tensor<?x16xf32>
    %13 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %14 = stablehlo.concatenate %13, %c_6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %15 = stablehlo.dynamic_broadcast_in_dim %cst_4, %14, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
    %16 = stablehlo.multiply %15, %12 : tensor<?x16xf32>
    %17 = stablehlo.tanh %16 : tensor<?x16xf32>
    %18 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %19 = stablehlo.concatenate %18, %c_6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %20 = stablehlo.dynamic_broadcast_in_dim %cst_3, %19, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
    %21 = stablehlo.add %20, %17 : tensor<?x16xf32>
    %22 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %23 = stablehlo.concatenate %22, %c_6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %24 = stablehlo.dynamic_broadcast_in_dim %cst_2, %23, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
    %25 = stablehlo.multiply %24, %21 : tensor<?x16xf32>
    %26 = stablehlo.multiply %5, %25 : tensor<?x16xf32>
    %27 = stablehlo.dot_general %26, %arg4, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x4xf32>) -> tensor<?x4xf32>
    %28 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %29 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %30 = stablehlo.concatenate %29, %c_1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %31 = stablehlo.dynamic_broadcast_in_dim %28, %30, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    %32 = stablehlo.add %27, %31 : tensor<?x4xf32>
    %33 = stablehlo.reduce(%32 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %34 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %35 = stablehlo.dynamic_broadcast_in_dim %cst_0, %34, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %36 = stablehlo.maximum %35, %33 : tensor<?xf32>
    %37 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %38 = stablehlo.concatenate %37, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %39 = stablehlo.dynamic_broadcast_in_dim %36, %38, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32>
    %40 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %41 = stablehlo.concatenate %40, %c_1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %42 = stablehlo.dynamic_broadcast_in_dim %39, %41, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    %43 = stablehlo.subtract %32, %42 : tensor<?x4xf32>
    %44 = stablehlo.exponential %43 : tensor<?x4xf32>
    %45 = stablehlo.reduce(%44 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %46 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %47 = stablehlo.concatenate %46, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %48 = stablehlo.dynamic_broadcast_in_dim %45, %47, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32>
    %49 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %50 = stablehlo.concatenate %49, %c_1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %51 = stablehlo.dynamic_broadcast_in_dim %48, %50, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    %52 = stablehlo.divide %44, %51 : tensor<?x4xf32>
    return %52 : tensor<?x4xf32>
  }
}
