// A loop that counts while the f32 data's first element is positive, up to 3 iterations:
// its condition compares f32 data with zero.
func.func public @main(%x: tensor<8xf32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %zero, %t = %x) : tensor<i32>, tensor<8xf32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %fz = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %first = stablehlo.slice %t [0:1] : (tensor<8xf32>) -> tensor<1xf32>
    %f = stablehlo.reshape %first : (tensor<1xf32>) -> tensor<f32>
    %more = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %pos = stablehlo.compare GT, %f, %fz, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %go = stablehlo.and %more, %pos : tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %t : tensor<i32>, tensor<8xf32>
  }
  return %w#0 : tensor<i32>
}
