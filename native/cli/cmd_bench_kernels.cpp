// `attend bench kernels`: throughput of the core kernels, each beside an unfused Eigen peer run in the same
// process, then (if Debian's torch is importable) beside PyTorch running bench/torch_kernels.py.
// Lines are `name value unit (peer ..., ratio ...)`; a ratio above 1 means Attend is faster.
#include "kernels/simd.h"  // first: it silences GCC 12's false AVX-512 warnings for the Eigen GEMMs below

#include "cli/command.h"
#include "cli/option_checks.h"
#include "cli/torch_peer.h"
#include "error.h"
#include "kernels/attention.h"
#include "kernels/layernorm.h"
#include "kernels/masked_softmax.h"
#include "kernels/softmax.h"

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace attend::cli {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

struct Figure {
    std::string name, unit;
    double value;
    bool higher_is_better;
};

// Best (shortest) wall time of fn over at least min_time seconds and 3 runs, after one warm-up run. The best
// rather than the mean, because this machine is shared and other processes only ever add time.
double best_seconds(const std::function<void()>& fn, double min_time) {
    fn();
    double best = 1e30, spent = 0.0;
    for (int reps = 0; spent < min_time || reps < 3; ++reps) {
        auto start = std::chrono::steady_clock::now();
        fn();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, s);
        spent += s;
    }
    return best;
}

std::vector<float> random_vector(std::mt19937& rng, size_t n) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(n);
    for (auto& v : x) v = normal(rng);
    return x;
}

void print_figure(const Figure& f, const std::string& peer_name, double peer) {
    const double ratio = f.higher_is_better ? f.value / peer : peer / f.value;
    std::printf("%s %.2f %s (%s %.2f, ratio %.2f)\n", f.name.c_str(), f.value, f.unit.c_str(), peer_name.c_str(),
                peer, ratio);
    std::fflush(stdout);
}

// The unfused peer: per (batch, head) an Eigen GEMM for the scores, the masked softmax, a GEMM for the output.
void unfused_attention(float* out, const float* q, const float* k, const float* v, const AttnMask& mask, int B,
                       int H, int Tq, int Tk, int D) {
    const float scale = 1.0f / std::sqrt((float)D);
#pragma omp parallel
    {
        std::vector<float> scores((size_t)Tq * Tk);
#pragma omp for schedule(dynamic)
        for (int bh = 0; bh < B * H; ++bh) {
            MatrixMap s(scores.data(), Tq, Tk);
            s.noalias() = (ConstMatrixMap(q + (size_t)bh * Tq * D, Tq, D) * scale) *
                          ConstMatrixMap(k + (size_t)bh * Tk * D, Tk, D).transpose();
            AttnMask one = mask;  // this (b, h) pair alone: re-base the per-batch arrays
            const int b = bh / H;
            if (one.key_padding) one.key_padding += (size_t)b * Tk;
            if (one.valid_lens) one.valid_lens += one.valid_lens_per_query ? (size_t)b * Tq : b;
            masked_softmax_forward(scores.data(), scores.data(), one, 1, 1, Tq, Tk);
            MatrixMap(out + (size_t)bh * Tq * D, Tq, D).noalias() =
                s * ConstMatrixMap(v + (size_t)bh * Tk * D, Tk, D);
        }
    }
}

Figure bench_attention(double min_time) {
    const int B = 1, H = 8, T = 1024, D = 64;
    std::mt19937 rng(1);
    auto q = random_vector(rng, (size_t)B * H * T * D), k = random_vector(rng, q.size()),
         v = random_vector(rng, q.size());
    std::vector<float> out(q.size());
    const double flops = 4.0 * B * H * T * T * D;
    const double fused = best_seconds(
        [&] { attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), AttnMask{}, B, H, T, T, D); },
        min_time);
    const double unfused = best_seconds(
        [&] { unfused_attention(out.data(), q.data(), k.data(), v.data(), AttnMask{}, B, H, T, T, D); }, min_time);
    Figure f{"attention_fused_h8_l1024_d64", "GFLOP/s", flops / fused / 1e9, true};
    print_figure(f, "unfused eigen", flops / unfused / 1e9);
    return f;
}

