// The training side of each translator architecture (the network itself: translate/translator_network.h), found
// by the architecture's name, so that one training loop (train/trainer.h) drives the Transformer and the GRU +
// Bahdanau seq2seq alike: building the network a run's options describe, its teacher-forced forward and backward,
// and its initialisation. (Which of them also train on a GPU: native/train/train_device.h.)
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "model/dropout.h"
#include "train/train_batch.h"
#include "train/train_options.h"
#include "translate/model_file.h"

namespace attend {

class TrainableModel {
public:
    virtual ~TrainableModel() = default;
    // Logits [B, T, V] of batch b (valid until the next forward; the caller may overwrite them, e.g. with their
    // gradient for the backward). dropout: a training stream, or null for an evaluation pass (no dropout, nothing
    // kept for a backward).
    virtual float* forward(const TrainBatch& b, DropoutStream* dropout) = 0;
    // Backward of the last training forward (same batch): parameter gradients accumulate (+=).
    // dlogits [B, T, V].
    virtual void backward(const TrainBatch& b, const float* dlogits) = 0;
    // Whether a data-parallel rank's dropout masks can follow its rows of the whole batch
    // (DropoutStream::set_rows), so that the ranks together draw the masks of one process: the Transformer's
    // batch-major tensors allow it, and the GRU model's (its time-major ones through next_time_major). A model that
    // cannot draws other (equally random) masks on each rank.
    virtual bool dropout_follows_rows() const { return false; }
};

// What the trainer, which branches on no architecture, asks of one.
struct TrainingArchitecture {
    const char* name;  // TrainOptions::architecture, attend.architecture
    // Throws attend::Error naming a hyperparameter of `o` that this architecture refuses, before any data is read
    // (the vocabulary sizes, which come from the corpus, aside).
    void (*check_options)(const TrainOptions& o);
    // The untrained network `o` describes (allocated with gradients) for the corpus's vocabulary sizes and pad id.
    // `o` may take those numbers, so that the saved options describe the model.
    std::unique_ptr<TranslatorNetwork> (*build)(TrainOptions& o, int src_vocab, int tgt_vocab, int pad_id);
    // Forward and backward of `network`, one of this architecture, which must outlive the result.
    std::unique_ptr<TrainableModel> (*trainable)(TranslatorNetwork& network);
    // The embeddings' standard deviation under the "scaled" initialisation.
    float (*scaled_embedding_std)(const TranslatorNetwork& network);
};

// Throws attend::Error naming the architectures there are.
const TrainingArchitecture& training_architecture(const std::string& name);

// For model.network (allocated with gradients); the model must outlive the result.
std::unique_ptr<TrainableModel> make_trainable(TranslatorModel& model);

// "scaled": Xavier-uniform on Linear / RNN weights, embeddings N(0, scaled_embedding_std^2) (the Transformer's:
// 1/C, as its forward scales them by sqrt(C); the GRU model's: 1), biases 0 (transformer-tiny).
// "seeds": what the seeds' train_seq2seq leaves: Xavier-uniform on every nn.Linear and nn.GRU weight, nn.Embedding's
// N(0, 1), and PyTorch's default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases (GRU: fan_in = hidden size);
// LayerNorm weights 1 and biases 0.
// Reproducible from the seed. Throws attend::Error naming an unknown scheme.
void initialise_parameters(TranslatorModel& model, const std::string& scheme, uint64_t seed);

}  // namespace attend
