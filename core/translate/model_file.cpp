#include "translate/model_file.h"
#include "translate/model_tensors.h"

#include "error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

namespace attend {
namespace {

using json = nlohmann::json;

std::string meta(const SafeTensors& file, const std::string& key) { return model_metadata(file, key, "translator model"); }

json meta_json(const SafeTensors& file, const std::string& key) {
    return model_metadata_json(file, key, "translator model");
}

void check_length_penalty(float alpha, const std::string& where) {
    if (!std::isfinite(alpha) || alpha < 0.0f || alpha > kMaxModelLengthPenalty)
        throw Error(where + ": length_penalty must be a number in [0, " + std::to_string(int(kMaxModelLengthPenalty)) +
                    "], got " + std::to_string(alpha));
}

void check_min_confidence(float c, const std::string& where) {
    if (!(c >= 0.0f && c <= 1.0f))  // NaN fails too
        throw Error(where + ": min_confidence must be a number in [0, 1], got " + std::to_string(c));
}

// A capitalized word of ASCII letters ("Elmo"): what a name placeholder must be for copy-through to find it again.
void check_name_placeholders(const std::vector<std::string>& names, const std::string& where) {
    if (names.empty() || names.size() > kMaxNamePlaceholders)
        throw Error(where + ": name_placeholders must hold 1 to " + std::to_string(kMaxNamePlaceholders) +
                    " names, got " + std::to_string(names.size()));
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string& n = names[i];
        bool word = n.size() >= 2 && n.size() <= 32 && std::isupper(static_cast<unsigned char>(n[0]));
        for (size_t k = 1; word && k < n.size(); ++k) word = std::islower(static_cast<unsigned char>(n[k]));
        if (!word)
            throw Error(where + ": name placeholder '" + n +
                        "' is not a capitalized word of letters (a capital, then 1 to 31 lowercase ASCII letters)");
        for (size_t k = 0; k < i; ++k)
            if (names[k] == n) throw Error(where + ": name placeholder '" + n + "' is named twice");
    }
}

// Throws unless first <= last, both layers of the network's cross attention.
void check_alignment_layers(const std::array<int, 2>& layers, const TranslatorNetwork& network,
                            const std::string& where) {
    const int n = network.cross_attention_layers();
    if (layers[0] < 0 || layers[0] > layers[1] || layers[1] >= n)
        throw Error(where + ": alignment_layers must be [first, last] with 0 <= first <= last < " + std::to_string(n) +
                    " (the model's cross attention layers), got [" + std::to_string(layers[0]) + ", " +
                    std::to_string(layers[1]) + "]");
}

// attend.decoding: {"length_penalty": alpha, "min_confidence": c, "name_placeholders": [...], "alignment_layers":
// [first, last]}, each optional; any other key is refused by name. The alignment layers are checked against the
// network once it is declared.
void read_decoding(const SafeTensors& file, const std::string& src, TranslatorModel& m) {
    const json d = meta_json(file, "attend.decoding");
    const std::string where = src + ": attend.decoding";
    if (!d.is_object()) throw Error(where + " must be a JSON object, got " + d.dump());
    for (const auto& [key, value] : d.items())
        if (key != "length_penalty" && key != "min_confidence" && key != "name_placeholders" &&
            key != "alignment_layers")
            throw Error(where + ": unknown key '" + key +
                        "' (expected length_penalty, min_confidence, name_placeholders, alignment_layers)");
    if (auto it = d.find("length_penalty"); it != d.end()) {
        if (!it->is_number()) throw Error(where + ": length_penalty must be a number");
        m.length_penalty = it->get<float>();
        check_length_penalty(*m.length_penalty, where);
    }
    if (auto it = d.find("min_confidence"); it != d.end()) {
        if (!it->is_number()) throw Error(where + ": min_confidence must be a number");
        m.min_confidence = it->get<float>();
        check_min_confidence(*m.min_confidence, where);
    }
    if (auto it = d.find("name_placeholders"); it != d.end()) {
        if (!it->is_array() || !std::all_of(it->begin(), it->end(), [](const json& n) { return n.is_string(); }))
            throw Error(where + ": name_placeholders must be an array of strings");
        m.name_placeholders = it->get<std::vector<std::string>>();
        check_name_placeholders(m.name_placeholders, where);
    }
    if (auto it = d.find("alignment_layers"); it != d.end()) {
        // Small integers only, so that they fit an int whatever the JSON held; the network checks the range.
        auto small = [](const json& n) {
            return n.is_number_unsigned() ? n.get<uint64_t>() <= 4096
                                          : n.is_number_integer() && n.get<int64_t>() >= -4096 &&
                                                n.get<int64_t>() <= 4096;
        };
        if (!it->is_array() || it->size() != 2 || !std::all_of(it->begin(), it->end(), small))
            throw Error(where + ": alignment_layers must be an array of two layer numbers [first, last], got " +
                        it->dump());
        m.alignment_layers = std::array<int, 2>{(*it)[0].get<int>(), (*it)[1].get<int>()};
    }
}

template <typename T>
T meta_as(const SafeTensors& file, const std::string& key) {
    json j = meta_json(file, key);
    try {
        return j.get<T>();
    } catch (const Error& e) {
        throw Error(file.source() + ": metadata '" + key + "': " + e.what());
    } catch (const json::exception& e) {
        throw Error(file.source() + ": metadata '" + key + "' is malformed (" + e.what() + ")");
    }
}

int special_id(const Vocab& vocab, const json& specials, const char* role, const std::string& source) {
    if (!specials.contains(role) || !specials[role].is_string())
        throw Error(source + ": metadata 'attend.special_tokens' names no '" + role + "' token");
    const std::string token = specials[role].get<std::string>();
    if (!vocab.contains(token))
        throw Error(source + ": the special token " + token + " is not in the target vocabulary");
    return vocab[token];
}

bool is_matrix(const TensorSpec& spec) { return spec.shape.size() == 2; }

std::string shape_mismatch(const std::string& src, const TensorSpec& spec, const TensorInfo& info,
                           const std::vector<ConfigDim>& dims) {
    std::set<std::string> named;
    std::string fields;
    if (info.shape.size() == spec.shape.size()) {
        for (size_t d = 0; d < spec.shape.size(); d++) {
            if (info.shape[d] == spec.shape[d]) continue;
            for (const ConfigDim& c : dims)
                if (c.value == spec.shape[d] && named.insert(c.field).second)
                    fields += (fields.empty() ? "" : ", ") + c.field + " " + std::to_string(c.value);
        }
    }
    return src + ": attend.config" + (fields.empty() ? "" : " (" + fields + ")") + " does not match tensor '" +
           spec.name + "': the file has shape " + info.shape_string() + ", the config implies " +
           shape_to_string(spec.shape);
}

}  // namespace

