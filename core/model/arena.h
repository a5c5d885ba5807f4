// One float buffer for all the activations of a forward pass, carved up in order. Sizing takes two passes
// over the same plan function: first with no buffer (take() only counts and returns nullptr), then with a
// buffer of the counted size, so the plan is written once.
#pragma once
#include <cstddef>
#include <vector>

namespace attend {

class Arena {
public:
    float* take(size_t n) {
        const size_t at = used_;
        used_ += n;
        return storage_.empty() ? nullptr : storage_.data() + at;
    }
    size_t used() const { return used_; }
    // Starts the second pass: allocates (zeros) what the counting pass used and rewinds.
    void allocate_counted() {
        storage_.assign(used_, 0.0f);
        used_ = 0;
    }
    void reset_counting() {
        storage_.clear();
        used_ = 0;
    }
    // Both passes of a plan: carve() once counting, once more carving the allocated buffer.
    template <class Carve>
    void plan(Carve&& carve) {
        reset_counting();
        carve();
        allocate_counted();
        carve();
    }

private:
    std::vector<float> storage_;
    size_t used_ = 0;
};

// A layer's saved activations are named pointers into an arena; a copy would point into the original's. So
// CopiesUnplanned<S> copies as a default S (unplanned: the copy's next forward plans again), while a move keeps
// the plan.
template <class S>
struct CopiesUnplanned : S {
    CopiesUnplanned() = default;
    CopiesUnplanned(const CopiesUnplanned&) : S() {}
    CopiesUnplanned& operator=(const CopiesUnplanned&) {
        static_cast<S&>(*this) = S();
        return *this;
    }
    CopiesUnplanned(CopiesUnplanned&&) = default;
    CopiesUnplanned& operator=(CopiesUnplanned&&) = default;
};

}  // namespace attend
