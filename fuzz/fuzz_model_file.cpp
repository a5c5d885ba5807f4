// libFuzzer harness: any bytes as a translator model file (safetensors header, metadata JSON, tensors).
// Contract under test (translate/model_file.h, io/safetensors.h): a file either loads into a model that
// translates, or is refused with attend::Error. Any other exception, a crash, a sanitizer report, a hang or
// an allocation past -rss_limit_mb is a finding.
#include "error.h"
#include "translate/translator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        attend::Translator translator(
            attend::load_translator_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.safetensors"));
        // A model that loads must also translate: the search reads every tensor the loader accepted.
        attend::TranslationOptions options;
        options.beam_size = 2;
        options.max_length = 6;
        options.return_attention = true;
        translator.translate("a dog runs .", options);
    } catch (const attend::Error&) {
    }
    return 0;
}
