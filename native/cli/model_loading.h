// Loading a model for a command: a translator model file or a training checkpoint (optimizer state ignored).
#pragma once
#include "translate/model_file.h"

#include <string>

namespace attend::cli {

TranslatorModel load_model_or_checkpoint(const std::string& path);

}  // namespace attend::cli
