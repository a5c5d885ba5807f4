#include "decode/search_options.h"

#include <cmath>

namespace attend {

float normalized_score(float log_prob, int length, float length_penalty) {
    if (length_penalty == 0.0f || length <= 0) return log_prob;
    return log_prob / std::pow(static_cast<float>(length), length_penalty);
}

}  // namespace attend
