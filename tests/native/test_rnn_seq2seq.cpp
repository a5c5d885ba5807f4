// The seeds' Seq2SeqEncoder + Seq2SeqAttentionDecoder (GRU + Bahdanau attention): the seeds' shape check,
// PyTorch parity (tools/fixtures_rnn.py) and finite differences of the full backward with dropout.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "error.h"
#include "gradcheck.h"
#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "io/safetensors.h"
#include "kernels/topk.h"
#include "model/parameter_store.h"
#include "model/seq2seq_attention_decoder.h"
#include "model/seq2seq_encoder.h"
#include "model/seq2seq_step_model.h"
#include "train/loss.h"
#include "train/seq2seq_attention_decoder_backward.h"
#include "train/seq2seq_encoder_backward.h"

using namespace attend;

TEST_CASE("Seq2SeqAttentionDecoder: the seeds' shape check (vocab 10, embed 8, hiddens 16, 2 layers, X zeros (4, 7))") {
    Seq2SeqConfig c{10, 8, 16, 2, 0.0f};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    Seq2SeqAttentionDecoder decoder(c, &store);
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 1, -0.3f, 0.3f);
    std::copy(init.begin(), init.end(), store.values());
    CHECK(store.spec("decoder.rnn.weight_ih_l0").shape == std::vector<int>{48, 24});  // embed + hiddens inputs
    CHECK(store.spec("decoder.attention.w_v.weight").shape == std::vector<int>{1, 16});
    CHECK(store.spec("decoder.dense.weight").shape == std::vector<int>{10, 16});
    const int B = 4, T = 7, H = 16, L = 2, V = 10;
    std::vector<int> X(B * T, 0);
    const float guard = 12345.0f;  // outputs written past their shapes would change it
    std::vector<float> enc_out(T * B * H + 1, guard), enc_state(L * B * H + 1, guard);
    encoder.forward(enc_out.data(), enc_state.data(), X.data(), B, T);
    std::vector<float> output(B * T * V + 1, guard), state(L * B * H + 1, guard);
    decoder.forward(output.data(), state.data(), X.data(), enc_out.data(), enc_state.data(), nullptr, B, T, T);
    // (torch.Size([4, 7, 10]), 3, torch.Size([4, 7, 16]), 2, torch.Size([4, 16]))
    CHECK(output.back() == guard);
    CHECK(state.back() == guard);
    CHECK(decoder.saved.B * decoder.saved.Tk * H == 4 * 7 * 16);  // state[0]: enc_outputs permuted to (4, 7, 16)
    CHECK(state.size() - 1 == size_t(2 * 4 * 16));           // state[1]: 2 layers of (4, 16)
    CHECK(decoder.saved.T * decoder.saved.B * decoder.saved.Tk == 7 * 4 * 7);  // one (4, 1, 7) weight map per step
    for (size_t i = 0; i + 1 < output.size(); ++i) REQUIRE(std::isfinite(output[i]));
    for (int r = 0; r < T * B; ++r) {
        double sum = 0;
        for (int j = 0; j < T; ++j) sum += decoder.saved.probs[r * T + j];
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    }
}

