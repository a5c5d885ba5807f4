// The `attend` command line program: train, translate, evaluate, export, and benchmark.
#include "train/communicator.h"
#include "train/native_gemm.h"
#include "attend_version.h"
#include "cli/command.h"
#include "cli/line_io.h"
#include "error.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

namespace attend::cli {

std::vector<CommandSetup>& command_registry() {
    static std::vector<CommandSetup> registry;
    return registry;
}

int& exit_status() {
    static int status = 0;
    return status;
}

CLI::App* bench_command(CLI::App& app) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return s->get_name() == "bench"; }))
        return sub;
    CLI::App* bench = app.add_subcommand("bench", "Benchmarks: print one figure per line, beside a peer run in the same process");
    bench->require_subcommand(1);
    return bench;
}

}  // namespace attend::cli

int main(int argc, char** argv) {
    CLI::App app{"attend: attention models for machine translation (Transformer, GRU + Bahdanau)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("attend ") + attend::kAttendVersion);
    for (auto& setup : attend::cli::command_registry()) setup(app);
    attend::use_native_gemm();
    try {
        app.parse(argc, argv);
        // Whatever a command printed must have reached its destination (a full disk, a closed pipe): a result that
        // was lost is an error, not a success.
        attend::cli::finish_stdout();
    } catch (const CLI::ParseError& e) {
        // CLI11 numbers its parse errors (105 for a value out of range, 106 for an unknown option...); to a caller
        // they are all one thing, a command line to fix, so they share the status of every other bad input: 1.
        return app.exit(e) == 0 ? 0 : 1;
    } catch (const attend::CollectiveError& e) {
        if (attend::world().rank() == 0) std::fprintf(stderr, "attend: error: %s\n", e.what());
        return 1;
    } catch (const attend::Error& e) {
        attend::Communicator& job = attend::world();
        if (job.size() == 1) {
            std::fprintf(stderr, "attend: error: %s\n", e.what());
            return 1;
        }
        // The other ranks may be waiting in a collective for this one: end the whole job.
        std::fprintf(stderr, "attend: error on rank %d of %d: %s\n", job.rank(), job.size(), e.what());
        std::fflush(stderr);
        job.abort(1);
    } catch (const std::bad_alloc&) {
        // An input far larger than the work needs (a file that is not what it claims, an absurd size) is the usual
        // cause; a bare "std::bad_alloc" would not say so.
        std::fprintf(stderr, "attend: error: out of memory (is an input file, model or size far larger than "
                             "intended?)\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attend: internal error: %s\n", e.what());
        return 2;
    }
    return attend::cli::exit_status();
}