// Everything about the tensors that can be known from the header alone, checked before the model is allocated:
// each parameter the config implies is there with that shape and a supported dtype, I8 matrices have their F32
// per-row scales, and nothing else is in the file. The header's offsets were checked when the file was parsed
// (contiguous, inside the file), so after this the model is no larger than its file says.
std::string model_metadata(const SafeTensors& file, const std::string& key, const std::string& kind) {
    auto it = file.metadata().find(key);
    if (it == file.metadata().end())
        throw Error(file.source() + ": not an Attend " + kind + " (metadata has no '" + key + "')");
    return it->second;
}

nlohmann::json model_metadata_json(const SafeTensors& file, const std::string& key, const std::string& kind) {
    const std::string text = model_metadata(file, key, kind);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(file.source() + ": metadata '" + key + "' is not valid JSON (" + e.what() + ")");
    }
}

void check_model_tensors(const ParameterStore& layout, const SafeTensors& file, const std::string& ignored_prefix,
                         const std::vector<ConfigDim>& dims) {
    const std::string& src = file.source();
    std::set<std::string> expected;
    for (const TensorSpec& spec : layout.specs()) {
        expected.insert(spec.name);
        if (!file.contains(spec.name)) throw Error(src + ": tensor '" + spec.name + "' is missing");
        const TensorInfo& info = file.info(spec.name);
        const std::vector<int64_t> shape(spec.shape.begin(), spec.shape.end());
        if (info.shape != shape) throw Error(shape_mismatch(src, spec, info, dims));
        if (info.dtype == DType::I8) {
            if (!is_matrix(spec))
                throw Error(src + ": tensor '" + spec.name + "' is I8 but only matrices may be quantized");
            const std::string scale_name = spec.name + ".scale";
            expected.insert(scale_name);
            if (!file.contains(scale_name))
                throw Error(src + ": I8 tensor '" + spec.name + "' has no per-row scale '" + scale_name + "'");
            const TensorInfo& scale = file.info(scale_name);
            if (scale.dtype != DType::F32 || scale.shape != std::vector<int64_t>{shape[0]})
                throw Error(src + ": tensor '" + scale_name + "' is " + dtype_name(scale.dtype) + " " +
                            scale.shape_string() + ", expected F32 [" + std::to_string(shape[0]) +
                            "] (one scale per row of '" + spec.name + "')");
        } else if (info.dtype != DType::F32 && info.dtype != DType::F16 && info.dtype != DType::BF16) {
            throw Error(src + ": tensor '" + spec.name + "' has dtype " + dtype_name(info.dtype) +
                        ", expected F32, F16, BF16 or I8");
        }
    }
    for (const std::string& name : file.names())
        if (!expected.count(name) && (ignored_prefix.empty() || name.rfind(ignored_prefix, 0) != 0))
            throw Error(src + ": unexpected tensor '" + name + "' (not a parameter of this configuration)");
}

