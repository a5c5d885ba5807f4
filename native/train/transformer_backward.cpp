#include "train/transformer_backward.h"

#include "train/cpu_train_ops.h"

namespace attend {

void transformer_backward(Transformer& m, const TransformerActivations& a, const float* dlogits, const int* src,
                          const int* tgt) {
    CpuTrainOps ops{{a.scratch}};
    transformer_backward(ops, m, m.params.values(), m.params.grads(), a, dlogits, src, tgt, a.source_mask(),
                         a.target_mask());
}

}  // namespace attend
