#include "train/checkpoint.h"

#include "error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attend {

namespace fs = std::filesystem;

void to_json(nlohmann::json& j, const TrainingState& s) {
    j = {{"step", s.step}, {"epoch", s.epoch}, {"batch_in_epoch", s.batch_in_epoch},
         {"elapsed_seconds", s.elapsed_seconds}, {"target_tokens", s.target_tokens}, {"best_val_bleu", s.best_val_bleu},
         {"log_loss_sum", s.log_loss_sum}, {"log_steps", s.log_steps}, {"epoch_loss_sum", s.epoch_loss_sum},
         {"epoch_tokens", s.epoch_tokens}};
}

void from_json(const nlohmann::json& j, TrainingState& s) {
    s.step = j.at("step").get<int64_t>();
    s.epoch = j.at("epoch").get<int>();
    s.batch_in_epoch = j.at("batch_in_epoch").get<int>();
    s.elapsed_seconds = j.value("elapsed_seconds", 0.0);
    s.target_tokens = j.value("target_tokens", int64_t{0});
    s.best_val_bleu = j.value("best_val_bleu", -1.0);
    s.log_loss_sum = j.value("log_loss_sum", 0.0);
    s.log_steps = j.value("log_steps", 0);
    s.epoch_loss_sum = j.value("epoch_loss_sum", 0.0);
    s.epoch_tokens = j.value("epoch_tokens", int64_t{0});
}

namespace {

std::string system_error(int error) { return std::strerror(error); }

// ATTEND_TEST_KILL_IN_WRITE (checkpoint.h): the byte count after which writing `path` kills the process, or -1.
int64_t kill_after_bytes(const std::string& path) {
    const char* hook = std::getenv("ATTEND_TEST_KILL_IN_WRITE");
    if (!hook) return -1;
    const std::string spec = hook;
    const size_t colon = spec.rfind(':');
    if (colon == std::string::npos || spec.substr(0, colon) != fs::path(path).filename().string()) return -1;
    return std::strtoll(spec.c_str() + colon + 1, nullptr, 10);
}

// Writes all of bytes to fd, retrying short writes and interrupted calls; false with errno set on failure.
bool write_all(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Makes a rename in `dir` durable. File systems that cannot sync a folder say so with EINVAL or ENOTSUP (and a
// folder we may not open for reading cannot be synced by us either): the rename then stands without that guarantee.
void sync_folder(const std::string& dir, const std::string& renamed) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == EACCES || errno == EPERM) return;
        throw Error("renamed " + renamed + " but cannot open its folder " + dir + " to sync it: " + system_error(errno));
    }
    int error = 0;
    if (::fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP) error = errno;
    ::close(fd);
    if (error)
        throw Error("renamed " + renamed + " but syncing its folder " + dir + " failed: " + system_error(error));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error("cannot write " + tmp + ": " + system_error(errno));
    auto fail = [&](const std::string& what) {
        const int error = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw Error(what + " " + tmp + " failed: " + system_error(error));
    };
    const int64_t kill_at = kill_after_bytes(path);
    if (kill_at >= 0 && static_cast<uint64_t>(kill_at) < bytes.size()) {
        if (!write_all(fd, bytes.data(), static_cast<size_t>(kill_at))) fail("writing");
        std::raise(SIGKILL);
    }
    if (!write_all(fd, bytes.data(), bytes.size())) fail("writing " + std::to_string(bytes.size()) + " bytes to");
    if (::fsync(fd) != 0) fail("syncing");
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(tmp.c_str());
        throw Error("closing " + tmp + " failed: " + system_error(error));
    }
    if (kill_at >= 0) std::raise(SIGKILL);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(tmp.c_str());
        throw Error("cannot rename " + tmp + " to " + path + ": " + system_error(error));
    }
    const fs::path dir = fs::path(path).parent_path();
    sync_folder(dir.empty() ? std::string(".") : dir.string(), path);
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

ResumePoint load_newest_checkpoint(const std::string& dir) {
    const std::vector<std::string> found = list_checkpoints(dir);
    if (found.empty()) throw Error("--resume: no checkpoint-*.safetensors in " + dir);
    ResumePoint r;
    for (auto it = found.rbegin(); it != found.rend(); ++it) {
        try {
            r.checkpoint = load_checkpoint(*it);
            r.path = *it;
            return r;
        } catch (const std::exception& e) {  // bad_alloc from a corrupt size too: any reason to pass it over
            std::string why = e.what();
            if (why.rfind(*it + ": ", 0) == 0) why.erase(0, it->size() + 2);  // the path is said once, by the caller
            r.skipped.emplace_back(*it, why);
        }
    }
    std::string reasons;
    for (const auto& [path, why] : r.skipped) reasons += "\n  " + path + ": " + why;
    throw Error("--resume: none of the " + std::to_string(found.size()) + " checkpoints in " + dir + " loads:" + reasons);
}

