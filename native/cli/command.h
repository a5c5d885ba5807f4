// Subcommands of the `attend` program register themselves: each cmd_*.cpp file holds one command (or one
// family, such as `bpe learn|apply|undo`) and a static CommandRegistrar, so adding a command touches no
// other file. Commands report bad input by throwing attend::Error; main() prints it and exits with 1.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

namespace attend::cli {

using CommandSetup = std::function<void(CLI::App& app)>;

std::vector<CommandSetup>& command_registry();

struct CommandRegistrar {
    explicit CommandRegistrar(CommandSetup setup) { command_registry().push_back(std::move(setup)); }
};

// The program's exit status when no error is thrown (0 unless a command sets it, e.g. `attend translate` sets
// kExitSkipped when it translated every line it could but skipped, truncated or cut some).
int& exit_status();
constexpr int kExitSkipped = 3;

// `attend bench <what>`: the parent is shared by every benchmark command.
CLI::App* bench_command(CLI::App& app);

}  // namespace attend::cli
