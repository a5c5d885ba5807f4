// A Transformer seen by greedy and beam search: one source sentence, encoded once, and one row of key/value
// caches per live hypothesis. select() gathers those rows, so beam search can prune and duplicate hypotheses.
#pragma once
#include "decode/step_model.h"
#include "model/transformer.h"

namespace attend {

class TransformerSearchModel : public StepModel {
public:
    // src [S] token ids of one sentence (all valid); capacity: the most target steps the search may take.
    TransformerSearchModel(const Transformer& model, const int* src, int S, int capacity);
    // B sentences at once (greedy_search_batch): src [B,S] padded, src_valid_lens [B]; row i decodes sentence i.
    TransformerSearchModel(const Transformer& model, const int* src, const int* src_valid_lens, int B, int S,
                           int capacity);

    int vocab_size() const override;
    void step(float* logits, const int* last_tokens, int n) override;
    void select(const int* parents, int n) override;

private:
    const Transformer& model_;
    TransformerDecodingState state_;
};

}  // namespace attend
