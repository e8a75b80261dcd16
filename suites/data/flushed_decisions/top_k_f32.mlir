// top_k as JAX lowers lax.top_k: the 4 largest values and their positions (ties: the lower index first).
func.func public @main(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %v, %i = chlo.top_k(%x, k = 4) : tensor<8xf32> -> (tensor<4xf32>, tensor<4xi32>)
  return %v, %i : tensor<4xf32>, tensor<4xi32>
}