// y[N, Cout] = x[N, Cin] W^T + b, W: [Cout, Cin] (nn.Linear). Eigen's own threading is off, so the rows are
// split into one block per thread.
void linear(float* y, const float* x, const float* W, const float* b, int N, int Cin, int Cout) {
#pragma omp parallel
    {
        const int threads = omp_get_num_threads(), block = (N + threads - 1) / threads;
        const int r0 = std::min(N, omp_get_thread_num() * block), rows = std::min(block, N - r0);
        if (rows > 0) {
            MatrixMap out(y + (size_t)r0 * Cout, rows, Cout);
            out.noalias() = ConstMatrixMap(x + (size_t)r0 * Cin, rows, Cin) * ConstMatrixMap(W, Cout, Cin).transpose();
            out.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, Cout);
        }
    }
}

// Column block [col0, col0 + H*D) of x [B, T, row_width] -> heads [B, H, T, D], and back.
void split_heads(float* heads, const float* x, int row_width, int col0, int B, int T, int H, int D) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                std::copy_n(x + ((size_t)b * T + t) * row_width + col0 + h * D, D,
                            heads + (((size_t)b * H + h) * T + t) * D);
}
void merge_heads(float* x, const float* heads, int B, int T, int H, int D) {
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < T; ++t)
                std::copy_n(heads + (((size_t)b * H + h) * T + t) * D, D, x + (((size_t)b * T + t) * H + h) * D);
}

Figure bench_mha(double min_time) {
    const int B = 64, T = 32, C = 256, H = 8, D = C / H, N = B * T;
    std::mt19937 rng(2);
    auto x = random_vector(rng, (size_t)N * C);
    // As nn.MultiheadAttention: one packed in-projection [3C, C] for q, k, v (one GEMM), and out_proj [C, C].
    auto w_in = random_vector(rng, (size_t)3 * C * C), b_in = random_vector(rng, 3 * C);
    auto w_out = random_vector(rng, (size_t)C * C), b_out = random_vector(rng, C);
    for (auto& w : w_in) w *= 1.0f / std::sqrt((float)C);
    for (auto& w : w_out) w *= 1.0f / std::sqrt((float)C);
    // Sentence lengths between T/2 and T, as in the PyTorch peer.
    std::vector<uint8_t> padding((size_t)B * T);
    std::uniform_int_distribution<int> length(T / 2, T);
    for (int b = 0; b < B; ++b) {
        const int len = length(rng);
        for (int t = 0; t < T; ++t) padding[(size_t)b * T + t] = t >= len;
    }
    AttnMask mask;
    mask.key_padding = padding.data();
    std::vector<float> qkv((size_t)N * 3 * C), qh((size_t)N * C), kh(qh.size()), vh(qh.size()), ctx(qh.size()),
        merged(qh.size()), out(qh.size());

    auto mha = [&](bool fused) {
        linear(qkv.data(), x.data(), w_in.data(), b_in.data(), N, C, 3 * C);
        split_heads(qh.data(), qkv.data(), 3 * C, 0, B, T, H, D);
        split_heads(kh.data(), qkv.data(), 3 * C, C, B, T, H, D);
        split_heads(vh.data(), qkv.data(), 3 * C, 2 * C, B, T, H, D);
        if (fused)
            attention_forward(ctx.data(), nullptr, qh.data(), kh.data(), vh.data(), mask, B, H, T, T, D);
        else
            unfused_attention(ctx.data(), qh.data(), kh.data(), vh.data(), mask, B, H, T, T, D);
        merge_heads(merged.data(), ctx.data(), B, T, H, D);
        linear(out.data(), merged.data(), w_out.data(), b_out.data(), N, C, C);
    };
    const double fused = best_seconds([&] { mha(true); }, min_time);
    const double unfused = best_seconds([&] { mha(false); }, min_time);
    Figure f{"mha_forward_b64_l32_c256_h8", "ms", fused * 1e3, false};
    print_figure(f, "unfused eigen", unfused * 1e3);
    return f;
}

