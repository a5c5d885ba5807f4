// A model file is input from anyone. Its config is checked against bounds and against the tensors the header
// describes before anything of the config's size is allocated, and its weights must be finite numbers: a small
// file can neither make the loader allocate gigabytes nor load as a model that translates NaN. Every failure is
// an attend::Error naming the field or the tensor. Both architectures.
#include <doctest/doctest.h>

#include "error.h"
#include "model/config_checks.h"
#include "translate/bahdanau_network.h"
#include "translate/model_file.h"
#include "tiny_words_model.h"
#include "translate/transformer_network.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace attend;
using ojson = nlohmann::ordered_json;

namespace {

TranslatorModel words_model() { return attend_test::words_model({"go", ".", "i", "lost"}, {"va", "!", "j'ai", "perdu", "."}); }
using attend_test::fill;

// Transformer: C 8, 2 heads, 1 + 1 layers, ffn 12.
std::vector<uint8_t> transformer_file(DType dtype = DType::F32) {
    TranslatorModel m = words_model();
    TransformerConfig c;
    c.model_dim = 8;
    c.heads = 2;
    c.encoder_layers = 1;
    c.decoder_layers = 1;
    c.ffn_dim = 12;
    c.src_vocab = static_cast<int>(m.source_vocab.size());
    c.tgt_vocab = static_cast<int>(m.target_vocab.size());
    c.max_len = 16;
    c.dropout = 0.0f;
    c.pad_id = m.pad_id;
    m.network = std::make_unique<TransformerNetwork>(c, false);
    fill(m.parameters(), 3);
    return save_translator_model(m, dtype);
}

// GRU + Bahdanau: embed 4, 6 hiddens, 1 layer.
std::vector<uint8_t> bahdanau_file(DType dtype = DType::F32) {
    TranslatorModel m = words_model();
    BahdanauConfig c;
    c.src_vocab = static_cast<int>(m.source_vocab.size());
    c.tgt_vocab = static_cast<int>(m.target_vocab.size());
    c.embed_size = 4;
    c.num_hiddens = 6;
    c.num_layers = 1;
    c.max_len = 16;
    c.pad_id = m.pad_id;
    m.network = std::make_unique<BahdanauNetwork>(c, false);
    fill(m.parameters(), 4);
    return save_translator_model(m, dtype);
}

// Header surgery: the JSON header (tensor order kept) and the data section, apart and back together.
struct Parts {
    ojson header;
    std::vector<uint8_t> data;
};

Parts split(const std::vector<uint8_t>& bytes) {
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    Parts p;
    p.header = ojson::parse(bytes.begin() + 8, bytes.begin() + 8 + long(n));
    p.data.assign(bytes.begin() + 8 + long(n), bytes.end());
    return p;
}

std::vector<uint8_t> join(const Parts& p) {
    std::string text = p.header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::vector<uint8_t> out(8 + text.size());
    const uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, text.data(), text.size());
    out.insert(out.end(), p.data.begin(), p.data.end());
    return out;
}

// The file with one field of attend.config replaced.
std::vector<uint8_t> with_config(const std::vector<uint8_t>& bytes, const std::string& field, const ojson& value) {
    Parts p = split(bytes);
    ojson config = ojson::parse(p.header["__metadata__"]["attend.config"].get<std::string>());
    config[field] = value;
    p.header["__metadata__"]["attend.config"] = config.dump();
    return join(p);
}

// The file with element `index` of tensor `name` overwritten by `raw` (sizeof(T) bytes).
template <class T>
std::vector<uint8_t> with_element(const std::vector<uint8_t>& bytes, const std::string& name, size_t index, T raw) {
    Parts p = split(bytes);
    const size_t begin = p.header[name]["data_offsets"][0].get<size_t>();
    std::memcpy(p.data.data() + begin + index * sizeof(T), &raw, sizeof(T));
    return join(p);
}

std::string load_error(const std::vector<uint8_t>& bytes) {
    try {
        load_translator_model_bytes(bytes, "model.safetensors");
    } catch (const Error& e) {
        return e.what();
    }
    return "(loaded)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("model file limits: the tiny models load as they are (the cases below change one thing each)") {
    for (DType dtype : {DType::F32, DType::F16, DType::I8}) {
        CHECK_NOTHROW(load_translator_model_bytes(transformer_file(dtype)));
        CHECK_NOTHROW(load_translator_model_bytes(bahdanau_file(dtype)));
    }
}

