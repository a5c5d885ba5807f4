// Greedy decoding of several independent sentences at once (CTranslate2's batched translation): row i of the
// model decodes sentence i, and every step runs the model once over all unfinished rows, so a step reads the
// decoder's weights once for the whole batch instead of once per sentence. Finished rows leave the batch.
#pragma once
#include "decode/search_options.h"
#include "decode/step_model.h"

#include <vector>

namespace attend {

// model: B rows, one per sentence; rows [B]: sentence i's options, whose rules (built from its own source ids,
// numbers and exemptions) act on row i alone (beam_size is not used; a prefix and alternatives are refused).
// Returns one hypothesis per row, in row order; each is what greedy_search gives for that sentence alone with rows[i].
std::vector<Hypothesis> greedy_search_batch(StepModel& model, const std::vector<SearchOptions>& rows);
// Every row with `options`, but max_lengths [B]: the most tokens row i may generate (<eos> included).
std::vector<Hypothesis> greedy_search_batch(StepModel& model, const std::vector<int>& max_lengths,
                                            const SearchOptions& options);

}  // namespace attend
