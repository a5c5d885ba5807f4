#include "cli/model_loading.h"

#include "data/text_file.h"
#include "error.h"
#include "io/safetensors.h"

#include <filesystem>

namespace attend::cli {

TranslatorModel load_model_or_checkpoint(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw Error(path + ": is a directory, expected a model file (.safetensors) or a checkpoint");
    if (!file_exists(path)) throw Error(path + ": no such model file");
    TranslatorModel m = load_translator_model(SafeTensors::from_file(path), "optimizer.");
    m.file_bytes = std::filesystem::file_size(path);
    return m;
}

Translator load_translator(const std::vector<std::string>& paths) {
    if (paths.size() == 1) return Translator(load_model_or_checkpoint(paths.front()));
    std::vector<TranslatorModel> models;
    for (const std::string& path : paths) models.push_back(load_model_or_checkpoint(path));
    return Translator::ensemble(std::move(models));
}

}  // namespace attend::cli
