// The GRU + Bahdanau translator (model/bahdanau_seq2seq.h) seen by greedy and beam search, for one source
// sentence: the encoder runs once (evaluation mode) on the source, padded to config.num_steps when that is set
// (as the seeds' predict_seq2seq does; attention never sees the padding), then each step decodes one token for
// every live hypothesis, each with its own GRU state. Holds its own copies of the encoder and decoder (their
// activation buffers), so one shared model serves many searches at once, e.g. one per thread.
#pragma once
#include <vector>

#include "decode/step_model.h"
#include "model/bahdanau_seq2seq.h"
#include "model/seq2seq_step_model.h"

namespace attend {

class BahdanauSearchModel : public StepModel {
public:
    // src [S] token ids of one sentence with its <eos>, 1 <= S <= config.max_source_tokens().
    BahdanauSearchModel(const BahdanauSeq2Seq& model, const int* src, int S);

    int vocab_size() const override { return step_.vocab_size(); }
    void step(float* logits, const int* last_tokens, int n) override { step_.step(logits, last_tokens, n); }
    void select(const int* parents, int n) override { step_.select(parents, n); }

    // Attention weights of the last step, [n, encoded length] (padding columns are 0).
    const std::vector<float>& last_attention() const { return step_.last_attention(); }

private:
    Seq2SeqEncoder encoder_;
    Seq2SeqAttentionDecoder decoder_;
    std::vector<int> source_;  // [num_steps or S]
    Seq2SeqStepModel step_;
};

// The source as the encoder reads it: src [S] padded with config.pad_id to config.num_steps (unchanged when
// num_steps is 0). Throws attend::Error when S is 0 or longer than config.max_source_tokens().
std::vector<int> bahdanau_encoder_input(const BahdanauConfig& config, const int* src, int S);

// The Bahdanau weights of one teacher-forced pass over a chosen translation: weights [T, S] (target rows, source
// columns without the padding; each row sums to 1), for src [S] (with <eos>) and decoder inputs tgt_in [T]
// (<bos>, then the first T - 1 generated tokens).
void bahdanau_cross_attention(std::vector<float>& weights, const BahdanauSeq2Seq& model, const int* src, int S,
                              const int* tgt_in, int T);

}  // namespace attend
