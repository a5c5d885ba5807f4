#include "train/seq2seq_encoder_backward.h"

#include <vector>

#include "model/parameter_store.h"
#include "model/seq2seq_encoder.h"
#include "train/embedding_backward.h"
#include "train/rnn_backward.h"

namespace attend {

void seq2seq_encoder_backward(Seq2SeqEncoder& encoder, const float* doutputs, const float* dstate) {
    const Seq2SeqConfig& c = encoder.config();
    const int B = encoder.saved.B, T = encoder.saved.T;
    std::vector<float> dembedded(size_t(T) * B * c.embed_size, 0.0f);
    rnn_backward(encoder.rnn(), dembedded.data(), nullptr, nullptr, doutputs, dstate, nullptr);
    embedding_backward(encoder.store()->grad_at(encoder.embedding_offset()), dembedded.data(), encoder.saved.ids.data(),
                       1.0f, -1, T * B, c.embed_size, c.vocab_size);
}

}  // namespace attend
