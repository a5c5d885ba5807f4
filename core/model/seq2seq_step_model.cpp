#include "model/seq2seq_step_model.h"

#include <algorithm>
#include <cstddef>

#include "error.h"

namespace attend {

Seq2SeqStepModel::Seq2SeqStepModel(Seq2SeqEncoder& encoder, Seq2SeqAttentionDecoder& decoder, const int* src,
                                   int src_len, int valid_len)
    : decoder_(decoder),
      src_len_(src_len),
      H_(decoder.config().num_hiddens),
      K_(decoder.key_size()),
      L_(decoder.config().num_layers) {
    if (src_len <= 0) throw Error("seq2seq step model: the source sentence is empty");
    if (valid_len < 1 || valid_len > src_len)
        throw Error("seq2seq step model: valid length " + std::to_string(valid_len) + " is outside [1, " +
                    std::to_string(src_len) + "]");
    if (encoder.config().num_hiddens != H_ || encoder.config().num_layers != L_ ||
        encoder.config().bidirectional != decoder.config().bidirectional)
        throw Error("seq2seq step model: the encoder's hidden size / layers / directions do not match the decoder's");
    enc_.resize(size_t(src_len) * K_);
    std::vector<float> enc_state(size_t(decoder.encoder_state_layers()) * H_);
    hidden_.resize(size_t(L_) * H_);
    encoder.forward(enc_.data(), enc_state.data(), src, 1, src_len);
    decoder.init_state(hidden_.data(), enc_state.data(), 1);
    valid_.assign(1, valid_len);
}

int Seq2SeqStepModel::vocab_size() const { return decoder_.config().vocab_size; }

void Seq2SeqStepModel::step(float* logits, const int* last_tokens, int n) {
    if (n != n_) throw Error("seq2seq step model: step for " + std::to_string(n) + " hypotheses, the state holds " +
                             std::to_string(n_));
    enc_rep_.resize(size_t(src_len_) * n * K_);
    for (int t = 0; t < src_len_; ++t)
        for (int i = 0; i < n; ++i)
            std::copy_n(enc_.data() + size_t(t) * K_, K_, enc_rep_.data() + (size_t(t) * n + i) * K_);
    valid_.resize(size_t(n), valid_[0]);
    next_.resize(hidden_.size());
    decoder_.forward(logits, next_.data(), last_tokens, enc_rep_.data(), hidden_.data(), valid_.data(), n, 1,
                     src_len_);
    hidden_.swap(next_);
    attention_.assign(decoder_.saved.probs, decoder_.saved.probs + size_t(n) * src_len_);  // [T = 1, n, src_len]
}

void Seq2SeqStepModel::select(const int* parents, int n) {
    next_.resize(size_t(L_) * n * H_);
    for (int l = 0; l < L_; ++l)
        for (int i = 0; i < n; ++i) {
            if (parents[i] < 0 || parents[i] >= n_)
                throw Error("seq2seq step model: parent " + std::to_string(parents[i]) + " of hypothesis " +
                            std::to_string(i) + " is outside [0, " + std::to_string(n_) + ")");
            std::copy_n(hidden_.data() + (size_t(l) * n_ + parents[i]) * H_, H_, next_.data() + (size_t(l) * n + i) * H_);
        }
    hidden_.swap(next_);
    n_ = n;
}

}  // namespace attend
