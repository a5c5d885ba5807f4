// Loading a model for a command: a translator model file or a training checkpoint (optimizer state ignored).
#pragma once
#include "translate/model_file.h"
#include "translate/translator.h"

#include <string>
#include <vector>

namespace attend::cli {

TranslatorModel load_model_or_checkpoint(const std::string& path);
// One model, or an ensemble of several (-m a -m b: Translator::ensemble).
Translator load_translator(const std::vector<std::string>& paths);

}  // namespace attend::cli