namespace {

// tools/fixtures_rnn.py's seq2seq_fixture: the forward, the attention, the loss and every gradient against PyTorch's.
// With a bidirectional encoder the decoder's start (init_state) is checked too, and its backward is part of the
// gradients.
void check_seq2seq_fixture(const std::string& file) {
    SafeTensors st = SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/" + file);
    const auto& m = st.metadata();
    const int Vs = std::stoi(m.at("src_vocab")), Vt = std::stoi(m.at("tgt_vocab")), E = std::stoi(m.at("embed_size")),
              H = std::stoi(m.at("num_hiddens")), L = std::stoi(m.at("num_layers")), B = std::stoi(m.at("batch")),
              Ts = std::stoi(m.at("src_steps")), Tt = std::stoi(m.at("tgt_steps"));
    const bool bi = m.count("bidirectional") && m.at("bidirectional") == "1";
    const int D = bi ? 2 : 1;
    ParameterStore store;
    Seq2SeqEncoder encoder(Seq2SeqConfig{Vs, E, H, L, 0.0f, bi}, &store);
    Seq2SeqAttentionDecoder decoder(Seq2SeqConfig{Vt, E, H, L, 0.0f, bi}, &store);
    store.allocate();
    for (const TensorSpec& spec : store.specs())
        st.read_floats("param." + spec.name, store.value_at(spec.offset),
                       std::vector<int64_t>(spec.shape.begin(), spec.shape.end()));
    std::vector<int> src = st.ints("src"), tgt_in = st.ints("tgt_in"), labels = st.ints("labels"),
                     src_valid = st.ints("src_valid"), tgt_valid = st.ints("tgt_valid");
    std::vector<float> enc_out(Ts * B * D * H), enc_state(D * L * B * H), hidden(L * B * H), output(B * Tt * Vt),
        state(L * B * H);
    encoder.forward(enc_out.data(), enc_state.data(), src.data(), B, Ts);
    decoder.init_state(hidden.data(), enc_state.data(), B);
    decoder.forward(output.data(), state.data(), tgt_in.data(), enc_out.data(), hidden.data(), src_valid.data(), B,
                    Tt, Ts);
    gradcheck::check_parity("enc_outputs", enc_out, st.floats("enc_outputs"));
    gradcheck::check_parity("enc_state", enc_state, st.floats("enc_state"));
    if (bi) gradcheck::check_parity("dec_init_state", hidden, st.floats("dec_init_state"));
    gradcheck::check_parity("dec_output", output, st.floats("dec_output"));
    gradcheck::check_parity("dec_state", state, st.floats("dec_state"));
    const std::vector<float> attention(decoder.saved.probs, decoder.saved.probs + size_t(Tt) * B * Ts);
    gradcheck::check_parity("attention weights", attention, st.floats("attention"));

    std::vector<float> losses(B), probs(output.size()), dlogits(output.size(), 0.0f);
    const double loss =
        masked_softmax_ce_forward(losses.data(), probs.data(), output.data(), labels.data(), tgt_valid.data(), B, Tt, Vt);
    gradcheck::check_parity("loss", std::vector<double>{loss}, st.floats("loss"));
    masked_softmax_ce_backward(dlogits.data(), nullptr, probs.data(), labels.data(), tgt_valid.data(), B, Tt, Vt);
    store.zero_grad();
    std::vector<float> r_state = st.floats("r_dec_state"), denc_out(enc_out.size(), 0.0f),
                       denc_state(enc_state.size(), 0.0f), dhidden(hidden.size(), 0.0f);
    seq2seq_attention_decoder_backward(decoder, denc_out.data(), dhidden.data(), dlogits.data(), r_state.data());
    seq2seq_attention_decoder_init_state_backward(decoder, denc_state.data(), dhidden.data(), B);
    seq2seq_encoder_backward(encoder, denc_out.data(), denc_state.data());
    for (const TensorSpec& spec : store.specs()) {
        std::vector<float> g(store.grad_at(spec.offset), store.grad_at(spec.offset) + spec.size);
        gradcheck::check_parity("d" + spec.name, g, st.floats("grad." + spec.name));
    }
}

}  // namespace

TEST_CASE("Seq2Seq encoder + Bahdanau decoder match PyTorch (outputs, attention, loss and every gradient)") {
    check_seq2seq_fixture("rnn_seq2seq.safetensors");
}

TEST_CASE("Bidirectional encoder + Bahdanau decoder (2H keys, tanh-projected start) match PyTorch, gradients too") {
    check_seq2seq_fixture("rnn_seq2seq_bi.safetensors");
}