int drop_log_lines_after(const std::string& log_path, const TrainingState& state) {
    std::ifstream in(log_path, std::ios::binary);
    if (!in) return 0;
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    std::string kept;
    int dropped = 0;
    for (size_t start = 0; start < text.size();) {
        const size_t newline = text.find('\n', start);
        if (newline == std::string::npos) {  // a line cut short by a killed process
            dropped++;
            break;
        }
        const std::string line = text.substr(start, newline + 1 - start);
        start = newline + 1;
        bool keep = true;
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_object() && j.contains("event")) {
            // A "step" line holds the step just taken; an "epoch" line the 1-based epoch just finished, which a
            // checkpoint counts as finished once its 0-based current epoch has moved past it.
            if (j["event"] == "step" && j.value("step", int64_t{0}) > state.step) keep = false;
            if (j["event"] == "epoch" && j.value("epoch", 0) > state.epoch) keep = false;
        }
        if (keep) kept += line;
        else dropped++;
    }
    if (dropped > 0) write_file_atomically(log_path, std::vector<uint8_t>(kept.begin(), kept.end()));
    return dropped;
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

RunFolderLock::RunFolderLock(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error("cannot create the run folder " + dir + ": " + ec.message());
    const std::string path = (fs::path(dir) / kFileName).string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot open the run folder's lock file " + path + ": " + system_error(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        std::string holder;
        if (error == EWOULDBLOCK) {
            char text[32] = {};
            const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
            long pid = 0;
            holder = n > 0 && std::sscanf(text, "%ld", &pid) == 1 && pid > 0 ? "pid " + std::to_string(pid)
                                                                            : "a process that is starting";
        }
        ::close(fd_);
        fd_ = -1;
        if (error != EWOULDBLOCK) throw Error("cannot lock the run folder " + dir + " (" + path + "): " + system_error(error));
        throw Error(dir + " is in use by another training run (" + holder + ", which holds " + path +
                    "): wait for it to end or stop it, or train into another --out");
    }
    // The holder's pid, for the message of the next trainer that finds the folder locked.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        const int error = errno;
        ::close(fd_);
        fd_ = -1;
        throw Error("cannot write the run folder's lock file " + path + ": " + system_error(error));
    }
}

RunFolderLock::~RunFolderLock() {
    // The file stays: removing it would let a third trainer lock a new file while a second still waits on this one.
    if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> run_files(const std::string& dir) {
    auto ends_with = [](const std::string& s, const std::string& end) {
        return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
    };
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const bool checkpoint = name.rfind("checkpoint-", 0) == 0 &&
                                (ends_with(name, ".safetensors") || ends_with(name, ".safetensors.unreadable") ||
                                 ends_with(name, ".safetensors.tmp"));
        const bool own = name == "train.jsonl" || name == "train.jsonl.tmp" || name == "best.safetensors" ||
                         name == "best.safetensors.tmp" || name == "averaged.safetensors" ||
                         name == "averaged.safetensors.tmp";
        if ((checkpoint || own) && !entry.is_directory()) out.push_back(entry.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string move_run_files_aside(const std::string& dir) {
    const std::vector<std::string> files = run_files(dir);
    if (files.empty()) return "";
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
    fs::path aside = fs::path(dir) / (std::string("overwritten-") + stamp);
    for (int n = 2; fs::exists(aside); n++) aside = fs::path(dir) / ("overwritten-" + std::string(stamp) + "-" + std::to_string(n));
    std::error_code ec;
    fs::create_directory(aside, ec);
    if (ec) throw Error("--overwrite: cannot create " + aside.string() + ": " + ec.message());
    for (const std::string& file : files) {
        fs::rename(file, aside / fs::path(file).filename(), ec);
        if (ec)
            throw Error("--overwrite: cannot move " + file + " into " + aside.string() + ": " + ec.message() +
                        " (the files moved so far are there)");
    }
    return aside.string();
}

TranslatorModel average_checkpoints(const std::vector<std::string>& paths) {
    if (paths.empty()) throw Error("average: no checkpoints given");
    TranslatorModel avg = load_translator_model(SafeTensors::from_file(paths[0]), "optimizer.");
    ParameterStore& p = avg.parameters();
    std::vector<double> sum(p.values(), p.values() + p.size());
    // Parameters of the same count can still mean other things: another shape, another vocabulary's rows. Options
    // that leave the weights' meaning alone (dropout, of a fine-tuning) may differ.
    auto same = [&](const TranslatorModel& m) -> std::string {
        const auto& a = m.parameters().specs();
        const auto& b = p.specs();
        if (m.architecture() != avg.architecture() || a.size() != b.size() ||
            !std::equal(a.begin(), a.end(), b.begin(),
                        [](const TensorSpec& x, const TensorSpec& y) { return x.name == y.name && x.shape == y.shape; }))
            return "other tensors (architecture, names or shapes)";
        if (const std::string what = io_difference(m, avg); !what.empty())
            return "another text pipeline or vocabulary (its " + what + ")";
        return "";
    };
    for (size_t k = 1; k < paths.size(); k++) {
        TranslatorModel m = load_translator_model(SafeTensors::from_file(paths[k]), "optimizer.");
        if (const std::string differs = same(m); !differs.empty())
            throw Error("average: " + paths[k] + " has " + differs + " than " + paths[0] +
                        ": only models of one shape and vocabulary can be averaged");
        const float* v = m.parameters().values();
        for (size_t i = 0; i < sum.size(); i++) sum[i] += v[i];
    }
    for (size_t i = 0; i < sum.size(); i++) p.values()[i] = static_cast<float>(sum[i] / paths.size());
    return avg;
}

}  // namespace attend
