// The CUDA Transformer step (native/cuda/transformer_cuda.h) against the CPU model and trainer step:
//  1. one forward + backward with dropout (same seed, so the same masks) for two configurations (post-LN, ReLU,
//     separate embeddings / pre-LN, GELU, final norms, tied embeddings, attention weights dropped at their own
//     rate): loss 1e-5 relative; logits 1e-4 absolute +
//     1e-4 relative; every gradient tensor 1e-4 x (its largest CPU magnitude) absolute + 1e-3 relative, named on
//     failure (the key projections' biases, whose true gradient is zero, are checked to be rounding noise instead);
//  2. 30 training steps (warmup schedule, clipping, dropout, label smoothing, Adam eps 1e-8) from the same
//     initialisation: the first step's loss within 1e-5 relative of the CPU's, the mean of the last five within 1e-2
//     (float differences grow through Adam, and a near-zero gradient whose sign differs between two correct
//     summation orders sends its parameter the other way: single steps may drift apart), and the parameters the
//     GPU trained, downloaded into a CPU model, give the GPU's validation loss on the CPU (1e-5 relative): the flat
//     layout is the CPU's, so checkpoints are interchangeable;
//  3. two GPU runs of the same 12 steps give the same losses and parameters bit for bit (no atomics on the step
//     path), and so does the run whose losses are queued and taken one step late;
//  4. bad token ids are refused on the host with the CPU's kind of message;
//  5. the throughput of a transformer-tiny-sized step, waiting for each loss and reading it a step late, printed
//     (tokens/s) as benchmark figures; only finiteness is checked.
#include "cuda/transformer_cuda.h"
#include "cuda_test_util.h"
#include "error.h"
#include "model/transformer.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/transformer_backward.h"
#include "train/xavier_init.h"
#include "model/dropout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

using namespace attend;
using namespace attend::cuda_test;

namespace {

TransformerConfig tiny_config(bool variant) {
    TransformerConfig c;
    c.model_dim = 32;
    c.heads = 4;
    c.encoder_layers = 2;
    c.decoder_layers = 2;
    c.ffn_dim = 64;
    c.src_vocab = variant ? 41 : 37;
    c.tgt_vocab = 41;
    c.max_len = 64;
    c.dropout = 0.1f;
    c.pad_id = 0;
    c.pre_ln = variant;
    c.final_norm = variant;
    c.tie_embeddings = variant;
    c.activation = variant ? Activation::GELU : Activation::ReLU;
    if (variant) c.attention_dropout = 0.2f;
    return c;
}

// Padded random sentences: ids in [1, V) inside the valid length, the padding id 0 after it.
TrainBatch random_batch(const TransformerConfig& c, int B, int S, int T, uint32_t seed) {
    TrainBatch b;
    b.B = B;
    b.S = S;
    b.T = T;
    b.src_valid = random_ints(B, seed, 1, S);
    b.tgt_valid = random_ints(B, seed + 1, 1, T);
    b.src_valid[0] = S;
    b.tgt_valid[0] = T;
    const auto s = random_ints(size_t(B) * S, seed + 2, 1, c.src_vocab - 1);
    const auto t = random_ints(size_t(B) * T, seed + 3, 1, c.tgt_vocab - 1);
    const auto l = random_ints(size_t(B) * T, seed + 4, 1, c.tgt_vocab - 1);
    b.src.assign(size_t(B) * S, 0);
    b.tgt_in.assign(size_t(B) * T, 0);
    b.tgt_out.assign(size_t(B) * T, 0);
    for (int r = 0; r < B; ++r) {
        for (int i = 0; i < b.src_valid[r]; ++i) b.src[size_t(r) * S + i] = s[size_t(r) * S + i];
        for (int i = 0; i < b.tgt_valid[r]; ++i) {
            b.tgt_in[size_t(r) * T + i] = t[size_t(r) * T + i];
            b.tgt_out[size_t(r) * T + i] = l[size_t(r) * T + i];
        }
    }
    return b;
}

// trainer.cpp's step up to the backward, on the CPU. Returns the mean loss; the logits stay in acts.
double cpu_forward_backward(Transformer& model, TransformerActivations& acts, const TrainBatch& b, bool dropout,
                            uint64_t seed, float smoothing) {
    const TransformerConfig& c = model.config;
    plan_transformer(acts, c, b.B, b.S, b.T);
    DropoutStream stream(c.dropout, seed);
    transformer_forward(acts, model, b.src.data(), b.src_valid.data(), b.tgt_in.data(), b.tgt_valid.data(),
                        dropout ? &stream : nullptr);
    const int N = b.B * b.T, V = c.tgt_vocab;
    std::vector<float> probs(size_t(N) * V), dlogits(size_t(N) * V, 0.0f);
    const double sum = cross_entropy_forward(nullptr, probs.data(), acts.logits, b.tgt_out.data(), c.pad_id, smoothing,
                                             N, V);
    const int count = std::max(1, cross_entropy_count(b.tgt_out.data(), c.pad_id, N));
    model.params.zero_grad();
    cross_entropy_backward(dlogits.data(), nullptr, 1.0f / count, probs.data(), b.tgt_out.data(), c.pad_id, smoothing,
                           N, V);
    transformer_backward(model, acts, dlogits.data(), b.src.data(), b.tgt_in.data());
    return sum / count;
}

float warmup_lr(int64_t step) {  // trainer.cpp's learning_rate with lr 3e-3, warmup 10
    const double s = double(step), w = 10;
    return float(3e-3 * std::min(s / w, std::sqrt(w / s)));
}

constexpr size_t kArena = size_t(256) << 20;

// Xavier for the matrices and N(0, 1/C) for the embedding tables, as the trainer initialises: xavier_init_weights
// leaves the tables at zero, and a zero tied table is a zero output projection, whose constant logits send no
// gradient into the layers below (both devices would then agree on zeros).
void init_weights(Transformer& model, uint64_t seed) {
    xavier_init_weights(model.params, seed);
    const float stddev = 1.0f / std::sqrt(float(model.config.model_dim));
    for (const TensorSpec& t : model.params.specs()) {
        if (t.name.find("embedding") == std::string::npos) continue;
        float* w = model.params.value_at(t.offset);
        for (size_t i = 0; i < t.size; ++i) w[i] = normal_at(seed, t.offset + i) * stddev;
    }
}

}  // namespace

