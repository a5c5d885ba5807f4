#include "translate/bahdanau_search_model.h"

#include <algorithm>

#include "error.h"

namespace attend {

std::vector<int> bahdanau_encoder_input(const BahdanauConfig& config, const int* src, int S) {
    if (S < 1) throw Error("bahdanau model: the source sentence is empty");
    if (S > config.max_source_tokens())
        throw Error("bahdanau model: the source is " + std::to_string(S) + " tokens long (with <eos>); this model accepts at most " +
                    std::to_string(config.max_source_tokens()));
    std::vector<int> ids(src, src + S);
    if (config.num_steps > 0) ids.resize(size_t(config.num_steps), config.pad_id);
    return ids;
}

BahdanauSearchModel::BahdanauSearchModel(const BahdanauSeq2Seq& model, const int* src, int S)
    : encoder_(model.encoder),
      decoder_(model.decoder),
      source_(bahdanau_encoder_input(model.config, src, S)),
      step_(encoder_, decoder_, source_.data(), static_cast<int>(source_.size()), S) {}

void bahdanau_cross_attention(std::vector<float>& weights, const BahdanauSeq2Seq& model, const int* src, int S,
                              const int* tgt_in, int T) {
    if (T < 1) throw Error("bahdanau attention: no target tokens");
    Seq2SeqEncoder encoder = model.encoder;
    Seq2SeqAttentionDecoder decoder = model.decoder;
    const std::vector<int> source = bahdanau_encoder_input(model.config, src, S);
    const int Tk = static_cast<int>(source.size()), H = model.config.num_hiddens, L = model.config.num_layers;
    std::vector<float> enc(size_t(Tk) * decoder.key_size()), enc_state(size_t(decoder.encoder_state_layers()) * H),
        state(size_t(L) * H), logits(size_t(T) * model.config.tgt_vocab);
    encoder.forward(enc.data(), enc_state.data(), source.data(), 1, Tk);
    decoder.init_state(state.data(), enc_state.data(), 1);
    const int valid = S;
    decoder.forward(logits.data(), nullptr, tgt_in, enc.data(), state.data(), &valid, 1, T, Tk);
    weights.resize(size_t(T) * S);
    for (int t = 0; t < T; ++t)  // saved.probs [T, B = 1, Tk]
        std::copy_n(decoder.saved.probs + size_t(t) * Tk, S, weights.data() + size_t(t) * S);
}

}  // namespace attend
