// The teacher-forced forward and backward of each translator architecture behind one interface, so one training
// loop (train/trainer.h) drives the Transformer and the GRU + Bahdanau seq2seq alike; and their initialisations.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "model/dropout.h"
#include "train/train_batch.h"
#include "translate/model_file.h"

namespace attend {

class TrainableModel {
public:
    virtual ~TrainableModel() = default;
    // Logits [B, T, V] of batch b (valid until the next forward). dropout: a training stream, or null for an
    // evaluation pass (no dropout, nothing kept for a backward).
    virtual const float* forward(const TrainBatch& b, DropoutStream* dropout) = 0;
    // Backward of the last training forward (same batch): parameter gradients accumulate (+=).
    // dlogits [B, T, V].
    virtual void backward(const TrainBatch& b, const float* dlogits) = 0;
};

// For model.transformer or model.bahdanau (allocated with gradients); the model must outlive the result.
std::unique_ptr<TrainableModel> make_trainable(TranslatorModel& model);

// "scaled": Xavier-uniform on Linear / RNN weights, embeddings N(0, 1/C) (they are scaled by sqrt(C) in the
// Transformer's forward), biases 0 (transformer-tiny).
// "seeds": what the seeds' train_seq2seq leaves: Xavier-uniform on every nn.Linear and nn.GRU weight, nn.Embedding's
// N(0, 1), and PyTorch's default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases (GRU: fan_in = hidden size);
// LayerNorm weights 1 and biases 0.
// Reproducible from the seed. Throws attend::Error naming an unknown scheme.
void initialise_parameters(TranslatorModel& model, const std::string& scheme, uint64_t seed);

}  // namespace attend
