// Transformer model: incremental decoding with a key/value cache equals full recomputation, the seeds' encoder
// shape check, config JSON, tensor names, and a finite-difference check of transformer_backward through every
// layer with dropout active.
#include "error.h"
#include "model/transformer.h"
#include "train/transformer_backward.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>

using namespace attend;
using namespace attend_test;

namespace {

void randomize(Transformer& m, uint64_t seed, double scale = 0.3) {
    Rng rng(seed);
    for (const auto& spec : m.params.specs()) {
        float* v = m.params.value_at(spec.offset);
        const bool norm = spec.name.find("norm") != std::string::npos && spec.name.find(".weight") != std::string::npos;
        for (size_t i = 0; i < spec.size; ++i) v[i] = float((norm ? 1.0 : 0.0) + rng.uniform(-scale, scale));
    }
}

TransformerConfig small_config(bool pre_ln, bool tie, Activation activation) {
    TransformerConfig c;
    c.model_dim = 8;
    c.heads = 2;
    c.encoder_layers = 2;
    c.decoder_layers = 2;
    c.ffn_dim = 12;
    c.src_vocab = 10;
    c.tgt_vocab = tie ? 10 : 9;
    c.max_len = 12;
    c.dropout = 0.0f;
    c.pre_ln = pre_ln;
    c.tie_embeddings = tie;
    c.final_norm = pre_ln;
    c.activation = activation;
    return c;
}

}  // namespace

TEST_CASE("transformer: incremental decoding with the key/value cache gives the full forward's logits (1e-5)") {
    for (bool pre_ln : {false, true}) {
        CAPTURE(pre_ln);
        const TransformerConfig c = small_config(pre_ln, !pre_ln, pre_ln ? Activation::GELU : Activation::ReLU);
        Transformer model(c, false);
        randomize(model, 3 + pre_ln);
        const int B = 2, S = 5, T = 6, V = c.tgt_vocab;
        const std::vector<int> src = {2, 3, 4, 5, 6, 7, 8, 2, 0, 0}, src_valid = {5, 3};
        const std::vector<int> tgt = {1, 4, 2, 8, 3, 5, 1, 7, 7, 2, 6, 0};
        TransformerActivations acts;
        plan_transformer(acts, c, B, S, T);
        transformer_forward(acts, model, src.data(), src_valid.data(), tgt.data(), nullptr);

        TransformerDecodingState state;
        transformer_start_decoding(state, model, src.data(), src_valid.data(), B, S, T);
        std::vector<float> step_logits(size_t(B) * V);
        for (int t = 0; t < T; ++t) {
            const int tokens[B] = {tgt[t], tgt[T + t]};
            transformer_decode_step(step_logits.data(), state, model, tokens);
            for (int b = 0; b < B; ++b) {
                CAPTURE(t);
                CAPTURE(b);
                const float* full = acts.logits + (size_t(b) * T + t) * V;
                CHECK(relative_error(step_logits.data() + size_t(b) * V, full, V) < 1e-5);
            }
        }
        CHECK(state.steps == T);
        const int one[B] = {1, 1};
        CHECK_THROWS_AS(transformer_decode_step(step_logits.data(), state, model, one), Error);  // cache full
    }
}

TEST_CASE("transformer: the seeds' encoder shape check, (2, 100) ones with valid_lens [3, 2] -> (2, 100, 24)") {
    // Seed 000: TransformerEncoder(200, 24, 24, 24, 24, [100, 24], 24, 48, 8, 2, 0.5), use_bias False, eval mode.
    TransformerConfig c;
    c.src_vocab = c.tgt_vocab = 200;
    c.model_dim = 24;
    c.ffn_dim = 48;
    c.heads = 8;
    c.encoder_layers = 2;
    c.decoder_layers = 1;
    c.dropout = 0.5f;
    c.bias = false;
    c.max_len = 1000;
    Transformer model(c, false);
    CHECK_FALSE(model.params.contains("encoder.layers.0.self_attn.q_proj.bias"));
    CHECK(model.params.contains("encoder.layers.1.linear1.bias"));
    randomize(model, 5);
    const int B = 2, S = 100;
    std::vector<int> ones(B * S, 1);
    const int valid_lens[B] = {3, 2};
    TransformerDecodingState state;
    transformer_start_decoding(state, model, ones.data(), valid_lens, B, S, 4);
    CHECK(state.memory.size() == size_t(2) * 100 * 24);
    for (float v : state.memory) REQUIRE(std::isfinite(v));
}