TEST_CASE("model file limits: a 13 KB file that claims ffn_dim 20,000,000 fails at once, naming ffn_dim and its bound") {
    // Before the checks, this file made the loader allocate 2.8 GB and run for most of a minute.
    const std::vector<uint8_t> bomb = with_config(transformer_file(), "ffn_dim", 20000000);
    CHECK(bomb.size() < 16 * 1024);
    const std::string e = load_error(bomb);
    CHECK(contains(e, "model.safetensors"));
    CHECK(contains(e, "ffn_dim is 20000000, expected 1..65536"));
    // 2e9 once ended in std::bad_alloc; a value beyond int, in a wrapped negative.
    CHECK(contains(load_error(with_config(transformer_file(), "ffn_dim", 2000000000)), "ffn_dim is 2000000000, expected 1..65536"));
    CHECK(contains(load_error(with_config(transformer_file(), "ffn_dim", 3000000000ull)),
                   "'ffn_dim' is 3000000000, beyond the range of a 32-bit integer"));
    CHECK(contains(load_error(with_config(transformer_file(), "ffn_dim", 12.5)), "'ffn_dim' is 12.5, expected an integer"));
}

TEST_CASE("model file limits: a config within the bounds must still match every tensor shape in the header") {
    // 60,000 is allowed as such, but this file's linear layers hold 12: the error names the field and the tensor,
    // and it comes from the header, before the 60,000-wide model would be allocated.
    std::string e = load_error(with_config(transformer_file(), "ffn_dim", 60000));
    CHECK(contains(e, "attend.config (ffn_dim 60000) does not match tensor 'encoder.layers.0.linear1.weight'"));
    CHECK(contains(e, "the file has shape [12, 8], the config implies [60000, 8]"));
    e = load_error(with_config(transformer_file(), "model_dim", 16));
    CHECK(contains(e, "model_dim 16"));
    // A tensor whose shape is transposed (the same bytes) names the config field it contradicts.
    Parts p = split(transformer_file());
    p.header["decoder.layers.0.linear1.weight"]["shape"] = {8, 12};
    e = load_error(join(p));
    CHECK(contains(e, "does not match tensor 'decoder.layers.0.linear1.weight': the file has shape [8, 12], the config implies [12, 8]"));
    CHECK(contains(e, "ffn_dim 12"));
    // More layers in the config than in the file.
    CHECK(contains(load_error(with_config(transformer_file(), "decoder_layers", 2)), "tensor 'decoder.layers.1.self_attn.q_proj.weight' is missing"));
}

TEST_CASE("model file limits: every size of a Transformer config is bounded, and the bound is in the message") {
    const std::vector<uint8_t> good = transformer_file();
    CHECK(contains(load_error(with_config(good, "max_len", 2000000000)), "max_len is 2000000000, expected 1..65536"));
    CHECK(contains(load_error(with_config(good, "model_dim", 100000)), "model_dim is 100000, expected 1..16384"));
    CHECK(contains(load_error(with_config(good, "heads", 4096)), "heads is 4096, expected 1..1024"));
    CHECK(contains(load_error(with_config(good, "encoder_layers", 1000)), "encoder_layers is 1000, expected 0..256"));
    CHECK(contains(load_error(with_config(good, "decoder_layers", -1)), "decoder_layers is -1, expected 0..256"));
    CHECK(contains(load_error(with_config(good, "src_vocab", 100000000)), "src_vocab is 100000000, expected 1..2097152"));
    CHECK(contains(load_error(with_config(good, "layernorm_eps", 1e30)), "layernorm_eps"));
}

TEST_CASE("model file limits: GRU + Bahdanau configs are bounded and checked against the tensors too") {
    const std::vector<uint8_t> good = bahdanau_file();
    CHECK(contains(load_error(with_config(good, "num_hiddens", 20000000)), "num_hiddens is 20000000, expected 1..16384"));
    CHECK(contains(load_error(with_config(good, "embed_size", 2000000000)), "embed_size is 2000000000, expected 1..16384"));
    CHECK(contains(load_error(with_config(good, "num_layers", 100000)), "num_layers is 100000, expected 1..256"));
    CHECK(contains(load_error(with_config(good, "max_len", 2000000000)), "max_len is 2000000000, expected 1..65536"));
    CHECK(contains(load_error(with_config(good, "num_steps", 2000000000)), "num_steps is 2000000000, expected 0..65536"));
    // In bounds, but not what the tensors hold: encoder.embedding.weight is [V_s, 4].
    std::string e = load_error(with_config(good, "embed_size", 5000));
    CHECK(contains(e, "attend.config (embed_size 5000) does not match tensor 'encoder.embedding.weight'"));
    e = load_error(with_config(good, "num_hiddens", 1000));
    CHECK(contains(e, "3 x num_hiddens 3000"));
}