// Reads the values of tensors check_model_tensors accepted. A weight that is not a finite number would make every
// translation NaN or garbage, so it is refused, naming the tensor.
void read_model_parameters(ParameterStore& params, const SafeTensors& file) {
    const std::string& src = file.source();
    for (const TensorSpec& spec : params.specs()) {
        const TensorInfo& info = file.info(spec.name);
        float* dst = params.value_at(spec.offset);
        if (info.dtype == DType::I8) {
            const std::string scale_name = spec.name + ".scale";
            const std::vector<float> scales = file.floats(scale_name);
            for (size_t r = 0; r < scales.size(); r++)
                if (!std::isfinite(scales[r]))
                    throw Error(src + ": tensor '" + scale_name + "' holds " + std::to_string(scales[r]) + " at row " +
                                std::to_string(r) + " (expected finite scales)");
            const int8_t* q = reinterpret_cast<const int8_t*>(file.raw(spec.name));
            const size_t cols = size_t(spec.shape[1]);
            for (size_t r = 0; r < scales.size(); r++)
                for (size_t c = 0; c < cols; c++) dst[r * cols + c] = q[r * cols + c] * scales[r];
        } else {
            file.read_floats(spec.name, dst, info.shape);
        }
        for (size_t i = 0; i < spec.size; i++)
            if (!std::isfinite(dst[i]))
                throw Error(src + ": tensor '" + spec.name + "' holds " + std::to_string(dst[i]) + " at element " +
                            std::to_string(i) + " (expected finite weights)");
    }
}

namespace {

void check_vocab_size(const std::string& src, const char* side, const Vocab& vocab, int config_size) {
    if (static_cast<int>(vocab.size()) != config_size)
        throw Error(src + ": the " + side + " vocabulary has " + std::to_string(vocab.size()) + " tokens, the config says " +
                    std::to_string(config_size));
}

}  // namespace

const TranslatorNetwork& TranslatorModel::checked_network() const {
    if (!network) throw Error("translator model: it holds no network");
    return *network;
}

std::string TranslatorModel::architecture() const { return checked_network().architecture(); }

ParameterStore& TranslatorModel::parameters() {
    checked_network();
    return network->parameters();
}

const ParameterStore& TranslatorModel::parameters() const { return checked_network().parameters(); }

int TranslatorModel::max_source_tokens() const { return checked_network().max_source_tokens(); }

int TranslatorModel::max_target_tokens() const { return checked_network().max_target_tokens(); }

nlohmann::json TranslatorModel::config_json() const { return checked_network().config_json(); }

