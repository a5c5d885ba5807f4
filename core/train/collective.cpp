#include "train/collective.h"

#include <cstdlib>

namespace attend {
namespace {

class SingleProcess final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void allreduce_sum(float*, size_t) override {}
    void allreduce_sum(double*, size_t) override {}
    std::vector<std::string> allgather(const std::string& text) override { return {text}; }
    void barrier() override {}
    [[noreturn]] void abort(int status) override { std::exit(status); }
    std::string describe() const override { return "single process"; }
};

}  // namespace

Communicator& single_process() {
    static SingleProcess one;
    return one;
}

}  // namespace attend
