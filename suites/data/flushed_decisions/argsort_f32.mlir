// argsort of f32 keys as JAX lowers jnp.argsort: the comparator maps -0 to +0 and every NaN to one
// NaN (compare EQ / NE + select), then compares TOTALORDER; iota carries the positions.
func.func public @main(%keys: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xf32>) {
  %iota = stablehlo.iota dim = 0 : tensor<8xi32>
  %s:2 = "stablehlo.sort"(%keys, %iota) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %q = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %e1 = stablehlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a1 = stablehlo.select %e1, %z, %a : tensor<i1>, tensor<f32>
    %n1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a2 = stablehlo.select %n1, %q, %a1 : tensor<i1>, tensor<f32>
    %e2 = stablehlo.compare EQ, %b, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %b1 = stablehlo.select %e2, %z, %b : tensor<i1>, tensor<f32>
    %n2 = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %b2 = stablehlo.select %n2, %q, %b1 : tensor<i1>, tensor<f32>
    %lt = stablehlo.compare LT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  return %s#1, %s#0 : tensor<8xi32>, tensor<8xf32>
}