TranslatorModel load_translator_model(const SafeTensors& file, const std::string& ignored_prefix) {
    const std::string& src = file.source();
    const std::string format = meta(file, "attend.format");
    if (format == "attend-language-model")
        throw Error(src + ": this is a language model (attend.format 'attend-language-model'), not a translator: "
                          "use it with attend lm sample / attend lm eval");
    if (format != kModelFormat)
        throw Error(src + ": attend.format is '" + format + "', expected '" + kModelFormat + "'");
    const std::string version = meta(file, "attend.format_version");
    if (version != std::to_string(kModelFormatVersion))
        throw Error(src + ": model format version " + version + " is not supported (this build reads version " +
                    std::to_string(kModelFormatVersion) + ")");
    const std::string architecture = meta(file, "attend.architecture");
    const NetworkArchitecture* kind = nullptr;
    try {
        kind = &network_architecture(architecture);
    } catch (const Error& e) {
        throw Error(src + ": " + e.what());
    }

    TranslatorModel m;
    NetworkDeclaration declared;
    try {
        json config = meta_json(file, "attend.config");
        if (config.is_object() && config.contains("architecture") && config["architecture"] != architecture)
            throw Error("architecture " + config["architecture"].dump() + " contradicts attend.architecture '" +
                        architecture + "'");
        declared = kind->declare(config);
    } catch (const Error& e) {
        throw Error(src + ": attend.config: " + e.what());
    }
    m.source_pipeline = meta_as<TextPipeline>(file, "attend.source_pipeline");
    m.target_pipeline = meta_as<TextPipeline>(file, "attend.target_pipeline");
    m.source_vocab = meta_as<Vocab>(file, "attend.source_vocab");
    m.target_vocab = meta_as<Vocab>(file, "attend.target_vocab");
    check_vocab_size(src, "source", m.source_vocab, declared.src_vocab);
    check_vocab_size(src, "target", m.target_vocab, declared.tgt_vocab);
    json specials = meta_json(file, "attend.special_tokens");
    m.pad_id = special_id(m.target_vocab, specials, "pad", src);
    m.bos_id = special_id(m.target_vocab, specials, "bos", src);
    m.eos_id = special_id(m.target_vocab, specials, "eos", src);
    if (!m.source_vocab.contains(specials["eos"].get<std::string>()))
        throw Error(src + ": the source vocabulary lacks " + specials["eos"].get<std::string>());
    if (m.source_vocab[specials["eos"].get<std::string>()] != m.eos_id)
        throw Error(src + ": " + specials["eos"].get<std::string>() + " has id " +
                    std::to_string(m.source_vocab[specials["eos"].get<std::string>()]) + " in the source vocabulary and " +
                    std::to_string(m.eos_id) + " in the target vocabulary (expected the same id)");
    m.weights_dtype = dtype_from_name(meta(file, "attend.weights_dtype"), src + ": attend.weights_dtype");
    auto card = file.metadata().find("attend.card");
    if (card != file.metadata().end()) m.card = meta_json(file, "attend.card");
    if (file.metadata().count("attend.decoding")) read_decoding(file, src, m);

    check_model_tensors(declared.layout, file, ignored_prefix, declared.dims);
    m.network = declared.allocate(/*with_grads=*/false);
    if (m.alignment_layers) check_alignment_layers(*m.alignment_layers, *m.network, src + ": attend.decoding");
    read_model_parameters(m.parameters(), file);
    return m;
}

TranslatorModel load_translator_model_bytes(std::vector<uint8_t> bytes, const std::string& source_name) {
    const size_t n = bytes.size();
    TranslatorModel m = load_translator_model(SafeTensors::from_bytes(std::move(bytes), source_name));
    m.file_bytes = n;
    return m;
}

std::vector<uint8_t> save_translator_model(const TranslatorModel& m, DType dtype) {
    SafeTensorsWriter w;
    add_translator_model(w, m, dtype);
    return w.to_bytes();
}