TEST_CASE("transformer: tensor names follow PyTorch dotted paths; tying shares one table") {
    Transformer untied(small_config(false, false, Activation::ReLU), false);
    for (const char* name : {"src_embedding.weight", "tgt_embedding.weight", "output.weight", "output.bias",
                             "encoder.layers.0.self_attn.q_proj.weight", "encoder.layers.1.self_attn.out_proj.bias",
                             "encoder.layers.0.linear1.weight", "encoder.layers.0.norm2.bias",
                             "decoder.layers.1.cross_attn.v_proj.weight", "decoder.layers.0.norm3.weight"})
        CHECK_MESSAGE(untied.params.contains(name), name);
    CHECK_FALSE(untied.params.contains("encoder.norm.weight"));
    CHECK(untied.params.spec("output.weight").shape == std::vector<int>{9, 8});
    Transformer tied(small_config(true, true, Activation::GELU), false);
    CHECK(tied.params.contains("embedding.weight"));
    CHECK(tied.params.contains("decoder.norm.weight"));
    CHECK_FALSE(tied.params.contains("src_embedding.weight"));
    CHECK_FALSE(tied.params.contains("output.weight"));
    CHECK(tied.src_embedding == tied.tgt_embedding);
    CHECK(tied.output_weight == tied.src_embedding);
}