// Float forward, central differences with eps 1e-2 evaluated in double; loss O(1-10) so float rounding adds
// ~5e-4 and truncation ~1e-4: tolerance atol 2e-3 + rtol 1e-2 (the PyTorch parity test above is the tight one).
TEST_CASE("Seq2Seq encoder + decoder backward with dropout (training) matches finite differences") {
    for (const bool bi : {false, true}) {
        CAPTURE(bi);
        const int Vs = 7, Vt = 6, E = 3, H = 4, L = 2, B = 2, Ts = 4, Tt = 3, D = bi ? 2 : 1;
        ParameterStore store;
        Seq2SeqEncoder encoder(Seq2SeqConfig{Vs, E, H, L, 0.3f, bi}, &store);
        Seq2SeqAttentionDecoder decoder(Seq2SeqConfig{Vt, E, H, L, 0.3f, bi}, &store);
        store.allocate();
        std::vector<float> init = gradcheck::random_vector(store.size(), 5, -0.7f, 0.7f);
        std::copy(init.begin(), init.end(), store.values());
        std::vector<int> src = {1, 6, 2, 0, 3, 3, 5, 4}, tgt = {0, 2, 5, 1, 4, 4}, valid = {4, 2};
        std::vector<float> R = gradcheck::random_vector(B * Tt * Vt, 6), Rs = gradcheck::random_vector(L * B * H, 7);
        std::vector<float> enc_out(Ts * B * D * H), enc_state(D * L * B * H), hidden(L * B * H), output(B * Tt * Vt),
            state(L * B * H);
        auto loss = [&] {
            DropoutStream drops(0.3f, 2024);
            encoder.forward(enc_out.data(), enc_state.data(), src.data(), B, Ts, true, &drops);
            decoder.init_state(hidden.data(), enc_state.data(), B);
            decoder.forward(output.data(), state.data(), tgt.data(), enc_out.data(), hidden.data(), valid.data(), B, Tt,
                            Ts, true, &drops);
            double l = 0;
            for (size_t i = 0; i < output.size(); ++i) l += double(output[i]) * R[i];
            for (size_t i = 0; i < state.size(); ++i) l += double(state[i]) * Rs[i];
            return l;
        };
        loss();
        bool some_dropped = false;
        for (const Dropout& d : decoder.saved.attn_drop) some_dropped |= d.active();
        CHECK(some_dropped);
        store.zero_grad();
        std::vector<float> denc_out(enc_out.size(), 0.0f), denc_state(enc_state.size(), 0.0f), dhidden(hidden.size(), 0.0f);
        seq2seq_attention_decoder_backward(decoder, denc_out.data(), dhidden.data(), R.data(), Rs.data());
        seq2seq_attention_decoder_init_state_backward(decoder, denc_state.data(), dhidden.data(), B);
        seq2seq_encoder_backward(encoder, denc_out.data(), denc_state.data());
        std::vector<float> grads(store.grads(), store.grads() + store.size());
        std::vector<double> numeric = gradcheck::numerical_gradient(store.values(), store.size(), loss, 1e-2);
        if (bi) CHECK(store.spec("decoder.init_state.1.weight").shape == std::vector<int>{H, 2 * H});
        for (const TensorSpec& spec : store.specs())
            gradcheck::check_close(spec.name, grads.data() + spec.offset, numeric.data() + spec.offset, spec.size, 1e-2,
                                   2e-3);
    }
}

TEST_CASE("Seq2SeqAttentionDecoder: decoding one token per call with the returned state equals the whole sequence") {
    Seq2SeqConfig c{9, 5, 6, 2, 0.0f};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    Seq2SeqAttentionDecoder decoder(c, &store);
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 3, -0.5f, 0.5f);
    std::copy(init.begin(), init.end(), store.values());
    const int B = 2, Ts = 5, T = 4, H = 6, L = 2, V = 9;
    std::vector<int> src = {1, 2, 3, 4, 5, 8, 7, 6, 0, 0}, valid = {5, 3}, tgt = {0, 3, 2, 1, 0, 8, 8, 4};
    std::vector<float> enc_out(Ts * B * H), enc_state(L * B * H), whole(B * T * V), state(L * B * H);
    encoder.forward(enc_out.data(), enc_state.data(), src.data(), B, Ts);
    decoder.forward(whole.data(), state.data(), tgt.data(), enc_out.data(), enc_state.data(), valid.data(), B, T, Ts);
    std::vector<float> stepwise(B * T * V), step_out(B * V), h = enc_state, h_next(h.size());
    for (int t = 0; t < T; ++t) {
        std::vector<int> x = {tgt[t], tgt[T + t]};
        decoder.forward(step_out.data(), h_next.data(), x.data(), enc_out.data(), h.data(), valid.data(), B, 1, Ts);
        for (int b = 0; b < B; ++b)
            std::copy_n(step_out.data() + b * V, V, stepwise.data() + (b * T + t) * V);
        h = h_next;
    }
    gradcheck::check_parity("stepwise logits", stepwise, whole, 1e-6);
    gradcheck::check_parity("stepwise state", h, state, 1e-6);
}