std::vector<Figure> bench_rowwise(double min_time) {
    const int N = 4096, C = 1024;
    std::mt19937 rng(3);
    auto x = random_vector(rng, (size_t)N * C), w = random_vector(rng, C), b = random_vector(rng, C);
    std::vector<float> y(x.size()), mean(N), rstd(N);
    const double bytes = 2.0 * N * C * sizeof(float);
    ConstMatrixMap X(x.data(), N, C);
    MatrixMap Y(y.data(), N, C);

    const double softmax = best_seconds([&] { softmax_forward(y.data(), x.data(), N, C); }, min_time);
    const double softmax_peer = best_seconds(
        [&] {
#pragma omp parallel for schedule(static)
            for (int n = 0; n < N; ++n) {
                Y.row(n) = (X.row(n).array() - X.row(n).maxCoeff()).exp().matrix();
                Y.row(n) /= Y.row(n).sum();
            }
        },
        min_time);
    Figure fs{"softmax_n4096_c1024", "GB/s", bytes / softmax / 1e9, true};
    print_figure(fs, "eigen", bytes / softmax_peer / 1e9);

    const double layernorm = best_seconds(
        [&] { layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1e-5f, N, C); },
        min_time);
    Eigen::Map<const Eigen::RowVectorXf> W(w.data(), C), Bv(b.data(), C);
    const double layernorm_peer = best_seconds(
        [&] {
#pragma omp parallel for schedule(static)
            for (int n = 0; n < N; ++n) {
                const float m = X.row(n).mean();
                const float var = (X.row(n).array() - m).square().mean();
                Y.row(n) = ((X.row(n).array() - m) * (1.0f / std::sqrt(var + 1e-5f)) * W.array() + Bv.array()).matrix();
            }
        },
        min_time);
    Figure fl{"layernorm_n4096_c1024", "GB/s", bytes / layernorm / 1e9, true};
    print_figure(fl, "eigen", bytes / layernorm_peer / 1e9);
    return {fs, fl};
}

// Runs bench/torch_kernels.py with Debian's python and prints `<name>_vs_torch <speedup> x (...)` lines.
void compare_with_torch(const std::vector<Figure>& figures, double min_time) {
    if (!torch_available()) return;
    std::map<std::string, double> torch =
        run_torch_figures("kernels", "bench/torch_kernels.py", "--min-time " + std::to_string(min_time), false);
    for (const Figure& f : figures) {
        auto it = torch.find(f.name);
        if (it == torch.end()) {
            std::printf("# %s: no torch figure\n", f.name.c_str());
            continue;
        }
        const double speedup = f.higher_is_better ? f.value / it->second : it->second / f.value;
        std::printf("%s_vs_torch %.2f x (attend %.2f %s, torch %.2f %s)\n", f.name.c_str(), speedup, f.value,
                    f.unit.c_str(), it->second, f.unit.c_str());
    }
}

void run_bench_kernels(double min_time, bool with_torch) {
    std::printf("# %d OpenMP threads, best of >= %.1f s per figure\n", omp_get_max_threads(), min_time);
    std::vector<Figure> figures;
    figures.push_back(bench_attention(min_time));
    figures.push_back(bench_mha(min_time));
    for (const Figure& f : bench_rowwise(min_time)) figures.push_back(f);
    if (with_torch)
        compare_with_torch(figures, min_time);
    else
        std::printf("# torch comparison skipped: --no-torch\n");
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = bench_command(app)->add_subcommand(
        "kernels", "Fused attention, MHA forward, softmax and layer norm against an unfused Eigen peer (and PyTorch)");
    auto min_time = std::make_shared<double>(1.0);
    auto no_torch = std::make_shared<bool>(false);
    cmd->add_option("--min-time", *min_time, "Seconds spent timing each figure (the best run counts)")
        ->check(positive());
    cmd->add_flag("--no-torch", *no_torch, "Do not run bench/torch_kernels.py");
    cmd->callback([min_time, no_torch] { run_bench_kernels(*min_time, !*no_torch); });
});

}  // namespace
}  // namespace attend::cli