TEST_CASE("model file limits: a weight that is not a finite number is refused, naming the tensor") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::string e = load_error(with_element(transformer_file(), "encoder.layers.0.linear2.weight", 5, nan));
    CHECK(contains(e, "tensor 'encoder.layers.0.linear2.weight' holds nan at element 5 (expected finite weights)"));
    e = load_error(with_element(transformer_file(), "output.bias", 0, std::numeric_limits<float>::infinity()));
    CHECK(contains(e, "tensor 'output.bias' holds inf at element 0"));
    // F16: 0x7c00 is +inf, 0x7e00 a NaN.
    e = load_error(with_element(transformer_file(DType::F16), "decoder.layers.0.cross_attn.k_proj.weight", 3, uint16_t(0x7c00)));
    CHECK(contains(e, "tensor 'decoder.layers.0.cross_attn.k_proj.weight' holds inf at element 3"));
    // I8: the values are integers; the per-row scale is what can be NaN.
    e = load_error(with_element(transformer_file(DType::I8), "decoder.layers.0.linear1.weight.scale", 2, nan));
    CHECK(contains(e, "tensor 'decoder.layers.0.linear1.weight.scale' holds nan at row 2"));
    // A finite scale so large that scale * 127 overflows.
    e = load_error(with_element(transformer_file(DType::I8), "decoder.layers.0.linear1.weight.scale", 2, 3e38f));
    CHECK(contains(e, "tensor 'decoder.layers.0.linear1.weight' holds"));
    e = load_error(with_element(bahdanau_file(), "decoder.rnn.weight_hh_l0", 7, nan));
    CHECK(contains(e, "tensor 'decoder.rnn.weight_hh_l0' holds nan at element 7"));
    e = load_error(with_element(bahdanau_file(DType::F16), "encoder.embedding.weight", 1, uint16_t(0x7e00)));
    CHECK(contains(e, "tensor 'encoder.embedding.weight' holds nan at element 1"));
}

TEST_CASE("model file limits: an I8 scale must be F32 with one value per row") {
    Parts p = split(transformer_file(DType::I8));
    const std::string scale = "encoder.layers.0.linear1.weight.scale";
    p.header[scale]["dtype"] = "I32";  // same bytes, read as integers
    CHECK(contains(load_error(join(p)), "tensor '" + scale + "' is I32 [12], expected F32 [12]"));
}

TEST_CASE("model file limits: truncated data and offsets that overlap, leave gaps or run past the file") {
    const std::vector<uint8_t> good = transformer_file();
    for (size_t cut : {size_t(1), size_t(4), size_t(100)}) {
        CAPTURE(cut);
        std::string e = load_error(std::vector<uint8_t>(good.begin(), good.end() - long(cut)));
        CHECK(contains(e, "model.safetensors"));
        CHECK(contains(e, "out of range"));
    }
    Parts p = split(good);
    std::vector<std::string> names;
    for (auto it = p.header.begin(); it != p.header.end(); ++it)
        if (it.key() != "__metadata__") names.push_back(it.key());
    // The second tensor moved one float back: it overlaps the first, and leaves 4 bytes at the end uncovered.
    Parts overlap = p;
    for (auto& o : overlap.header[names[1]]["data_offsets"]) o = o.get<size_t>() - 4;
    CHECK(contains(load_error(join(overlap)), "overlaps the previous tensor"));
    // The second tensor moved one float on, past 4 bytes nobody owns (and the file grows to keep the end in range).
    Parts gap = p;
    for (size_t i = 1; i < names.size(); i++)
        for (auto& o : gap.header[names[i]]["data_offsets"]) o = o.get<size_t>() + 4;
    gap.data.insert(gap.data.end(), 4, 0);
    CHECK(contains(load_error(join(gap)), "gap in the data section"));
    Parts past = p;
    past.header[names.back()]["data_offsets"][1] = past.data.size() + 4;
    CHECK(contains(load_error(join(past)), "out of range"));
}
