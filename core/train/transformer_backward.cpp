#include "train/transformer_backward.h"

#include "model/transformer_forward.h"
#include "train/cpu_train_ops.h"

namespace attend {

void transformer_train_forward(TransformerActivations& a, const Transformer& m, const int* src,
                               const int* src_valid_lens, const int* tgt, const int* tgt_valid_lens,
                               DropoutStream* dropout) {
    transformer_begin_forward(a, src_valid_lens, tgt_valid_lens);
    CpuTrainOps ops{{a.scratch}};
    transformer_forward(ops, a, m, m.params.values(), src, tgt, a.source_mask(), a.target_mask(), dropout);
}

void transformer_backward(Transformer& m, const TransformerActivations& a, const float* dlogits, const int* src,
                          const int* tgt) {
    CpuTrainOps ops{{a.scratch}};
    transformer_backward(ops, m, m.params.values(), m.params.grads(), a, dlogits, src, tgt, a.source_mask(),
                         a.target_mask());
}

}  // namespace attend
