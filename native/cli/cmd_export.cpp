// `attend export`: a checkpoint (or the average of a run's last N, or of several files of one model) to a model file
// in F32, F16 or I8, and
// `attend info`: what a model file holds.
#include "cli/command.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "error.h"
#include "lm/lm_model_file.h"
#include "train/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace attend::cli {
namespace {

namespace fs = std::filesystem;

struct ExportFlags {
    std::vector<std::string> inputs;
    std::string out, dtype = "f16", card, list;
    int average = 0;
    float length_penalty = -1.0f;  // < 0: keep what the input has
    float min_confidence = -1.0f;  // likewise
    std::vector<std::string> name_placeholders;  // empty: likewise
    std::vector<int> alignment_layers;           // empty: likewise; else first, last
};

DType parse_dtype(std::string name) {
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (name == "F32" || name == "F16" || name == "I8") return dtype_from_name(name, "--dtype");
    throw Error("--dtype " + name + ": expected f32, f16 or i8");
}

// The page's model list (web/models/models.json's form): an entry for the model file, its path relative to the list,
// so that `web/?models=LIST` offers it. An entry of the same id is replaced; the list is made when missing.
void add_to_model_list(const std::string& list_path, const std::string& model_path, const TranslatorModel& m) {
    nlohmann::json list = {{"models", nlohmann::json::array()}};
    if (fs::exists(list_path)) {
        std::ifstream in(list_path);
        try {
            list = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            throw Error(list_path + ": not a model list (" + e.what() + ")");
        }
        if (!list.is_object() || !list.contains("models") || !list["models"].is_array())
            throw Error(list_path + ": not a model list (expected {\"models\": [...]})");
    }
    const fs::path list_dir = fs::absolute(list_path).parent_path();
    const std::string file = fs::relative(fs::absolute(model_path), list_dir).generic_string();
    if (file.rfind("..", 0) == 0)
        throw Error("--list " + list_path + ": the model file " + model_path +
                    " must be in the list's folder or below it (the page fetches it relative to the list)");
    const std::string id = fs::path(model_path).stem().string();
    const std::string source = language_code(m.source_pipeline), target = language_code(m.target_pipeline);
    nlohmann::json entry = {{"id", id},
                            {"name", m.network->description()},
                            {"source", source},
                            {"target", target},
                            {"parameters", parameter_count(m)},
                            {"size", fs::file_size(model_path)},
                            {"file", file}};
    if (m.card.contains("corpus") && m.card["corpus"].is_object() && m.card["corpus"].contains("training_pairs")) {
        std::string files;
        for (const nlohmann::json& r : m.card["corpus"].value("train", nlohmann::json::array()))
            for (const nlohmann::json& f : r.value("files", nlohmann::json::array()))
                files += (files.empty() ? "" : ", ") + fs::path(f.value("path", std::string("?"))).filename().string();
        entry["trained_on"] = std::to_string(m.card["corpus"]["training_pairs"].get<std::int64_t>()) +
                              " sentence pairs (" + files + ")";
    } else if (m.card.contains("data") && m.card["data"].is_string()) {
        entry["trained_on"] = m.card["data"];
    }
    nlohmann::json& models = list["models"];
    auto same = std::find_if(models.begin(), models.end(), [&](const nlohmann::json& e) { return e.value("id", "") == id; });
    if (same != models.end()) *same = entry;
    else models.push_back(entry);
    const std::string text = list.dump(2) + "\n";
    write_file_atomically(list_path, std::vector<uint8_t>(text.begin(), text.end()));
    // The demo server (npm start) serves the repository's root: a list under web/ is at /web/... there.
    const std::string served = fs::relative(fs::absolute(list_path), fs::current_path()).generic_string();
    std::printf("%s: lists %s; with `npm start` here, open http://127.0.0.1:8080/web/?models=/%s\n", list_path.c_str(),
                id.c_str(), served.c_str());
}

// The card file's keys over the model's own card.
void merge_card(nlohmann::json& card, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot read the card");
    try {
        card.update(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not valid JSON (" + e.what() + ")");
    }
}

// A language model file in another dtype (its card updated by --card); the translator's options do not apply.
void export_language_model(const ExportFlags& f, DType dtype) {
    if (f.inputs.size() > 1 || f.average > 0) throw Error("a language model is exported alone (no --average, one input)");
    if (f.length_penalty >= 0.0f || f.min_confidence >= 0.0f || !f.name_placeholders.empty() ||
        !f.alignment_layers.empty() || !f.list.empty())
        throw Error(f.inputs.front() + ": a language model has no decoding settings or page list entry "
                    "(--length-penalty, --min-confidence, --name-placeholders, --alignment-layers, --list)");
    LanguageModel m = load_language_model(SafeTensors::from_file(f.inputs.front()));
    if (!f.card.empty()) merge_card(m.card, f.card);
    write_file_atomically(f.out, save_language_model(m, dtype));
    std::printf("%s: %s language model, %zu parameters, %.2f MB\n", f.out.c_str(), dtype_name(dtype),
                m.network->parameters().size(), fs::file_size(f.out) / 1e6);
}

void run_export(const ExportFlags& f) {
    const DType dtype = parse_dtype(f.dtype);
    TranslatorModel m;
    const std::string& input = f.inputs.front();
    if (!fs::is_directory(input) && fs::exists(input) && is_language_model_file(SafeTensors::from_file(input)))
        return export_language_model(f, dtype);
    if (f.inputs.size() > 1) {
        // Means of checkpoints taken at different points of one run (after 80 and after 120 epochs), or a run and
        // its fine-tuning: the weights' mean, like --average over a folder.
        if (f.average > 0) throw Error("--average takes one run folder, not several inputs");
        for (const std::string& path : f.inputs)
            if (fs::is_directory(path)) throw Error(path + ": a folder; several inputs must be checkpoints or model files");
        m = average_checkpoints(f.inputs);
        m.card["averaged_files"] = f.inputs.size();
    } else if (fs::is_directory(input)) {
        std::vector<std::string> all = list_checkpoints(input);
        if (all.empty()) throw Error(input + ": no checkpoint-*.safetensors in this folder");
        const size_t n = f.average > 0 ? std::min<size_t>(f.average, all.size()) : 1;
        std::vector<std::string> chosen(all.end() - n, all.end());
        m = average_checkpoints(chosen);
        if (n > 1) m.card["averaged_checkpoints"] = n;
    } else {
        if (f.average > 0) throw Error("--average needs a run folder, not a file");
        m = load_model_or_checkpoint(input);
    }
    if (!f.card.empty()) merge_card(m.card, f.card);
    if (f.length_penalty >= 0.0f) m.length_penalty = f.length_penalty;
    if (f.min_confidence >= 0.0f) m.min_confidence = f.min_confidence;
    if (!f.name_placeholders.empty()) m.name_placeholders = f.name_placeholders;
    if (!f.alignment_layers.empty()) {
        const int n = m.network->cross_attention_layers();
        const int first = f.alignment_layers[0], last = f.alignment_layers[1];
        if (first < 0 || first > last || last >= n)
            throw Error("--alignment-layers " + std::to_string(first) + "," + std::to_string(last) +
                        ": expected FIRST,LAST with 0 <= FIRST <= LAST < " + std::to_string(n) +
                        " (this model's cross attention layers)");
        m.alignment_layers = std::array<int, 2>{first, last};
    }
    write_file_atomically(f.out, save_translator_model(m, dtype));
    std::printf("%s: %s, %zu parameters, %.2f MB\n", f.out.c_str(), dtype_name(dtype), parameter_count(m),
                fs::file_size(f.out) / 1e6);
    if (!f.list.empty()) add_to_model_list(f.list, f.out, m);
}

void run_info(const std::string& path, bool json_output) {
    TranslatorModel m = load_model_or_checkpoint(path);
    if (json_output) {
        std::printf("%s\n", nlohmann::json{{"file", path}, {"bytes", m.file_bytes}, {"dtype", dtype_name(m.weights_dtype)},
                                           {"parameters", parameter_count(m)}, {"config", m.config_json()},
                                           {"source_language", language_code(m.source_pipeline)},
                                           {"target_language", language_code(m.target_pipeline)},
                                           {"card", m.card},
                                           {"length_penalty", m.length_penalty ? nlohmann::json(*m.length_penalty)
                                                                               : nlohmann::json(nullptr)},
                                           {"min_confidence", m.min_confidence ? nlohmann::json(*m.min_confidence)
                                                                               : nlohmann::json(nullptr)},
                                           {"name_placeholders", m.name_placeholders},
                                           {"alignment_layers", m.alignment_layers ? nlohmann::json(*m.alignment_layers)
                                                                                   : nlohmann::json(nullptr)}}
                                .dump(2)
                                .c_str());
        return;
    }
    std::printf("file        %s (%.2f MB)\n", path.c_str(), m.file_bytes / 1e6);
    std::printf("languages   %s -> %s\n", language_code(m.source_pipeline).c_str(), language_code(m.target_pipeline).c_str());
    std::printf("model       %s\n", m.network->description().c_str());
    std::printf("parameters  %zu\n", parameter_count(m));
    std::printf("weights     %s\n", dtype_name(m.weights_dtype));
    if (m.source_pipeline.type == TextPipelineType::d2l_words)
        std::printf("vocabulary  %zu source, %zu target words; d2l word tokenizer (preprocess_nmt)\n",
                    m.source_vocab.size(), m.target_vocab.size());
    else if (m.source_pipeline.type == TextPipelineType::sentencepiece)
        std::printf("vocabulary  %zu pieces, joint; SentencePiece %s with byte fallback (raw text, any script)\n",
                    m.source_vocab.size(),
                    m.source_pipeline.sentencepiece->options().algorithm == SentencePieceModel::Algorithm::bpe ? "BPE" : "unigram");
    else
        std::printf("vocabulary  %zu source, %zu target; BPE %zu merges\n", m.source_vocab.size(), m.target_vocab.size(),
                    m.source_pipeline.bpe ? m.source_pipeline.bpe->size() : size_t{0});
    std::printf("max length  %d tokens\n", m.max_source_tokens());
    if (m.length_penalty) std::printf("decoding    length penalty %.3g (the model's own default)\n", *m.length_penalty);
    if (m.min_confidence)
        std::printf("confidence  translations below %.3g are flagged (the model's own threshold)\n", *m.min_confidence);
    if (!m.name_placeholders.empty()) {
        std::string names;
        for (const std::string& n : m.name_placeholders) names += (names.empty() ? "" : ", ") + n;
        std::printf("names       %s stand for names while a text is translated (the model's own)\n", names.c_str());
    }
    if (m.alignment_layers)
        std::printf("alignment   cross attention layers %d to %d place markup (the model's own)\n",
                    (*m.alignment_layers)[0], (*m.alignment_layers)[1]);
    if (m.card.contains("corpus") && m.card["corpus"].is_object()) {
        // What it learned from, a line a source: a person should not have to read the card's JSON for that.
        const nlohmann::json& corpus = m.card["corpus"];
        for (const char* part : {"train", "valid", "test"}) {
            if (!corpus.contains(part) || !corpus[part].is_array()) continue;
            for (const nlohmann::json& r : corpus[part]) {
                std::string crcs;
                for (const nlohmann::json& f : r.value("files", nlohmann::json::array()))
                    crcs += (crcs.empty() ? "" : ", ") + f.value("crc32", std::string("?"));
                std::printf("%-11s %s: %lld pairs (crc32 %s)\n", part, r.value("spec", std::string("?")).c_str(),
                            static_cast<long long>(r.value("used", r.value("pairs", std::int64_t{0}))), crcs.c_str());
            }
        }
        if (corpus.contains("valid") && corpus["valid"].is_object())
            std::printf("valid       %lld pairs held out of the training data (split seed %lld)\n",
                        static_cast<long long>(corpus["valid"].value("pairs", std::int64_t{0})),
                        static_cast<long long>(corpus["valid"].value("split_seed", std::int64_t{0})));
    }
    if (!m.card.empty()) std::printf("card        %s\n", m.card.dump().c_str());
}

CommandRegistrar registrar([](CLI::App& app) {
    auto f = std::make_shared<ExportFlags>();
    CLI::App* cmd = app.add_subcommand("export", "Write a model file (F32, F16, or I8 with per-row scales) from a checkpoint, a run folder, or several checkpoints of one model (their mean)");
    cmd->add_option("input", f->inputs,
                    "Checkpoint, model file, or run folder (newest checkpoint); several checkpoints or model files of "
                    "one model: their mean")
        ->required();
    cmd->add_option("-o,--out", f->out, "Model file to write")->required();
    cmd->add_option("--dtype", f->dtype, "f32, f16 or i8")->capture_default_str();
    cmd->add_option("--list", f->list,
                    "Also list the model in this models.json (made when missing; the model file in its folder or "
                    "below), for the page: web/?models=PATH");
    cmd->add_option("--average", f->average, "Average the last N checkpoints of the run folder")->check(at_least(0));
    cmd->add_option("--card", f->card, "JSON file merged into the model card (metadata attend.card)");
    cmd->add_option("--length-penalty", f->length_penalty,
                    "The model's default length penalty (metadata attend.decoding), tuned on validation data")
        ->check(CLI::Range(0.0f, kMaxModelLengthPenalty));
    cmd->add_option("--min-confidence", f->min_confidence,
                    "The confidence below which translations are flagged (metadata attend.decoding; 0: never), chosen "
                    "on validation data: `attend eval --split val` prints its percentiles")
        ->check(CLI::Range(0.0f, 1.0f));
    cmd->add_option("--name-placeholders", f->name_placeholders,
                    "Names, comma-separated, that stand for the names of a text while it is translated, in order of use "
                    "(metadata attend.decoding): those this model writes back best (bench/name_placeholders.py)")
        ->delimiter(',');
    cmd->add_option("--alignment-layers", f->alignment_layers,
                    "FIRST,LAST: the cross attention layers (0-based) whose mean places markup tags on the words they "
                    "mark (metadata attend.decoding; default every layer), chosen on validation data "
                    "(bench/markup_placement.py --choose-layers)")
        ->delimiter(',')
        ->expected(2);
    cmd->callback([f] { run_export(*f); });

    auto path = std::make_shared<std::string>();
    auto as_json = std::make_shared<bool>(false);
    CLI::App* info = app.add_subcommand("info", "Print a model file's configuration, parameters, dtype, size and card");
    info->add_option("model", *path, "Model file or checkpoint")->required();
    info->add_flag("--json", *as_json, "Print JSON");
    info->callback([path, as_json] { run_info(*path, *as_json); });
});

}  // namespace
}  // namespace attend::cli
