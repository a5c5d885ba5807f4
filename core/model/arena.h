// One float buffer for all the activations of a forward pass, carved up in order. Sizing takes two passes
// over the same plan function: first with no buffer (take() only counts and returns nullptr), then with a
// buffer of the counted size, so the plan is written once.
//
// ScratchArena: memory that lives for part of one call (gradient buffers, dropped attention weights), taken and
// given back in stack order.
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

// take() hands out the next n floats (uninitialised); release(mark()) gives back all taken since the mark. Memory
// comes in blocks that never move, so a pointer stays valid until its release; once everything is given back the
// blocks are joined into one, so the next pass of the same shape (a training step) allocates nothing.
class ScratchArena {
public:
    struct Mark {
        size_t block = 0, used = 0;
    };
    float* take(size_t n) {
        while (block_ < blocks_.size() && blocks_[block_].size() - used_ < n) {
            ++block_;
            used_ = 0;
        }
        if (block_ == blocks_.size()) blocks_.emplace_back(n);
        float* p = blocks_[block_].data() + used_;
        used_ += n;
        return p;
    }
    Mark mark() const { return {block_, used_}; }
    void release(Mark m) {
        block_ = m.block;
        used_ = m.used;
        if (block_ == 0 && used_ == 0 && blocks_.size() > 1) {
            size_t total = 0;
            for (const auto& b : blocks_) total += b.size();
            blocks_.assign(1, std::vector<float>(total));
        }
    }

private:
    std::vector<std::vector<float>> blocks_;  // moving the outer vector keeps every block's data in place
    size_t block_ = 0, used_ = 0;             // the block taken from, and the floats taken from it
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