TEST_CASE("cuda: Transformer forward + backward on the GPU match the CPU (dropout with the same masks)") {
    ATTEND_REQUIRE_GPU();
    for (bool variant : {false, true}) {
        CAPTURE(variant);
        const TransformerConfig c = tiny_config(variant);
        Transformer cpu(c);
        init_weights(cpu, 7);
        cuda::TransformerCuda gpu(cpu, AdamConfig{}, kArena);
        const TrainBatch b = random_batch(c, 5, 11, 9, 123);
        const float smoothing = 0.1f;
        TransformerActivations acts;
        const double cpu_loss = cpu_forward_backward(cpu, acts, b, true, 99, smoothing);
        const double gpu_loss = gpu.forward_backward(b, true, 99, smoothing);
        CHECK(std::fabs(gpu_loss - cpu_loss) <= 1e-5 * std::fabs(cpu_loss));

        const std::vector<float> cpu_logits(acts.logits, acts.logits + size_t(b.B) * b.T * c.tgt_vocab);
        check_close(gpu.download_logits(), cpu_logits, 1e-4, 1e-4, "logits");

        Transformer from_gpu(c);
        gpu.download_grads(from_gpu.params);
        auto largest = [](const float* g, size_t n) {
            float m = 0.0f;
            for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(g[i]));
            return m;
        };
        for (const TensorSpec& t : cpu.params.specs()) {
            const float* cg = cpu.params.grads() + t.offset;
            const float* gg = from_gpu.params.grads() + t.offset;
            const std::string suffix = "k_proj.bias";
            if (t.name.size() > suffix.size() && t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                // The key bias adds q.b to every score of a query, which softmax ignores: its true gradient is 0,
                // and both sides hold only rounding noise. Both must be noise next to the key weight's gradient.
                const TensorSpec& w = cpu.params.spec(t.name.substr(0, t.name.size() - 4) + "weight");
                const float weight_scale = largest(cpu.params.grads() + w.offset, w.size);
                CAPTURE(t.name);
                CHECK(weight_scale > 0.0f);
                CHECK(largest(cg, t.size) <= 1e-4f * weight_scale);
                CHECK(largest(gg, t.size) <= 1e-4f * weight_scale);
                continue;
            }
            const float scale = largest(cg, t.size);
            check_close(std::vector<float>(gg, gg + t.size), std::vector<float>(cg, cg + t.size), 1e-4 * scale + 1e-9,
                        1e-3, "gradient of " + t.name);
        }
    }
}

