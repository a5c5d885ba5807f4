// The one exception type of Attend. Every message names the thing that is wrong and what was expected,
// e.g. "model.safetensors: tensor 'decoder.out.weight' has shape [8000, 64], expected [8000, 128]".
#pragma once
#include <stdexcept>
#include <string>

namespace attend {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace attend
