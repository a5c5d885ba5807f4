// A training step must not depend on where its buffers sit in memory: otherwise a run resumed in another
// process (or after other allocations) drifts from the uninterrupted one in the last bits. Eigen reductions
// that peel unaligned leading elements (dot, colwise().sum()) broke this once.
#include <doctest/doctest.h>

#include "model/transformer.h"
#include "train/loss.h"
#include "train/transformer_backward.h"
#include "train/xavier_init.h"

#include <cstring>
#include <vector>

using namespace attend;

TEST_CASE("forward and backward give bit-identical results whatever the heap layout") {
    TransformerConfig c;
    c.model_dim = 32;
    c.heads = 2;
    c.encoder_layers = 1;
    c.decoder_layers = 1;
    c.ffn_dim = 32;
    c.src_vocab = c.tgt_vocab = 300;
    c.max_len = 64;
    c.dropout = 0.1f;
    c.tie_embeddings = true;
    c.pad_id = 1;
    const int B = 8, S = 13, T = 11, V = 300;
    std::vector<int> src(B * S), tgt(B * T), labels(B * T), src_valid(B), tgt_valid(B);
    for (int i = 0; i < B * S; i++) src[i] = 4 + (i * 7) % 290;
    for (int i = 0; i < B * T; i++) {
        tgt[i] = 4 + (i * 13) % 290;
        labels[i] = 4 + (i * 5) % 290;
    }
    for (int b = 0; b < B; b++) {
        src_valid[b] = S - b % 4;
        tgt_valid[b] = T - b % 3;
    }
    std::vector<float> first_logits, first_grads;
    std::vector<std::vector<char>> shifts;
    for (int run = 0; run < 4; run++) {
        shifts.emplace_back(run * 24 + 8);  // moves every later allocation by a few bytes
        Transformer m(c, true);
        xavier_init_weights(m.params, 3);
        TransformerActivations acts;
        plan_transformer(acts, c, B, S, T);
        DropoutStream dropout(0.1f, 77);
        transformer_forward(acts, m, src.data(), src_valid.data(), tgt.data(), tgt_valid.data(), &dropout);
        std::vector<float> probs(size_t(B) * T * V), dlogits(size_t(B) * T * V, 0.0f);
        cross_entropy_forward(nullptr, probs.data(), acts.logits, labels.data(), 1, 0.1f, B * T, V);
        cross_entropy_backward(dlogits.data(), nullptr, 0.01f, probs.data(), labels.data(), 1, 0.1f, B * T, V);
        m.params.zero_grad();
        transformer_backward(m, acts, dlogits.data(), src.data(), tgt.data());
        if (run == 0) {
            first_logits.assign(acts.logits, acts.logits + size_t(B) * T * V);
            first_grads.assign(m.params.grads(), m.params.grads() + m.params.size());
            continue;
        }
        CHECK(std::memcmp(acts.logits, first_logits.data(), first_logits.size() * sizeof(float)) == 0);
        for (const TensorSpec& spec : m.params.specs()) {
            CAPTURE(spec.name);
            CHECK(std::memcmp(m.params.grads() + spec.offset, first_grads.data() + spec.offset, spec.size * sizeof(float)) == 0);
        }
    }
}
