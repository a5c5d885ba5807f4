// Greedy or beam search over any translator model (Transformer or GRU + Bahdanau), for one source sentence given
// as ids with its <eos>: the model-kind switch that the Translator and the trainer's validation share.
#pragma once
#include <memory>
#include <vector>

#include "decode/search_options.h"
#include "decode/step_model.h"
#include "translate/model_file.h"

namespace attend {

// A StepModel for src [S] (ids with <eos>) that can take max_length steps. Throws attend::Error when S exceeds
// model.max_source_tokens().
std::unique_ptr<StepModel> make_search_model(const TranslatorModel& model, const int* src, int S, int max_length);

// The default number of tokens to generate (<eos> included) for a source of S tokens:
// min(2 S + 10, model.max_target_tokens()). For the d2l models (num_steps 10, or a Transformer with max_len 10)
// that is the seeds' num_steps, as predict_seq2seq loops num_steps times.
int default_max_length(const TranslatorModel& model, int S);

// Greedy when options.beam_size is 1, else the best of beam search. options.max_length is capped at
// model.max_target_tokens().
Hypothesis search_translation(const TranslatorModel& model, const std::vector<int>& src, SearchOptions options);

}  // namespace attend
