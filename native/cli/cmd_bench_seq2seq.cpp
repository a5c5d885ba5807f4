// `attend bench seq2seq`: training throughput of the seeds' RNN model (Seq2SeqEncoder + Seq2SeqAttentionDecoder,
// GRU + Bahdanau attention) with the seeds' training step (teacher forcing, MaskedSoftmaxCELoss summed, backward,
// grad_clipping(net, 1), Adam lr 0.005), on the seeds' configuration (embed 32, hiddens 32, 2 layers, dropout 0.1,
// batch 64, num_steps 10; vocabulary 200, about the size of the seeds' fra-eng subset). Then the same step in
// PyTorch (bench/torch_seq2seq.py, Debian's python3-torch, 2 threads) when torch imports.
// Tokens are valid target tokens (Y_valid_len.sum(), the seeds' metric) per second; the best step counts.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/option_checks.h"
#include "cli/torch_peer.h"
#include "error.h"
#include "model/dropout.h"
#include "model/parameter_store.h"
#include "model/seq2seq_attention_decoder.h"
#include "model/seq2seq_encoder.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/seq2seq_attention_decoder_backward.h"
#include "train/seq2seq_encoder_backward.h"
#include "train/xavier_init.h"

namespace attend::cli {
namespace {

struct BenchSeq2SeqOptions {
    int steps = 10, embed = 32, hiddens = 32, layers = 2, vocab = 200, batch = 64, length = 10;
    float dropout = 0.1f;
    bool with_torch = true;
};

std::string torch_args(const BenchSeq2SeqOptions& o) {
    return "--steps " + std::to_string(o.steps) + " --embed " + std::to_string(o.embed) +
           " --hiddens " + std::to_string(o.hiddens) + " --layers " + std::to_string(o.layers) +
           " --vocab " + std::to_string(o.vocab) + " --batch " + std::to_string(o.batch) +
           " --length " + std::to_string(o.length) + " --dropout " + std::to_string(o.dropout);
}

void run_bench_seq2seq(const BenchSeq2SeqOptions& o) {
    const int B = o.batch, T = o.length, V = o.vocab, H = o.hiddens, L = o.layers;
    if (T < 3) throw Error("bench seq2seq: --length must be at least 3 (valid lengths are drawn from [3, length])");
    const Seq2SeqConfig c{V, o.embed, H, L, o.dropout};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    Seq2SeqAttentionDecoder decoder(c, &store);
    store.allocate();
    xavier_init_weights(store, 1);  // the seeds' xavier_init_weights: Linear and GRU weights
    for (const char* name : {"encoder.embedding.weight", "decoder.embedding.weight"}) {  // nn.Embedding: N(0, 1)
        const TensorSpec& spec = store.spec(name);
        for (size_t i = 0; i < spec.size; ++i) store.value_at(spec.offset)[i] = normal_at(2, spec.offset + i);
    }
    std::vector<int> src(size_t(B) * T), dec_in(size_t(B) * T), labels(size_t(B) * T), src_valid(B), tgt_valid(B);
    uint64_t counter = 0;
    auto draw = [&](int n) { return int(uniform_at(3, counter++) * float(n)) % n; };
    for (size_t i = 0; i < src.size(); ++i) {
        src[i] = draw(V);
        dec_in[i] = draw(V);
        labels[i] = draw(V);
    }
    int tokens = 0;
    for (int b = 0; b < B; ++b) {
        src_valid[b] = 3 + draw(T - 2);
        tgt_valid[b] = 3 + draw(T - 2);
        tokens += tgt_valid[b];
    }
    std::vector<float> enc_out(size_t(T) * B * H), enc_state(size_t(L) * B * H), logits(size_t(B) * T * V);
    std::vector<float> probs(logits.size()), dlogits(logits.size()), denc_out(enc_out.size()), denc_state(enc_state.size());
    AdamConfig adam_config;
    adam_config.lr = 0.005f;
    Adam adam(store.size(), adam_config);
    DropoutStream dropout(o.dropout, 42);
    double loss = 0;
    auto step = [&] {
        store.zero_grad();
        encoder.forward(enc_out.data(), enc_state.data(), src.data(), B, T, true, &dropout);
        decoder.forward(logits.data(), nullptr, dec_in.data(), enc_out.data(), enc_state.data(), src_valid.data(), B, T,
                        T, true, &dropout);
        loss = masked_softmax_ce_forward(nullptr, probs.data(), logits.data(), labels.data(), tgt_valid.data(), B, T, V);
        std::fill(dlogits.begin(), dlogits.end(), 0.0f);
        masked_softmax_ce_backward(dlogits.data(), nullptr, probs.data(), labels.data(), tgt_valid.data(), B, T, V);
        std::fill(denc_out.begin(), denc_out.end(), 0.0f);
        std::fill(denc_state.begin(), denc_state.end(), 0.0f);
        seq2seq_attention_decoder_backward(decoder, denc_out.data(), denc_state.data(), dlogits.data(), nullptr);
        seq2seq_encoder_backward(encoder, denc_out.data(), denc_state.data());
        clip_grad_norm(store.grads(), store.size(), 1.0);
        adam.step(store.values(), store.grads());
    };
    std::printf("# seq2seq GRU + Bahdanau: embed %d, hiddens %d, %d layers, dropout %.2f, vocab %d, batch %d x %d steps, "
                "%zu parameters, %d OpenMP threads; tokens = valid target tokens (%d per batch)\n",
                o.embed, H, L, o.dropout, V, B, T, store.size(), omp_get_max_threads(), tokens);
    step();  // warm-up
    const double first_loss = loss;
    double best = 1e30;
    for (int i = 0; i < o.steps; ++i) {
        auto start = std::chrono::steady_clock::now();
        step();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("# summed loss %.4f after the warm-up step, %.4f after %d more (same batch, so it should fall)\n",
                first_loss, loss, o.steps);
    const double tokens_per_s = tokens / best;
    std::printf("seq2seq_step_ms %.2f ms\n", best * 1e3);
    std::printf("seq2seq_tokens_per_s %.1f tokens/s\n", tokens_per_s);
    compare_tokens_per_s_with_torch("seq2seq", "bench/torch_seq2seq.py", torch_args(o), tokens_per_s, o.with_torch);
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = bench_command(app)->add_subcommand(
        "seq2seq", "The seeds' GRU + Bahdanau seq2seq training tokens/s (forward + backward + clip + Adam) beside PyTorch");
    auto o = std::make_shared<BenchSeq2SeqOptions>();
    cmd->add_option("--steps", o->steps, "Timed steps after one warm-up (the best counts)")->check(at_least(1));
    cmd->add_option("--embed", o->embed, "Embedding size")->check(at_least(1));
    cmd->add_option("--hiddens", o->hiddens, "GRU hidden size")->check(at_least(1));
    cmd->add_option("--layers", o->layers, "GRU layers (encoder and decoder)")->check(at_least(1));
    cmd->add_option("--vocab", o->vocab, "Source and target vocabulary size")->check(at_least(1));
    cmd->add_option("--batch", o->batch, "Sentences per batch")->check(at_least(1));
    cmd->add_option("--length", o->length, "num_steps (source and target)")->check(at_least(3, 100000));
    cmd->add_option("--dropout", o->dropout, "Dropout probability")->check(fraction());
    cmd->add_flag("--no-torch", [o](int64_t) { o->with_torch = false; }, "Do not run bench/torch_seq2seq.py");
    cmd->callback([o] { run_bench_seq2seq(*o); });
});

}  // namespace
}  // namespace attend::cli