TEST_CASE("Seq2SeqEncoder: bidirectional option gives [T, B, 2H] outputs and [2L, B, H] states") {
    Seq2SeqConfig c{9, 5, 6, 2, 0.0f, true};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    CHECK(store.spec("encoder.rnn.weight_ih_l1_reverse").shape == std::vector<int>{18, 12});
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 4, -0.5f, 0.5f);
    std::copy(init.begin(), init.end(), store.values());
    const int B = 2, T = 3, H = 6;
    std::vector<int> src = {1, 2, 3, 4, 5, 6};
    const float guard = -777.0f;
    std::vector<float> out(T * B * 2 * H + 1, guard), state(2 * 2 * B * H + 1, guard);
    encoder.forward(out.data(), state.data(), src.data(), B, T);
    CHECK(out.back() == guard);
    CHECK(state.back() == guard);
    // The reverse direction of the last layer ends at t = 0: its final state is the second half of out[0].
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < H; ++j) CHECK(state[(3 * B + b) * H + j] == out[(0 * B + b) * 2 * H + H + j]);
}

// predict_seq2seq's loop for one sentence: from the decoder state h [L,H], argmax token by token, stopping at <eos>.
std::vector<int> greedy_by_hand(Seq2SeqAttentionDecoder& decoder, const float* enc_out, std::vector<float> h,
                                int valid, int Ts, int V, int bos, int eos, int max_len) {
    std::vector<float> h_next(h.size()), logits(V);
    std::vector<int> tokens;
    for (int t = 0, x = bos; t < max_len; ++t) {
        decoder.forward(logits.data(), h_next.data(), &x, enc_out, h.data(), &valid, 1, 1, Ts);
        h = h_next;
        x = argmax(logits.data(), V);
        tokens.push_back(x);
        if (x == eos) break;
    }
    return tokens;
}

TEST_CASE("Seq2SeqStepModel: greedy search equals the seeds' predict_seq2seq loop; beam search keeps per-hypothesis "
          "states") {
    Seq2SeqConfig c{12, 5, 6, 2, 0.0f};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    Seq2SeqAttentionDecoder decoder(c, &store);
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 8, -1.0f, 1.0f);
    std::copy(init.begin(), init.end(), store.values());
    const int Ts = 6, H = 6, L = 2, V = 12, bos = 2, eos = 3, max_len = 8;
    std::vector<int> src = {5, 7, 9, 3, 1, 1};  // <eos> = 3, then padding
    // predict_seq2seq: encoder state, then argmax token by token, stopping at <eos>.
    std::vector<float> enc_out(Ts * H), h(L * H), h_next(L * H), logits(V);
    encoder.forward(enc_out.data(), h.data(), src.data(), 1, Ts);
    const int valid = 4;
    const std::vector<int> expected = greedy_by_hand(decoder, enc_out.data(), h, valid, Ts, V, bos, eos, max_len);
    SearchOptions options;
    options.bos_id = bos;
    options.eos_id = eos;
    options.max_length = max_len;
    Seq2SeqStepModel greedy_model(encoder, decoder, src.data(), Ts, valid);
    Hypothesis greedy = greedy_search(greedy_model, options);
    CHECK(greedy.tokens == expected);
    CHECK(greedy_model.last_attention().size() == size_t(Ts));
    double row = 0;
    for (float a : greedy_model.last_attention()) row += a;
    CHECK(row == doctest::Approx(1.0).epsilon(1e-6));
    for (int j = valid; j < Ts; ++j) CHECK(greedy_model.last_attention()[j] == 0.0f);

    options.beam_size = 1;
    Seq2SeqStepModel beam1_model(encoder, decoder, src.data(), Ts, valid);
    std::vector<Hypothesis> beam1 = beam_search(beam1_model, options);
    REQUIRE(!beam1.empty());
    CHECK(beam1[0].tokens == expected);
    options.beam_size = 4;
    Seq2SeqStepModel beam_model(encoder, decoder, src.data(), Ts, valid);
    std::vector<Hypothesis> beams = beam_search(beam_model, options);
    REQUIRE(!beams.empty());
    // Re-scoring each returned hypothesis with a fresh token-by-token decoder gives its log-probability back: the
    // state of every hypothesis followed it through select().
    for (const Hypothesis& hyp : beams) {
        encoder.forward(enc_out.data(), h.data(), src.data(), 1, Ts);
        double log_prob = 0;
        int prev = bos;
        for (int token : hyp.tokens) {
            decoder.forward(logits.data(), h_next.data(), &prev, enc_out.data(), h.data(), &valid, 1, 1, Ts);
            h = h_next;
            double m = -INFINITY, z = 0;
            for (float l : logits) m = std::max(m, double(l));
            for (float l : logits) z += std::exp(double(l) - m);
            log_prob += double(logits[token]) - m - std::log(z);
            prev = token;
        }
        CHECK(hyp.log_prob == doctest::Approx(log_prob).epsilon(1e-4));
    }
    CHECK_THROWS_AS(Seq2SeqStepModel(encoder, decoder, src.data(), Ts, 0), Error);
}

