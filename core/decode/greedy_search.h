// Greedy decoding: take the most probable token at every step (d2l's predict_seq2seq).
#pragma once
#include "decode/search_options.h"
#include "decode/step_model.h"

namespace attend {

Hypothesis greedy_search(StepModel& model, const SearchOptions& options);

}  // namespace attend
