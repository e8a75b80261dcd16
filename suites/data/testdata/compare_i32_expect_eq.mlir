// Hand-written for this project in the layout of the StableHLO repo's testdata files,
// in MLIR's generic syntax (as those files are also distributed).  compare LT, SIGNED:
//   1 < 2 -> true, 5 < 5 -> false, -3 < -4 -> false, -2147483648 < 2147483647 -> true.
"builtin.module"() <{sym_name = "jit_testcase"}> ({
  "func.func"() <{function_type = () -> tensor<4xi1>, sym_name = "main", sym_visibility = "public"}> ({
    %0:2 = "func.call"() <{callee = @inputs}> : () -> (tensor<4xi32>, tensor<4xi32>)
    %1 = "func.call"() <{callee = @expected}> : () -> tensor<4xi1>
    %2 = "stablehlo.compare"(%0#0, %0#1) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    "stablehlo.custom_call"(%2, %1) <{call_target_name = "check.expect_eq", has_side_effect = true}> : (tensor<4xi1>, tensor<4xi1>) -> ()
    "func.return"(%2) : (tensor<4xi1>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (tensor<4xi32>, tensor<4xi32>), sym_name = "inputs", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[1, 5, -3, -2147483648]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %1 = "stablehlo.constant"() <{value = dense<[2, 5, -4, 2147483647]> : tensor<4xi32>}> : () -> tensor<4xi32>
    "func.return"(%0, %1) : (tensor<4xi32>, tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> tensor<4xi1>, sym_name = "expected", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[true, false, false, true]> : tensor<4xi1>}> : () -> tensor<4xi1>
    "func.return"(%0) : (tensor<4xi1>) -> ()
  }) : () -> ()
}) : () -> ()
