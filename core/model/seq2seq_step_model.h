// The seeds' RNN encoder-decoder as a StepModel (decode/step_model.h), so greedy and beam search translate with it
// (d2l's predict_seq2seq): the encoder runs once on ONE source sentence (evaluation mode), then every step runs the
// Bahdanau decoder for the n live hypotheses with T = 1, each carrying its own GRU state (started by the decoder's
// init_state from the encoder's final state, so a bidirectional encoder works too).
#pragma once
#include <vector>

#include "decode/step_model.h"
#include "model/seq2seq_attention_decoder.h"
#include "model/seq2seq_encoder.h"

namespace attend {

class Seq2SeqStepModel : public StepModel {
public:
    // src [src_len] token ids (already padded/truncated as the caller wants); valid_len: the keys attention may
    // see (the seeds' enc_valid_len), in [1, src_len].
    Seq2SeqStepModel(Seq2SeqEncoder& encoder, Seq2SeqAttentionDecoder& decoder, const int* src, int src_len,
                     int valid_len);

    int vocab_size() const override;
    void step(float* logits, const int* last_tokens, int n) override;
    void select(const int* parents, int n) override;

    // Attention weights of the last step, [n, src_len] (the seeds' attention_weight_seq, one entry per step).
    const std::vector<float>& last_attention() const { return attention_; }

private:
    Seq2SeqAttentionDecoder& decoder_;
    int src_len_, H_, K_, L_;  // K_: the encoder outputs' width (H, or 2H bidirectional)
    int n_ = 1;                  // live hypotheses the state holds
    std::vector<float> enc_;     // [src_len, 1, K]
    std::vector<float> enc_rep_; // [src_len, n, K]
    std::vector<float> hidden_;  // [L, n, H]
    std::vector<float> next_;    // [L, n, H]
    std::vector<int> valid_;     // [n]
    std::vector<float> attention_;
};

}  // namespace attend