void add_translator_model(SafeTensorsWriter& w, const TranslatorModel& m, DType dtype) {
    const std::string architecture = m.architecture();
    if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::I8)
        throw Error(std::string("save model: dtype ") + dtype_name(dtype) + " is not supported (F32, F16, I8)");
    w.set_metadata("attend.format", kModelFormat);
    w.set_metadata("attend.format_version", std::to_string(kModelFormatVersion));
    w.set_metadata("attend.architecture", architecture);
    w.set_metadata("attend.weights_dtype", dtype_name(dtype));
    w.set_metadata("attend.config", m.config_json().dump());
    w.set_metadata("attend.source_pipeline", json(m.source_pipeline).dump());
    w.set_metadata("attend.target_pipeline", json(m.target_pipeline).dump());
    w.set_metadata("attend.source_vocab", json(m.source_vocab).dump());
    w.set_metadata("attend.target_vocab", json(m.target_vocab).dump());
    w.set_metadata("attend.special_tokens", json{{"pad", m.target_vocab.token(m.pad_id)},
                                                 {"bos", m.target_vocab.token(m.bos_id)},
                                                 {"eos", m.target_vocab.token(m.eos_id)}}.dump());
    if (!m.card.empty()) w.set_metadata("attend.card", m.card.dump());
    json decoding = json::object();
    if (m.length_penalty) {
        check_length_penalty(*m.length_penalty, "save model");
        decoding["length_penalty"] = *m.length_penalty;
    }
    if (m.min_confidence) {
        check_min_confidence(*m.min_confidence, "save model");
        decoding["min_confidence"] = *m.min_confidence;
    }
    if (!m.name_placeholders.empty()) {
        check_name_placeholders(m.name_placeholders, "save model");
        decoding["name_placeholders"] = m.name_placeholders;
    }
    if (m.alignment_layers) {
        check_alignment_layers(*m.alignment_layers, *m.network, "save model");
        decoding["alignment_layers"] = *m.alignment_layers;
    }
    if (!decoding.empty()) w.set_metadata("attend.decoding", decoding.dump());

    add_model_parameters(w, m.parameters(), dtype);
}

void add_model_parameters(SafeTensorsWriter& w, const ParameterStore& params, DType dtype) {
    if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::I8)
        throw Error(std::string("save model: dtype ") + dtype_name(dtype) + " is not supported (F32, F16, I8)");
    for (const TensorSpec& spec : params.specs()) {
        std::vector<int64_t> shape(spec.shape.begin(), spec.shape.end());
        const float* x = params.value_at(spec.offset);
        if (dtype == DType::F32 || !is_matrix(spec)) {
            w.add_f32(spec.name, shape, x);
        } else if (dtype == DType::F16) {
            w.add_f16(spec.name, shape, x);
        } else {
            const int64_t rows = shape[0], cols = shape[1];
            std::vector<int8_t> q(static_cast<size_t>(rows * cols));
            std::vector<float> scales(static_cast<size_t>(rows));
            for (int64_t r = 0; r < rows; r++) {
                float amax = 0.0f;
                for (int64_t c = 0; c < cols; c++) amax = std::max(amax, std::fabs(x[r * cols + c]));
                const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
                scales[r] = scale;
                for (int64_t c = 0; c < cols; c++)
                    q[r * cols + c] = static_cast<int8_t>(std::lround(std::clamp(x[r * cols + c] / scale, -127.0f, 127.0f)));
            }
            w.add_i8(spec.name, shape, q.data());
            w.add_f32(spec.name + ".scale", {rows}, scales.data());
        }
    }
}

size_t parameter_count(const TranslatorModel& model) {
    return model.network ? model.network->parameters().size() : 0;
}

std::string io_difference(const TranslatorModel& a, const TranslatorModel& b) {
    if (nlohmann::json(a.source_pipeline) != nlohmann::json(b.source_pipeline)) return "source pipeline";
    if (nlohmann::json(a.target_pipeline) != nlohmann::json(b.target_pipeline)) return "target pipeline";
    if (a.source_vocab.id_to_token() != b.source_vocab.id_to_token()) return "source vocabulary";
    if (a.target_vocab.id_to_token() != b.target_vocab.id_to_token()) return "target vocabulary";
    if (a.pad_id != b.pad_id || a.bos_id != b.bos_id || a.eos_id != b.eos_id) return "special token ids";
    return "";
}

}  // namespace attend
