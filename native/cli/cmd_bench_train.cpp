// `attend bench train`: Transformer training throughput (forward + backward + Adam) on a fixed configuration
// (C 256, 3+3 layers, 4 heads, FFN 1024, vocabulary 8000, batch 64 x length 20), then the same step in PyTorch
// (bench/torch_train.py with Debian's python3-torch, 2 threads) when torch imports. --device cuda times the GPU step
// (cuda::TransformerCuda: forward, loss, backward, clipping and Adam on the device) beside torch on the same GPU.
// Under `mpirun -np N` each rank runs its share of the batch's rows and the gradients are summed with
// MPI_Allreduce, as `attend train` does: the tokens are the whole batch's, and the all-reduce's time is printed.
// Tokens are TARGET tokens (batch * target length) per second, for both sides; the best step counts (the
// machine is shared, other processes only ever add time).
#include "cli/command.h"
#include "cli/option_checks.h"
#include "cli/torch_peer.h"
#include "error.h"
#include "model/transformer.h"
#include "train/gemm.h"
#include "train/native_gemm.h"
#include "train/gemm_precision.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/transformer_backward.h"
#include "train/xavier_init.h"
#include "train/communicator.h"
#include "train/train_batch.h"
#include "train/train_device.h"
#if ATTEND_HAVE_CUDA
#include "cuda/cublas_linear.h"
#include "cuda/transformer_cuda.h"
#endif

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attend::cli {
namespace {

struct BenchTrainOptions {
    int steps = 5;
    int model_dim = 256, heads = 4, layers = 3, ffn = 1024, vocab = 8000, batch = 64, length = 20;
    float dropout = 0.1f;
    bool with_torch = true;
    std::string device = "cpu";
    std::string precision = "fp32";
};

std::string torch_args(const BenchTrainOptions& o) {
    return "--steps " + std::to_string(o.steps) + " --model-dim " + std::to_string(o.model_dim) +
           " --heads " + std::to_string(o.heads) + " --layers " + std::to_string(o.layers) +
           " --ffn " + std::to_string(o.ffn) + " --vocab " + std::to_string(o.vocab) + " --batch " +
           std::to_string(o.batch) + " --length " + std::to_string(o.length) + " --dropout " +
           std::to_string(o.dropout) + (o.device == "cpu" ? "" : " --device cuda") +
           (o.precision == "fp32" ? "" : " --precision " + o.precision);
}

void run_bench_train(const BenchTrainOptions& o) {
    TransformerConfig c;
    c.model_dim = o.model_dim;
    c.heads = o.heads;
    c.encoder_layers = c.decoder_layers = o.layers;
    c.ffn_dim = o.ffn;
    c.src_vocab = c.tgt_vocab = o.vocab;
    c.max_len = std::max(o.length, 1);
    c.dropout = o.dropout;
    const int B = o.batch, L = o.length, V = o.vocab;
    Transformer model(c);
    xavier_init_weights(model.params, 1);
    // Embeddings: uniform with nn.Embedding's unit variance; token ids uniform over the vocabulary.
    for (size_t offset : {model.src_embedding, model.tgt_embedding}) {
        float* e = model.params.value_at(offset);
        for (size_t i = 0; i < size_t(V) * c.model_dim; ++i) e[i] = (uniform_at(offset + 2, i) - 0.5f) * 3.4641f;
    }
    std::vector<int> src(size_t(B) * L), tgt(size_t(B) * L), labels(size_t(B) * L);
    for (size_t i = 0; i < src.size(); ++i) {
        src[i] = int(uniform_at(3, i) * V) % V;
        tgt[i] = int(uniform_at(4, i) * V) % V;
        labels[i] = int(uniform_at(5, i) * V) % V;
    }
    TransformerActivations acts;
    plan_transformer(acts, c, B, L, L);
    AdamConfig adam_config;
    adam_config.lr = 1e-3f;
    Adam adam(model.params.size(), adam_config);
    const int N = B * L;
    DropoutStream dropout(c.dropout, 42);
    double loss = 0.0;
    const TrainDevice device = parse_train_device(o.device);
    require_train_device(device);
    if (device == TrainDevice::Cpu && parse_gemm_precision(o.precision) != GemmPrecision::FP32)
        throw Error("bench train: --precision " + o.precision + " is for --device cuda; the CPU step is fp32");
    std::function<void()> step;
#if ATTEND_HAVE_CUDA
    std::unique_ptr<cuda::TransformerCuda> gpu;
    TrainBatch batch;
    if (device == TrainDevice::Cuda) {
        cuda::set_gemm_precision(parse_gemm_precision(o.precision));
        gpu = std::make_unique<cuda::TransformerCuda>(model, adam_config);
        batch.B = B, batch.S = L, batch.T = L;
        batch.src = src, batch.tgt_in = tgt, batch.tgt_out = labels;
        batch.target_tokens = N;
        // train_step reads the loss back, so each timed step ends with the GPU idle; the queued figure below does not.
        step = [&] { loss = gpu->train_step(batch, 42, 0.0f, 0.0f, adam_config.lr); };
    }
#endif
    Communicator& comm = world();
    // This rank's rows [row0, row0 + rows) of the batch (all of it in one process).
    const int row0 = int(int64_t(B) * comm.rank() / comm.size()), rows = int(int64_t(B) * (comm.rank() + 1) / comm.size()) - row0;
    if (comm.size() > 1) {
        if (device != TrainDevice::Cpu) throw Error("bench train: data-parallel (mpirun) runs the CPU step only");
        if (rows < 1) throw Error("bench train: --batch " + std::to_string(B) + " has fewer rows than the " +
                                  std::to_string(comm.size()) + " ranks");
        plan_transformer(acts, c, rows, L, L);
    }
    const int n = rows * L;  // this rank's rows
    double allreduce_seconds = 0;
    if (device == TrainDevice::Cpu) step = [&] {
        model.params.zero_grad();
        DropoutStream drop(c.dropout, 42);
        drop.set_rows(row0, rows, B);
        const size_t first = size_t(row0) * L;
        transformer_train_forward(acts, model, src.data() + first, nullptr, tgt.data() + first, nullptr, &drop);
        // as the trainer's step: the loss's gradient replaces the logits
        loss = cross_entropy_fused(acts.logits, labels.data() + first, -100, 0.0f, 1.0f / N, n, V);
        transformer_backward(model, acts, acts.logits, src.data() + first, tgt.data() + first);
        const auto reduce_start = std::chrono::steady_clock::now();
        comm.allreduce_sum(model.params.grads(), model.params.size());
        comm.allreduce_sum(&loss, 1);
        allreduce_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - reduce_start).count();
        loss /= N;
        adam.step(model.params.values(), model.params.grads());
    };
    if (!step) throw Error("bench train: --device " + o.device + " is not available in this build");
    if (comm.rank() == 0 && !std::getenv("OMP_WAIT_POLICY"))
        std::printf(
            "# OMP_WAIT_POLICY is unset: on a busy shared machine OMP_WAIT_POLICY=passive stops waiting threads from "
            "spinning (the torch peer inherits the same environment)\n");
    if (comm.rank() == 0)
        std::printf(
        "# transformer C %d, %d+%d layers, %d heads, ffn %d, vocab %d, batch %d x length %d, dropout %.2f, "
        "%zu parameters, device %s%s, %d OpenMP threads%s%s; tokens = target tokens\n",
        c.model_dim, o.layers, o.layers, c.heads, c.ffn_dim, V, B, L, c.dropout, model.params.size(),
        o.device.c_str(), o.precision == "fp32" ? "" : (" (" + o.precision + " GEMMs)").c_str(), omp_get_max_threads(),
        comm.size() > 1 ? (" per rank, " + comm.describe()).c_str() : "",
        device == TrainDevice::Cpu ? (", GEMMs " + std::string(gemm_backend())).c_str() : "");
    step();  // warm-up
    const double first_loss = loss;
    double best = 1e30, best_allreduce = 0;
    for (int i = 0; i < o.steps; ++i) {
        comm.barrier();  // the ranks start each timed step together
        auto start = std::chrono::steady_clock::now();
        step();
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        comm.allreduce_sum(&seconds, 1);  // the step takes as long as its slowest rank: time the mean, then the best
        seconds /= comm.size();
        if (seconds < best) best = seconds, best_allreduce = allreduce_seconds;
    }
    if (comm.rank() != 0) return;
    std::printf("# loss %.4f after the warm-up step, %.4f after %d more (same batch, so it should fall)\n", first_loss,
                loss, o.steps);
    const double tokens_per_s = double(N) / best;
    std::printf("train_step_ms %.2f ms\n", best * 1e3);
    if (comm.size() > 1)
        std::printf("train_allreduce_ms %.2f ms (%.1f%% of the step; %s, %.1f MB of gradients)\n", best_allreduce * 1e3,
                    100.0 * best_allreduce / best, comm.describe().c_str(), model.params.size() * 4 / 1e6);
    std::printf("train_tokens_per_s %.1f tokens/s\n", tokens_per_s);
#if ATTEND_HAVE_CUDA
    if (gpu) {  // as attend train steps on the GPU: each step queued before the previous one's loss is read
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < o.steps; ++i) {
            gpu->queue_train_step(batch, 42, 0.0f, 0.0f, adam_config.lr);
            if (i > 0) loss = gpu->take_loss();
        }
        loss = gpu->take_loss();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("train_tokens_per_s_queued %.1f tokens/s (%d steps back to back, each loss read a step late; "
                    "%.2f ms a step)\n",
                    double(N) * o.steps / seconds, o.steps, seconds / o.steps * 1e3);
    }
#endif
    compare_tokens_per_s_with_torch("train", "bench/torch_train.py", torch_args(o), tokens_per_s, o.with_torch);
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = bench_command(app)->add_subcommand(
        "train", "Transformer training tokens/s (forward + backward + Adam) beside PyTorch nn.Transformer");
    auto o = std::make_shared<BenchTrainOptions>();
    cmd->add_option("--steps", o->steps, "Timed steps after one warm-up (the best counts)")->check(at_least(1));
    cmd->add_option("--model-dim", o->model_dim, "C")->check(at_least(1));
    cmd->add_option("--heads", o->heads, "H")->check(at_least(1));
    cmd->add_option("--layers", o->layers, "Encoder and decoder layers each")->check(at_least(1));
    cmd->add_option("--ffn", o->ffn, "FFN hidden size")->check(at_least(1));
    cmd->add_option("--vocab", o->vocab, "Source and target vocabulary size")->check(at_least(1));
    cmd->add_option("--batch", o->batch, "Sentences per batch")->check(at_least(1));
    cmd->add_option("--length", o->length, "Source and target length")->check(at_least(1));
    cmd->add_option("--dropout", o->dropout, "Dropout probability (both sides)")->check(fraction());
    cmd->add_option("--device", o->device, "cpu or cuda (the GPU step; torch then runs on the same GPU)")
        ->check(CLI::IsMember({"cpu", "cuda"}));
    cmd->add_option("--precision", o->precision,
                    "cuda: the GEMMs in fp32, tf32 or bf16 (both sides; torch: allow_tf32 / bf16 autocast)")
        ->check(CLI::IsMember(gemm_precision_names()))
        ->capture_default_str();
    cmd->add_flag(
        "--no-torch", [o](int64_t) { o->with_torch = false; }, "Do not run bench/torch_train.py");
    cmd->callback([o] { run_bench_train(*o); });
});

}  // namespace
}  // namespace attend::cli