TEST_CASE("Seq2SeqStepModel with a bidirectional encoder: greedy search equals the token-by-token loop from "
          "init_state; a unidirectional decoder refuses a bidirectional encoder") {
    Seq2SeqConfig c{12, 5, 6, 2, 0.0f, true};
    ParameterStore store;
    Seq2SeqEncoder encoder(c, &store);
    Seq2SeqAttentionDecoder decoder(c, &store);
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 9, -1.0f, 1.0f);
    std::copy(init.begin(), init.end(), store.values());
    const int Ts = 6, H = 6, L = 2, V = 12, bos = 2, eos = 3, max_len = 8, valid = 4;
    std::vector<int> src = {5, 7, 9, 3, 1, 1};
    std::vector<float> enc_out(Ts * 2 * H), enc_state(2 * L * H), h(L * H), h_next(L * H), logits(V);
    encoder.forward(enc_out.data(), enc_state.data(), src.data(), 1, Ts);
    decoder.init_state(h.data(), enc_state.data(), 1);
    const std::vector<int> expected = greedy_by_hand(decoder, enc_out.data(), h, valid, Ts, V, bos, eos, max_len);
    SearchOptions options;
    options.bos_id = bos;
    options.eos_id = eos;
    options.max_length = max_len;
    Seq2SeqStepModel model(encoder, decoder, src.data(), Ts, valid);
    CHECK(greedy_search(model, options).tokens == expected);
    options.beam_size = 3;
    Seq2SeqStepModel beam_model(encoder, decoder, src.data(), Ts, valid);
    CHECK(!beam_search(beam_model, options).empty());

    ParameterStore other;
    Seq2SeqConfig uni = c;
    uni.bidirectional = false;
    Seq2SeqAttentionDecoder uni_decoder(uni, &other);
    other.allocate();
    CHECK_THROWS_WITH_AS(Seq2SeqStepModel(encoder, uni_decoder, src.data(), Ts, valid),
                         doctest::Contains("directions"), Error);
}

