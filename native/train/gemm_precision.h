// The arithmetic of a GPU run's matrix products (`attend train --precision`). Everything else (attention, layer
// norm, softmax, the loss, Adam and the weights themselves) stays FP32 on every setting.
//   fp32: FP32 products and sums, as the CPU (results agree with it to ~1e-6).
//   tf32: the products' inputs rounded to TF32 (10-bit mantissa) on tensor cores, FP32 sums: ~1e-3 relative error
//         per product.
//   bf16: the products' inputs rounded to bfloat16 (7-bit mantissa) on tensor cores, FP32 sums and FP32 master
//         weights (the rounding happens inside cuBLAS, per GEMM): ~8e-3 relative error per product.
#pragma once
#include <string>
#include <vector>

namespace attend {

enum class GemmPrecision { FP32, TF32, BF16 };

// The names, in GemmPrecision's order: "fp32", "tf32", "bf16" (what --precision accepts).
const std::vector<std::string>& gemm_precision_names();
// One of gemm_precision_names(); anything else throws attend::Error naming the accepted values.
GemmPrecision parse_gemm_precision(const std::string& name);
const char* gemm_precision_name(GemmPrecision p);

}  // namespace attend