TEST_CASE("cuda: 30 Transformer training steps on the GPU follow the CPU's loss curve; the layout is the CPU's") {
    ATTEND_REQUIRE_GPU();
    const TransformerConfig c = tiny_config(false);
    Transformer cpu(c);
    init_weights(cpu, 11);
    AdamConfig adam;
    adam.beta1 = 0.9f;
    adam.beta2 = 0.98f;
    adam.eps = 1e-8f;
    cuda::TransformerCuda gpu(cpu, adam, kArena);
    Adam cpu_adam(cpu.params.size(), adam);
    TransformerActivations acts;
    const float smoothing = 0.1f, clip = 1.0f;
    double cpu_tail = 0, gpu_tail = 0;  // the last five steps' losses
    for (int step = 1; step <= 30; ++step) {
        CAPTURE(step);
        const TrainBatch b = random_batch(c, 6, 4 + step % 7, 3 + step % 9, 1000 + step);
        const uint64_t seed = 5000 + step;
        const double cpu_loss = cpu_forward_backward(cpu, acts, b, true, seed, smoothing);
        clip_grad_norm(cpu.params.grads(), cpu.params.size(), clip);
        cpu_adam.step(cpu.params.values(), cpu.params.grads(), warmup_lr(step));
        const double gpu_loss = gpu.train_step(b, seed, smoothing, clip, warmup_lr(step));
        MESSAGE("step " << step << ": loss cpu " << cpu_loss << " gpu " << gpu_loss);
        if (step == 1) CHECK(std::fabs(gpu_loss - cpu_loss) <= 1e-5 * std::fabs(cpu_loss));
        if (step > 25) cpu_tail += cpu_loss, gpu_tail += gpu_loss;
    }
    CHECK(std::fabs(gpu_tail - cpu_tail) <= 1e-2 * std::fabs(cpu_tail));
    CHECK(gpu.adam_steps() == 30);

    // The GPU's parameters in a CPU model: the CPU computes the loss the GPU computes.
    Transformer trained(c);
    gpu.download_params(trained.params);
    const TrainBatch val = random_batch(c, 4, 10, 8, 77);
    int count = 0;
    const double gpu_sum = gpu.loss_sum(val, 0.0f, &count);
    plan_transformer(acts, c, val.B, val.S, val.T);
    transformer_forward(acts, trained, val.src.data(), val.src_valid.data(), val.tgt_in.data(), val.tgt_valid.data());
    std::vector<float> probs(size_t(val.B) * val.T * c.tgt_vocab);
    const double cpu_sum = cross_entropy_forward(nullptr, probs.data(), acts.logits, val.tgt_out.data(), c.pad_id,
                                                 0.0f, val.B * val.T, c.tgt_vocab);
    CHECK(count == cross_entropy_count(val.tgt_out.data(), c.pad_id, val.B * val.T));
    CHECK(std::fabs(gpu_sum - cpu_sum) <= 1e-5 * std::fabs(cpu_sum));
    MESSAGE("activation arena high water: " << gpu.arena_high_water() << " bytes");
}