namespace {

// One training pass of a seq2seq model: forward with dropout, backward of a fixed random projection of the logits
// and the final state. Returns the logits, the final state and every parameter gradient, concatenated.
std::vector<float> train_pass(Seq2SeqEncoder& encoder, Seq2SeqAttentionDecoder& decoder, int B, int Ts, int Tt,
                              uint64_t seed) {
    const Seq2SeqConfig& c = decoder.config();
    const int H = c.num_hiddens, L = c.num_layers, V = c.vocab_size;
    ParameterStore& store = *decoder.store();
    std::vector<int> src(size_t(B) * Ts), tgt(size_t(B) * Tt), valid(B);
    for (size_t i = 0; i < src.size(); ++i) src[i] = int((i * 7 + seed) % size_t(encoder.config().vocab_size));
    for (size_t i = 0; i < tgt.size(); ++i) tgt[i] = int((i * 5 + seed) % size_t(V));
    for (int b = 0; b < B; ++b) valid[size_t(b)] = 1 + (b + int(seed)) % Ts;
    std::vector<float> enc_out(size_t(Ts) * B * H), enc_state(size_t(L) * B * H), output(size_t(B) * Tt * V),
        state(size_t(L) * B * H);
    DropoutStream drops(c.dropout, seed);
    encoder.forward(enc_out.data(), enc_state.data(), src.data(), B, Ts, true, &drops);
    decoder.forward(output.data(), state.data(), tgt.data(), enc_out.data(), enc_state.data(), valid.data(), B, Tt, Ts,
                    true, &drops);
    const std::vector<float> R = gradcheck::random_vector(output.size(), seed + 1),
                             Rs = gradcheck::random_vector(state.size(), seed + 2);
    store.zero_grad();
    std::vector<float> denc_out(enc_out.size(), 0.0f), denc_state(enc_state.size(), 0.0f);
    seq2seq_attention_decoder_backward(decoder, denc_out.data(), denc_state.data(), R.data(), Rs.data());
    seq2seq_encoder_backward(encoder, denc_out.data(), denc_state.data());
    std::vector<float> all = output;
    all.insert(all.end(), state.begin(), state.end());
    all.insert(all.end(), store.grads(), store.grads() + store.size());
    return all;
}

struct Seq2SeqPair {
    explicit Seq2SeqPair(const Seq2SeqConfig& c) : encoder(c, &store), decoder(c, &store) {
        store.allocate();
        const std::vector<float> init = gradcheck::random_vector(store.size(), 11, -0.5f, 0.5f);
        std::copy(init.begin(), init.end(), store.values());
    }
    ParameterStore store;
    Seq2SeqEncoder encoder;
    Seq2SeqAttentionDecoder decoder;
};

}  // namespace

TEST_CASE("Seq2Seq encoder + decoder keep their activations in one arena each, reused across calls of any size") {
    const Seq2SeqConfig c{9, 4, 5, 2, 0.2f};
    Seq2SeqPair m(c);
    // Every activation of one forward lies in the model's arena; the encoder's holds the GRU stack's too.
    train_pass(m.encoder, m.decoder, 3, 6, 5, 1);
    const float* enc_begin = m.encoder.saved.embedded;
    const float* enc_end = enc_begin + m.encoder.saved.arena.used();
    for (const std::vector<float*>* blocks : {&m.encoder.rnn().saved.dir_out, &m.encoder.rnn().saved.gates,
                                               &m.encoder.rnn().saved.extra})
        for (const float* p : *blocks) CHECK((p >= enc_begin && p < enc_end));
    CHECK(m.decoder.saved.zeros + 3 * 5 == m.decoder.saved.enc + m.decoder.saved.arena.used());  // zeros: [B, H], last

    // Smaller calls re-carve the same storage and equal ones keep the plan; each pass equals a fresh model's.
    const int shapes[][3] = {{2, 4, 3}, {2, 4, 3}, {3, 6, 5}, {1, 2, 1}, {3, 6, 5}};
    uint64_t seed = 2;
    for (const auto& s : shapes) {
        CAPTURE(seed);
        const float* enc_storage = m.encoder.saved.embedded;
        const float* dec_storage = m.decoder.saved.enc;
        const std::vector<float> reused = train_pass(m.encoder, m.decoder, s[0], s[1], s[2], seed);
        Seq2SeqPair fresh(c);
        const std::vector<float> expected = train_pass(fresh.encoder, fresh.decoder, s[0], s[1], s[2], seed);
        gradcheck::check_parity("reused arena vs a fresh model", reused, expected, 1e-6);
        CHECK(m.encoder.saved.embedded == enc_storage);  // never larger than the first call: no reallocation
        CHECK(m.decoder.saved.enc == dec_storage);
        ++seed;
    }

    // A copy does not share the original's arena: it holds no activations until its own forward.
    Seq2SeqEncoder copy = m.encoder;
    CHECK(copy.saved.embedded == nullptr);
    CHECK_THROWS_AS(seq2seq_encoder_backward(copy, nullptr, nullptr), Error);
}
