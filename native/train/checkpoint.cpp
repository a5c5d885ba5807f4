#include "train/checkpoint.h"

#include "error.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace attend {

namespace fs = std::filesystem;

void to_json(nlohmann::json& j, const TrainingState& s) {
    j = {{"step", s.step}, {"epoch", s.epoch}, {"batch_in_epoch", s.batch_in_epoch},
         {"elapsed_seconds", s.elapsed_seconds}, {"target_tokens", s.target_tokens}, {"best_val_bleu", s.best_val_bleu}};
}

void from_json(const nlohmann::json& j, TrainingState& s) {
    s.step = j.at("step").get<int64_t>();
    s.epoch = j.at("epoch").get<int>();
    s.batch_in_epoch = j.at("batch_in_epoch").get<int>();
    s.elapsed_seconds = j.value("elapsed_seconds", 0.0);
    s.target_tokens = j.value("target_tokens", int64_t{0});
    s.best_val_bleu = j.value("best_val_bleu", -1.0);
}

void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) throw Error("writing " + tmp + " failed (disk full?)");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

void save_checkpoint(const std::string& path, const TranslatorModel& model, const std::vector<float>& adam_m,
                     const std::vector<float>& adam_v, const TrainingState& state, const nlohmann::json& options) {
    SafeTensorsWriter w;
    add_translator_model(w, model, DType::F32);
    const int64_t n = static_cast<int64_t>(model.parameters().size());
    if (!adam_m.empty()) {
        if (adam_m.size() != static_cast<size_t>(n) || adam_v.size() != static_cast<size_t>(n))
            throw Error("checkpoint: optimizer state has " + std::to_string(adam_m.size()) + " values for " +
                        std::to_string(n) + " parameters");
        w.add_f32("optimizer.adam_m", {n}, adam_m.data());
        w.add_f32("optimizer.adam_v", {n}, adam_v.data());
    }
    w.set_metadata("attend.training_state", nlohmann::json(state).dump());
    w.set_metadata("attend.training_options", options.dump());
    write_file_atomically(path, w.to_bytes());
}

Checkpoint load_checkpoint(const std::string& path) {
    SafeTensors file = SafeTensors::from_file(path);
    Checkpoint c;
    c.model = load_translator_model(file, "optimizer.");
    auto meta = file.metadata();
    auto state = meta.find("attend.training_state");
    if (state == meta.end()) throw Error(path + ": not a training checkpoint (no attend.training_state)");
    try {
        c.state = nlohmann::json::parse(state->second).get<TrainingState>();
        auto options = meta.find("attend.training_options");
        if (options != meta.end()) c.options = nlohmann::json::parse(options->second);
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": training state is malformed (" + e.what() + ")");
    }
    const int64_t n = static_cast<int64_t>(c.model.parameters().size());
    if (file.contains("optimizer.adam_m")) {
        c.adam_m = file.floats("optimizer.adam_m", {n});
        c.adam_v = file.floats("optimizer.adam_v", {n});
    }
    return c;
}

std::string checkpoint_path(const std::string& dir, int64_t step) {
    char name[64];
    std::snprintf(name, sizeof name, "checkpoint-%08lld.safetensors", static_cast<long long>(step));
    return (fs::path(dir) / name).string();
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("checkpoint-", 0) == 0 && entry.path().extension() == ".safetensors")
            out.push_back(entry.path().string());
    }
    std::sort(out.begin(), out.end());  // zero-padded step numbers sort by step
    return out;
}

void prune_checkpoints(const std::string& dir, int keep) {
    std::vector<std::string> all = list_checkpoints(dir);
    for (size_t i = 0; keep >= 0 && i + static_cast<size_t>(keep) < all.size(); i++) fs::remove(all[i]);
}

TranslatorModel average_checkpoints(const std::vector<std::string>& paths) {
    if (paths.empty()) throw Error("average: no checkpoints given");
    TranslatorModel avg = load_translator_model(SafeTensors::from_file(paths[0]), "optimizer.");
    ParameterStore& p = avg.parameters();
    std::vector<double> sum(p.values(), p.values() + p.size());
    for (size_t k = 1; k < paths.size(); k++) {
        TranslatorModel m = load_translator_model(SafeTensors::from_file(paths[k]), "optimizer.");
        if (m.parameters().size() != p.size())
            throw Error("average: " + paths[k] + " has " + std::to_string(m.parameters().size()) +
                        " parameters, " + paths[0] + " has " + std::to_string(p.size()));
        const float* v = m.parameters().values();
        for (size_t i = 0; i < sum.size(); i++) sum[i] += v[i];
    }
    for (size_t i = 0; i < sum.size(); i++) p.values()[i] = static_cast<float>(sum[i] / paths.size());
    return avg;
}

}  // namespace attend