TEST_CASE("cuda: training on the GPU repeats bit for bit, and queued steps give the losses train_step gives") {
    ATTEND_REQUIRE_GPU();
    // Both configurations: the tied one adds the output projection's and the embedding lookups' gradients into one
    // table, where repeated ids meet.
    for (const bool variant : {false, true}) {
        CAPTURE(variant);
        const TransformerConfig c = tiny_config(variant);
        Transformer init(c);
        init_weights(init, 21);
        AdamConfig adam;
        adam.eps = 1e-8f;
        std::vector<std::vector<double>> losses(4);
        std::vector<std::vector<float>> params(4);
        // 0, 1: train_step; 2: queued, each loss taken one step late; 3: train_step in an arena that starts at 4 KiB
        // and grows in the first steps (and again where a later batch is larger)
        for (int run = 0; run < 4; ++run) {
            cuda::TransformerCuda gpu(init, adam, run == 3 ? 4096 : kArena);
            for (int step = 1; step <= 12; ++step) {
                const TrainBatch b = random_batch(c, 8, 5 + step % 6, 4 + step % 5, 300 + step);
                if (run != 2) {
                    losses[run].push_back(gpu.train_step(b, 900 + step, 0.1f, 1.0f, warmup_lr(step)));
                    continue;
                }
                gpu.queue_train_step(b, 900 + step, 0.1f, 1.0f, warmup_lr(step));
                if (step == 6) {  // steps 5 and 6 untaken, the most there may be: a third is refused, changing nothing
                    CHECK_THROWS_WITH_AS(gpu.queue_train_step(b, 1, 0.1f, 1.0f, 1e-3f),
                                         doctest::Contains("take_loss() before queuing another step"), Error);
                }
                if (step > 1) losses[run].push_back(gpu.take_loss());
            }
            if (run == 2) losses[run].push_back(gpu.take_loss());
            CHECK_THROWS_WITH_AS(gpu.take_loss(), doctest::Contains("without a queued step"), Error);
            Transformer trained(c);
            gpu.download_params(trained.params);
            params[run].assign(trained.params.values(), trained.params.values() + trained.params.size());
            CHECK(gpu.adam_steps() == 12);
        }
        for (int run = 1; run < 4; ++run) {
            CAPTURE(run);
            CHECK(losses[run] == losses[0]);
            CHECK(std::memcmp(params[run].data(), params[0].data(), params[0].size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("cuda: TransformerCuda refuses bad ids before touching the GPU kernels") {
    ATTEND_REQUIRE_GPU();
    const TransformerConfig c = tiny_config(false);
    Transformer cpu(c);
    cuda::TransformerCuda gpu(cpu, AdamConfig{}, kArena);
    TrainBatch b = random_batch(c, 2, 5, 5, 3);
    b.src[1] = c.src_vocab;
    CHECK_THROWS_WITH_AS(gpu.forward_backward(b, false, 0, 0.0f),
                         doctest::Contains("source id 37 at position 1 is outside the vocabulary"), Error);
}

TEST_CASE("cuda: Transformer training step throughput (transformer-tiny sizes; prints tokens/s, checks only finiteness)") {
    ATTEND_REQUIRE_GPU();
    // transformer-tiny: C 128, 4 heads, 4 + 4 layers, FFN 256, tied 10k joint vocabulary, dropout 0.3, batches of
    // ~4096 padded tokens (here 128 sentences of 32 tokens).
    TransformerConfig c;
    c.model_dim = 128;
    c.heads = 4;
    c.encoder_layers = c.decoder_layers = 4;
    c.ffn_dim = 256;
    c.src_vocab = c.tgt_vocab = 10000;
    c.tie_embeddings = true;
    c.dropout = 0.3f;
    c.max_len = 256;
    c.pad_id = 0;
    Transformer model(c);
    init_weights(model, 3);
    cuda::TransformerCuda gpu(model, AdamConfig{}, size_t(2) << 30);
    const TrainBatch b = random_batch(c, 128, 32, 32, 9);
    int64_t tokens = 0;
    for (int v : b.tgt_valid) tokens += v;
    gpu.train_step(b, 1, 0.1f, 1.0f, 1e-4f);  // warm-up (cuBLAS heuristics, first launches)
    const int steps = 20;
    auto t0 = std::chrono::steady_clock::now();
    double loss = 0;
    for (int s = 0; s < steps; ++s) loss = gpu.train_step(b, 2 + s, 0.1f, 1.0f, 1e-4f);  // each waits for its loss
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("transformer-tiny step on the GPU: " << seconds / steps * 1e3 << " ms/step, " << tokens * steps / seconds
                                                 << " target tokens/s, loss " << loss << ", arena high water "
                                                 << (gpu.arena_high_water() >> 20) << " MiB");
    CHECK(std::isfinite(loss));
    // As the trainer steps: each loss taken once the next step is queued.
    t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
        gpu.queue_train_step(b, 100 + s, 0.1f, 1.0f, 1e-4f);
        if (s > 0) loss = gpu.take_loss();
    }
    loss = gpu.take_loss();
    const double queued = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("the same steps with each loss read one step late: " << queued / steps * 1e3 << " ms/step ("
                                                                  << seconds / queued << "x)");
    CHECK(std::isfinite(loss));
}
