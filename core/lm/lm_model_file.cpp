#include "lm/lm_model_file.h"

#include "error.h"
#include "lm/char_corpus.h"
#include "translate/model_file.h"
#include "translate/model_tensors.h"

namespace attend {
namespace {

using json = nlohmann::json;

std::string meta(const SafeTensors& file, const std::string& key) { return model_metadata(file, key, "language model"); }

json meta_json(const SafeTensors& file, const std::string& key) {
    return model_metadata_json(file, key, "language model");
}

}  // namespace

bool is_language_model_file(const SafeTensors& file) {
    auto it = file.metadata().find("attend.format");
    return it != file.metadata().end() && it->second == kLanguageModelFormat;
}

std::vector<int> LanguageModel::encode(const std::string& text) const {
    return char_corpus(d2l_clean_lines(text), vocab);
}

std::vector<int> LanguageModel::encode_prefix(const std::string& prefix) const {
    std::vector<int> ids;
    for (char c : prefix) ids.push_back(vocab[std::string(1, c)]);
    return ids;
}

std::string LanguageModel::decode(const std::vector<int>& ids) const {
    std::string out;
    for (int id : ids) out += vocab.token(id);
    return out;
}

LanguageModel load_language_model(const SafeTensors& file) {
    const std::string& src = file.source();
    const std::string format = meta(file, "attend.format");
    if (format == kModelFormat)
        throw Error(src + ": this is a translator (attend.format '" + std::string(kModelFormat) +
                    "'), not a language model: use it with attend translate / attend eval");
    if (format != kLanguageModelFormat)
        throw Error(src + ": attend.format is '" + format + "', expected '" + kLanguageModelFormat + "'");
    const std::string version = meta(file, "attend.format_version");
    if (version != std::to_string(kLanguageModelFormatVersion))
        throw Error(src + ": language model format version " + version +
                    " is not supported (this build reads version " + std::to_string(kLanguageModelFormatVersion) + ")");
    const std::string architecture = meta(file, "attend.architecture");
    if (architecture != kCharLmArchitecture)
        throw Error(src + ": attend.architecture is '" + architecture + "', expected '" + kCharLmArchitecture + "'");
    const std::string pipeline = meta(file, "attend.text_pipeline");
    if (pipeline != kCharPipeline)
        throw Error(src + ": attend.text_pipeline is '" + pipeline + "', expected '" + kCharPipeline + "'");
    CharLmConfig config;
    try {
        config = meta_json(file, "attend.config").get<CharLmConfig>();
    } catch (const Error& e) {
        throw Error(src + ": attend.config: " + e.what());
    } catch (const json::exception& e) {
        throw Error(src + ": attend.config is malformed (" + e.what() + ")");
    }
    LanguageModel m;
    try {
        m.vocab = meta_json(file, "attend.vocab").get<Vocab>();
    } catch (const Error& e) {
        throw Error(src + ": attend.vocab: " + e.what());
    } catch (const json::exception& e) {
        throw Error(src + ": attend.vocab is malformed (" + e.what() + ")");
    }
    if (int(m.vocab.size()) != config.vocab_size)
        throw Error(src + ": the vocabulary has " + std::to_string(m.vocab.size()) + " tokens, the config says " +
                    std::to_string(config.vocab_size));
    for (const std::string& t : m.vocab.id_to_token())
        if (t != Vocab::kUnk && t.size() != 1)
            throw Error(src + ": vocabulary token '" + t + "' is not one character (a character model's tokens are)");
    m.weights_dtype = dtype_from_name(meta(file, "attend.weights_dtype"), src + ": attend.weights_dtype");
    if (file.metadata().count("attend.card")) m.card = meta_json(file, "attend.card");
    m.network = std::make_unique<CharLm>(config);
    const std::vector<ConfigDim> dims = {{"vocab_size", config.vocab_size},
                                         {"hidden_size", config.hidden_size},
                                         {"hidden_size * directions", m.network->output_size()}};
    check_model_tensors(m.network->parameters(), file, "", dims);
    m.network->allocate(/*with_grads=*/false);
    read_model_parameters(m.network->parameters(), file);
    return m;
}

LanguageModel load_language_model_bytes(std::vector<uint8_t> bytes, const std::string& source_name) {
    return load_language_model(SafeTensors::from_bytes(std::move(bytes), source_name));
}

std::vector<uint8_t> save_language_model(const LanguageModel& m, DType dtype) {
    if (!m.network) throw Error("save language model: it holds no network");
    if (int(m.vocab.size()) != m.network->vocab_size())
        throw Error("save language model: the vocabulary has " + std::to_string(m.vocab.size()) +
                    " tokens, the network " + std::to_string(m.network->vocab_size()));
    SafeTensorsWriter w;
    w.set_metadata("attend.format", kLanguageModelFormat);
    w.set_metadata("attend.format_version", std::to_string(kLanguageModelFormatVersion));
    w.set_metadata("attend.architecture", kCharLmArchitecture);
    w.set_metadata("attend.weights_dtype", dtype_name(dtype));
    w.set_metadata("attend.config", json(m.network->config()).dump());
    w.set_metadata("attend.text_pipeline", kCharPipeline);
    w.set_metadata("attend.vocab", json(m.vocab).dump());
    if (!m.card.empty()) w.set_metadata("attend.card", m.card.dump());
    add_model_parameters(w, m.network->parameters(), dtype);
    return w.to_bytes();
}

}  // namespace attend