TEST_CASE("transformer config: JSON round trip and errors naming the field") {
    TransformerConfig c = small_config(true, true, Activation::GELU);
    c.dropout = 0.25f;
    c.pad_id = 1;
    const TransformerConfig back = transformer_config_from_json(transformer_config_to_json(c));
    CHECK(back.model_dim == c.model_dim);
    CHECK(back.heads == c.heads);
    CHECK(back.encoder_layers == c.encoder_layers);
    CHECK(back.ffn_dim == c.ffn_dim);
    CHECK(back.tgt_vocab == c.tgt_vocab);
    CHECK(back.dropout == c.dropout);
    CHECK(back.tie_embeddings);
    CHECK(back.pre_ln);
    CHECK(back.final_norm);
    CHECK(back.activation == Activation::GELU);
    CHECK(back.pad_id == 1);
    auto message = [](const nlohmann::json& j) {
        try {
            transformer_config_from_json(j);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message({{"model_dim", 10}, {"heads", 4}}).find("multiple of heads") != std::string::npos);
    CHECK(message({{"activation", "tanh"}}).find("activation") != std::string::npos);
    CHECK(message({{"heads", "four"}}).find("'heads'") != std::string::npos);
    CHECK(message({{"tie_embeddings", true}, {"src_vocab", 5}, {"tgt_vocab", 6}}).find("tie") != std::string::npos);
    CHECK(message(nlohmann::json::array()).find("object") != std::string::npos);
}

TEST_CASE("transformer config: attention_dropout is written only when set; absent, the attention takes `dropout`") {
    TransformerConfig c = small_config(false, false, Activation::ReLU);
    c.dropout = 0.3f;
    const nlohmann::json plain = transformer_config_to_json(c);
    CHECK_FALSE(plain.contains("attention_dropout"));  // files of models trained before the field stay as they were
    CHECK_FALSE(transformer_config_from_json(plain).attention_dropout.has_value());
    CHECK(transformer_config_from_json(plain).attention_dropout_rate() == 0.3f);
    c.attention_dropout = 0.0f;
    const TransformerConfig back = transformer_config_from_json(transformer_config_to_json(c));
    REQUIRE(back.attention_dropout.has_value());
    CHECK(*back.attention_dropout == 0.0f);
    CHECK(back.attention_dropout_rate() == 0.0f);
    CHECK(back.dropout == 0.3f);
    auto message = [](nlohmann::json j) {
        try {
            transformer_config_from_json(j);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message({{"attention_dropout", 1.5}}).find("attention_dropout") != std::string::npos);
    CHECK(message({{"attention_dropout", -0.1}}).find("attention_dropout") != std::string::npos);
    CHECK(message({{"attention_dropout", "none"}}).find("attention_dropout") != std::string::npos);
}

TEST_CASE("transformer: attention_dropout drops the attention weights at its own rate; no other site's mask moves") {
    // Same seed, same inputs; only the attention sites' rate differs between the configurations.
    const int B = 2, S = 4, T = 3;
    const std::vector<int> src = {2, 3, 1, 5, 6, 7, 8, 2}, tgt = {1, 4, 2, 8, 3, 5};
    const std::vector<int> src_valid = {4, 3}, tgt_valid = {3, 2};
    struct Pass {
        std::vector<float> logits;
        std::vector<Dropout> attention, other;  // every site's descriptor, in forward order
    };
    auto pass = [&](float dropout, std::optional<float> attention_dropout) {
        TransformerConfig c = small_config(false, false, Activation::ReLU);
        c.dropout = dropout;
        c.attention_dropout = attention_dropout;
        Transformer model(c);
        randomize(model, 5);
        TransformerActivations acts;
        plan_transformer(acts, c, B, S, T);
        DropoutStream stream(c.dropout, 99);
        transformer_forward(acts, model, src.data(), src_valid.data(), tgt.data(), tgt_valid.data(), &stream);
        Pass p;
        p.logits.assign(acts.logits, acts.logits + size_t(B) * T * c.tgt_vocab);
        p.other = {acts.src_dropout, acts.tgt_dropout};
        for (const auto& e : acts.encoder) {
            p.attention.push_back(e.self_attn.attention_dropout);
            p.other.insert(p.other.end(), {e.norm1.dropout, e.norm2.dropout});
        }
        for (const auto& d : acts.decoder) {
            p.attention.insert(p.attention.end(), {d.self_attn.attention_dropout, d.cross_attn.attention_dropout});
            p.other.insert(p.other.end(), {d.norm1.dropout, d.norm2.dropout, d.norm3.dropout});
        }
        return p;
    };
    auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    const Pass absent = pass(0.3f, std::nullopt), same = pass(0.3f, 0.3f), none = pass(0.3f, 0.0f);
    CHECK(same_bits(absent.logits, same.logits));        // absent means the model's dropout
    CHECK_FALSE(same_bits(absent.logits, none.logits));  // 0 keeps every attention weight
    REQUIRE(none.attention.size() == 2 + 2 * 2);
    REQUIRE(none.other.size() == 2 + 2 * 2 + 2 * 3);
    for (size_t i = 0; i < none.attention.size(); ++i) {
        CAPTURE(i);
        CHECK(absent.attention[i].p == 0.3f);
        CHECK_FALSE(none.attention[i].active());
        CHECK(none.attention[i].offset == absent.attention[i].offset);  // the counters are taken all the same
    }
    for (size_t i = 0; i < none.other.size(); ++i) {
        CAPTURE(i);
        CHECK(none.other[i].p == 0.3f);
        CHECK(none.other[i].offset == absent.other[i].offset);
        CHECK(none.other[i].seed == absent.other[i].seed);
    }
    // The attention alone dropped: the model's dropout 0 leaves the stream's rate at 0, the attention sites still drop.
    const Pass off = pass(0.0f, std::nullopt), attention_only = pass(0.0f, 0.5f);
    CHECK_FALSE(same_bits(off.logits, attention_only.logits));
    for (const Dropout& d : attention_only.attention) CHECK(d.p == 0.5f);
    for (const Dropout& d : attention_only.other) CHECK_FALSE(d.active());
}

TEST_CASE("transformer_backward: central differences through every layer, dropout active") {
    // Float forward, double loss L = sum(logits * G); central differences with eps = 1e-2 on 3 entries of every
    // tensor. Float rounding of L is ~1e-7 |L| / eps, so the check is |numeric - analytic| <= 2e-3 + 1e-2 |analytic|.
    // GELU (smooth), so no ReLU kink sits inside a difference step. Dropout masks are counter-based: every
    // forward with the same seed drops the same elements.
    for (bool pre_ln : {false, true}) {
        CAPTURE(pre_ln);
        TransformerConfig c = small_config(pre_ln, pre_ln, Activation::GELU);
        c.dropout = 0.2f;
        if (pre_ln) c.attention_dropout = 0.4f;  // the attention weights' own rate through the backward too
        c.final_norm = true;
        c.pad_id = 0;
        Transformer model(c);
        randomize(model, 11 + pre_ln);
        const int B = 2, S = 4, T = 3, V = c.tgt_vocab;
        const std::vector<int> src = {2, 3, 0, 5, 6, 7, 8, 2}, src_valid = {4, 2};
        const std::vector<int> tgt = {1, 4, 2, 8, 0, 5}, tgt_valid = {3, 2};
        Rng rng(77);
        const auto G = random_floats(size_t(B) * T * V, rng);
        TransformerActivations acts;
        plan_transformer(acts, c, B, S, T);
        auto loss = [&] {
            DropoutStream dropout(c.dropout, 1234);
            transformer_forward(acts, model, src.data(), src_valid.data(), tgt.data(), tgt_valid.data(), &dropout);
            double l = 0;
            for (size_t i = 0; i < G.size(); ++i) l += double(acts.logits[i]) * G[i];
            return l;
        };
        loss();
        model.params.zero_grad();
        transformer_backward(model, acts, G.data(), src.data(), tgt.data());
        int checked = 0;
        for (const auto& spec : model.params.specs()) {
            for (int r = 0; r < 3; ++r) {
                size_t i = size_t(rng.integer(int(spec.size)));
                if (spec.name.find("embedding") != std::string::npos) i = size_t(2) * c.model_dim + r;  // a used row
                float* p = model.params.value_at(spec.offset) + i;
                const float saved = *p;
                *p = saved + 1e-2f;
                const double plus = loss();
                *p = saved - 1e-2f;
                const double minus = loss();
                *p = saved;
                const double numeric = (plus - minus) / (double(saved + 1e-2f) - double(saved - 1e-2f));
                const double analytic = model.params.grad_at(spec.offset)[i];
                CAPTURE(spec.name);
                CAPTURE(i);
                CHECK(std::fabs(numeric - analytic) <= 2e-3 + 1e-2 * std::fabs(analytic));
                ++checked;
            }
        }
        CHECK(checked == 3 * int(model.params.specs().size()));
        // The padding row (pad_id 0) of the source table gets no gradient (untied only: a tied table is also the
        // output projection, whose row 0 does get a gradient).
        if (!c.tie_embeddings) {
            const float* pad_row = model.params.grad_at(model.src_embedding);
            for (int k = 0; k < c.model_dim; ++k) CHECK(pad_row[k] == 0.0f);
        }
    }
}

TEST_CASE("transformer: a step is a pure function of its inputs (reused activations leave no trace)") {
    // Resuming a run must reproduce it bit for bit, so nothing may read what an earlier step left in the arena.
    for (bool pre_ln : {false, true}) {
        CAPTURE(pre_ln);
        TransformerConfig c = small_config(pre_ln, false, Activation::ReLU);
        c.dropout = 0.3f;
        Transformer model(c);
        randomize(model, 21);
        const int B = 2, S = 4, T = 3;
        const std::vector<int> src_a = {2, 3, 1, 5, 6, 7, 8, 2}, tgt_a = {1, 4, 2, 8, 3, 5};
        const std::vector<int> src_b = {9, 1, 1, 4, 3, 3, 2, 7}, tgt_b = {5, 5, 6, 0, 2, 1};
        const std::vector<int> valid_a = {4, 2}, valid_b = {3, 4};
        Rng rng(3);
        const auto G = random_floats(size_t(B) * T * c.tgt_vocab, rng);
        auto step = [&](TransformerActivations& acts, const std::vector<int>& src, const std::vector<int>& tgt,
                        const std::vector<int>& valid, uint64_t seed) {
            DropoutStream dropout(c.dropout, seed);
            model.params.zero_grad();
            transformer_forward(acts, model, src.data(), valid.data(), tgt.data(), nullptr, &dropout);
            transformer_backward(model, acts, G.data(), src.data(), tgt.data());
            return std::vector<float>(model.params.grads(), model.params.grads() + model.params.size());
        };
        TransformerActivations fresh, reused;
        plan_transformer(fresh, c, B, S, T);
        plan_transformer(reused, c, B, S, T);
        step(reused, src_b, tgt_b, valid_b, 8);
        const auto expected = step(fresh, src_a, tgt_a, valid_a, 7);
        const auto got = step(reused, src_a, tgt_a, valid_a, 7);
        CHECK(std::memcmp(expected.data(), got.data(), expected.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(fresh.logits, reused.logits, size_t(B) * T * c.tgt_vocab * sizeof(float)) == 0);
    }
}
