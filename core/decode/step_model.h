// What a search algorithm needs from a model: next-token logits for a set of live hypotheses, and a way to
// keep only some of them (beam search reorders and prunes; the model reorders its key/value caches to match).
#pragma once

namespace attend {

class StepModel {
public:
    virtual ~StepModel() = default;
    virtual int vocab_size() const = 0;
    // logits: [n, V] for the next token of each of the n live hypotheses, whose newest tokens are last_tokens [n].
    // Called once per step; the model keeps whatever state (caches) it needs between calls.
    virtual void step(float* logits, const int* last_tokens, int n) = 0;
    // Hypothesis i of the next step continues hypothesis parents[i] of this step (parents [n]; may repeat).
    virtual void select(const int* parents, int n) = 0;
};

}  // namespace attend
