#include "decode/search_options.h"

#include "text/utf8.h"

#include <cmath>

namespace attend {

float normalized_score(float log_prob, int length, float length_penalty) {
    if (length_penalty == 0.0f || length <= 0) return log_prob;
    return log_prob / std::pow(static_cast<float>(length), length_penalty);
}

TokenShape token_shape(const std::string& token) {
    TokenShape shape;
    std::string_view text = token;
    if (text.size() >= 2 && text.substr(text.size() - 2) == "@@") {
        shape.joins_next = true;
        text.remove_suffix(2);
    }
    if (text.empty() || (text.front() == '<' && text.back() == '>') || utf8_find_invalid(text) != std::string_view::npos)
        return shape;
    const std::u32string cps = utf8_decode(text);
    shape.first = cps.front();
    shape.last = cps.back();
    while (shape.lead < static_cast<int>(cps.size()) && cps[shape.lead] == shape.first) shape.lead++;
    while (shape.trail < static_cast<int>(cps.size()) && cps[cps.size() - 1 - shape.trail] == shape.last) shape.trail++;
    shape.uniform = shape.lead == static_cast<int>(cps.size());
    return shape;
}

}  // namespace attend
