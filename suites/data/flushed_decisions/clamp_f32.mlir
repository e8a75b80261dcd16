// clamp(lo, x, 1) with a per-element lower bound: the choices compare f32 data with its bounds.
func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %lo = stablehlo.reverse %x, dims = [0] : tensor<8xf32>
  %hi = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
  %r = stablehlo.clamp %lo, %x, %hi : tensor<8xf32>
  return %r : tensor<8xf32>
}
