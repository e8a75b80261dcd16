// A stable sort of f32 values with a plain LT FLOAT comparator: the values it moves stay exact,
// the order is the comparator's.
func.func public @main(%keys: tensor<8xf32>) -> tensor<8xf32> {
  %s = "stablehlo.sort"(%keys) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
