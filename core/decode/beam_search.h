// Beam search over a StepModel: keeps the beam_size best partial hypotheses by summed log-probability; a
// hypothesis ending in <eos> is set aside with its length-normalized score (d2l: log P / L^alpha). Search stops
// when beam_size hypotheses have finished, or at max_length. beam_size 1 gives exactly greedy search.
#pragma once
#include "decode/search_options.h"
#include "decode/step_model.h"

#include <vector>

namespace attend {

// Returns up to beam_size hypotheses, best first. Finished ones rank above unfinished ones cut by max_length, except
// that the best cut one comes first where the one finished hypothesis is the empty translation (<eos> alone) and
// scores worse; with close_quotes or close_brackets, those that close their marks above those that leave one open.
std::vector<Hypothesis> beam_search(StepModel& model, const SearchOptions& options);

}  // namespace attend
