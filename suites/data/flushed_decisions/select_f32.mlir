// jnp.where(x > 0, x, y): a select whose predicate compares f32 data with zero.
func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %z = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
  %y = stablehlo.constant dense<-7.000000e+00> : tensor<8xf32>
  %p = stablehlo.compare GT, %x, %z, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %r = stablehlo.select %p, %x, %y : tensor<8xi1>, tensor<8xf32>
  return %r : tensor<8xf32>
}
