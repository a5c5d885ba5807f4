#include "model/bahdanau_seq2seq.h"

#include <set>
#include <string>

#include "error.h"
#include "model/config_checks.h"

namespace attend {
namespace {

Seq2SeqConfig side(const BahdanauConfig& c, int vocab) {
    c.validate();
    return Seq2SeqConfig{vocab, c.embed_size, c.num_hiddens, c.num_layers, c.dropout, c.bidirectional};
}

}  // namespace

void BahdanauConfig::validate() const {
    const char* what = "bahdanau config";
    check_config_range(what, "src_vocab", src_vocab, 1, kMaxVocab);
    check_config_range(what, "tgt_vocab", tgt_vocab, 1, kMaxVocab);
    check_config_range(what, "embed_size", embed_size, 1, kMaxModelWidth);
    check_config_range(what, "num_hiddens", num_hiddens, 1, kMaxModelWidth);
    check_config_range(what, "num_layers", num_layers, 1, kMaxLayers);
    check_config_range(what, "max_len", max_len, 1, kMaxSequence);
    check_config_range(what, "num_steps", num_steps, 0, kMaxSequence);
    if (num_steps == 1) throw Error("bahdanau config: num_steps is 1, expected 0 (no padding) or >= 2");
    check_config_fraction(what, "dropout", dropout);
    if (pad_id < 0 || pad_id >= src_vocab || pad_id >= tgt_vocab)
        throw Error("bahdanau config: pad_id " + std::to_string(pad_id) + " is outside the vocabularies");
}

nlohmann::json bahdanau_config_to_json(const BahdanauConfig& c) {
    nlohmann::json j = {{"architecture", "bahdanau"}, {"src_vocab", c.src_vocab},     {"tgt_vocab", c.tgt_vocab},
                        {"embed_size", c.embed_size}, {"num_hiddens", c.num_hiddens}, {"num_layers", c.num_layers},
                        {"dropout", c.dropout},       {"num_steps", c.num_steps},     {"max_len", c.max_len},
                        {"pad_id", c.pad_id}};
    if (c.bidirectional) j["bidirectional"] = true;
    return j;
}

BahdanauConfig bahdanau_config_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw Error("bahdanau config: expected a JSON object, got " + std::string(j.type_name()));
    if (!j.contains("architecture") || j["architecture"] != "bahdanau")
        throw Error("bahdanau config: architecture is " + (j.contains("architecture") ? j["architecture"].dump() : "missing") +
                    ", expected \"bahdanau\"");
    const std::set<std::string> known{"architecture", "src_vocab", "tgt_vocab", "embed_size", "num_hiddens",
                                      "num_layers",   "dropout",   "num_steps", "max_len",    "pad_id",
                                      "bidirectional"};
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!known.count(it.key())) throw Error("bahdanau config: unknown field '" + it.key() + "'");
    BahdanauConfig c;
    auto get = [&](const char* key, auto& field) { config_field("bahdanau config", j, key, field); };
    get("src_vocab", c.src_vocab);
    get("tgt_vocab", c.tgt_vocab);
    get("embed_size", c.embed_size);
    get("num_hiddens", c.num_hiddens);
    get("num_layers", c.num_layers);
    get("dropout", c.dropout);
    get("num_steps", c.num_steps);
    get("max_len", c.max_len);
    get("pad_id", c.pad_id);
    get("bidirectional", c.bidirectional);
    c.validate();
    return c;
}

BahdanauSeq2Seq::BahdanauSeq2Seq(const BahdanauConfig& c, bool with_grads)
    : config(c), encoder(side(c, c.src_vocab), &params, "encoder."), decoder(side(c, c.tgt_vocab), &params, "decoder.") {
    params.allocate(with_grads);
}

ParameterStore bahdanau_parameter_layout(const BahdanauConfig& c) {
    ParameterStore params;
    Seq2SeqEncoder encoder(side(c, c.src_vocab), &params, "encoder.");
    Seq2SeqAttentionDecoder decoder(side(c, c.tgt_vocab), &params, "decoder.");
    return params;
}

}  // namespace attend
