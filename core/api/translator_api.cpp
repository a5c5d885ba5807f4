#include "attend/translator.h"

#include "text/lang.h"
#include "translate/translator.h"

#include <fstream>
#include <iterator>

namespace attend::api {

struct Translator::Impl {
    attend::Translator translator;
};

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::Translator(Translator&&) noexcept = default;
Translator& Translator::operator=(Translator&&) noexcept = default;
Translator::~Translator() = default;

Translator Translator::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the model file");
    std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw Error(path + ": cannot read the model file");
    return from_bytes(std::move(bytes), path);
}

Translator Translator::from_bytes(std::vector<uint8_t> bytes, const std::string& name) {
    return Translator(std::make_unique<Impl>(Impl{attend::Translator::from_bytes(std::move(bytes), name)}));
}

TranslationOptions Translator::default_options() const { return impl_->translator.default_options(); }

TranslationResult Translator::translate(std::string_view text, const TranslationOptions& options) const {
    return impl_->translator.translate(text, options);
}

std::vector<TranslationResult> Translator::translate_batch(const std::vector<std::string>& texts,
                                                           const TranslationOptions& options) const {
    return impl_->translator.translate_batch(texts, options);
}

DocumentTranslation Translator::translate_document(std::string_view text, const TranslationOptions& options) const {
    return impl_->translator.translate_document(text, options);
}

std::string Translator::source_language() const {
    return language_code(impl_->translator.model().source_pipeline);
}

std::string Translator::target_language() const {
    return language_code(impl_->translator.model().target_pipeline);
}

std::string Translator::info_json() const { return impl_->translator.info().dump(); }

}  // namespace attend::api
