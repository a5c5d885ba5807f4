// Attend's installable C++ API: load a translator model file (.safetensors, as `attend export` writes it and the
// web demo loads it), translate sentences, batches or whole documents, and read every attention map.
//
//   #include <attend/attend.h>
//   attend::api::Translator t = attend::api::Translator::load("multi30k-en-de-cased.safetensors");
//   attend::TranslationOptions o = t.default_options();   // the model's own length penalty
//   std::string text = t.translate("A dog runs on the beach.", o).text;
//
// Errors are attend::Error (attend/error.h), whose message names what is wrong. A Translator is immutable after
// loading: translate from several threads at once.
#pragma once
#include "attend/error.h"
#include "attend/translation.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attend::api {

class Translator {
public:
    // Reads and checks a model file; throws attend::Error naming the problem (missing file, not a model, ...).
    static Translator load(const std::string& path);
    // The same from the file's bytes; `name` appears in error messages.
    static Translator from_bytes(std::vector<uint8_t> bytes, const std::string& name = "<memory>");

    Translator(Translator&&) noexcept;
    Translator& operator=(Translator&&) noexcept;
    ~Translator();

    // TranslationOptions' defaults with the model's own settings (its tuned length penalty).
    TranslationOptions default_options() const;
    TranslationResult translate(std::string_view text, const TranslationOptions& options) const;
    std::vector<TranslationResult> translate_batch(const std::vector<std::string>& texts,
                                                   const TranslationOptions& options) const;
    // Any text: sentence by sentence, lines and empty lines kept.
    DocumentTranslation translate_document(std::string_view text, const TranslationOptions& options) const;

    std::string source_language() const;  // "en", "de" or "fr"
    std::string target_language() const;
    // Architecture, configuration, parameters, dtype, size and the model card, as JSON text.
    std::string info_json() const;

private:
    struct Impl;
    explicit Translator(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace attend::api
