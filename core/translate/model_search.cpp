#include "translate/model_search.h"

#include <algorithm>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "error.h"
#include "translate/bahdanau_search_model.h"
#include "translate/transformer_search_model.h"

namespace attend {

std::unique_ptr<StepModel> make_search_model(const TranslatorModel& model, const int* src, int S, int max_length) {
    if (S < 1) throw Error("search: the source sentence is empty");
    if (S > model.max_source_tokens())
        throw Error("search: the source is " + std::to_string(S) + " tokens long (with <eos>); this model accepts at most " +
                    std::to_string(model.max_source_tokens()));
    if (model.architecture() == "transformer")
        return std::make_unique<TransformerSearchModel>(*model.transformer, src, S, max_length);
    return std::make_unique<BahdanauSearchModel>(*model.bahdanau, src, S);
}

int default_max_length(const TranslatorModel& model, int S) {
    return std::min(model.max_target_tokens(), 2 * S + 10);
}

Hypothesis search_translation(const TranslatorModel& model, const std::vector<int>& src, SearchOptions options) {
    options.max_length = std::min(options.max_length, model.max_target_tokens());
    std::unique_ptr<StepModel> step_model =
        make_search_model(model, src.data(), static_cast<int>(src.size()), options.max_length);
    return options.beam_size == 1 ? greedy_search(*step_model, options) : beam_search(*step_model, options).front();
}

}  // namespace attend
