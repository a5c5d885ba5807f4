// One flat float buffer for all parameters of a model and one for their gradients, with named views.
// Tensors are declared first (name + shape); each declaration gets its offset at once, so layers can keep
// offsets and turn them into pointers after allocate(). Names are PyTorch-style dotted paths, e.g.
// `encoder.layers.0.self_attn.q_proj.weight`, so a model file maps 1:1 onto the store.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace attend {

struct TensorSpec {
    std::string name;
    std::vector<int> shape;
    size_t offset = 0;  // in floats from the start of values() / grads()
    size_t size = 0;    // number of floats (product of shape)
};

class ParameterStore {
public:
    // Declares a tensor; returns its offset. Throws attend::Error on a duplicate name, an empty name, a
    // non-positive dimension, or a declaration after allocate().
    size_t declare(const std::string& name, const std::vector<int>& shape);

    // Allocates the value buffer (zeros) and, when with_grads, the gradient buffer (zeros).
    void allocate(bool with_grads = true);
    bool allocated() const { return allocated_; }
    bool has_grads() const { return allocated_ && with_grads_; }

    size_t size() const { return total_; }  // total floats
    float* values() { return values_.data(); }
    const float* values() const { return values_.data(); }
    float* grads() { return grads_.data(); }  // null when allocated without grads
    const float* grads() const { return grads_.data(); }

    bool contains(const std::string& name) const { return index_.count(name) != 0; }
    const TensorSpec& spec(const std::string& name) const;  // throws attend::Error naming a missing tensor
    const std::vector<TensorSpec>& specs() const { return specs_; }

    float* value(const std::string& name);
    const float* value(const std::string& name) const;
    float* grad(const std::string& name);
    float* value_at(size_t offset) { return values_.data() + offset; }
    const float* value_at(size_t offset) const { return values_.data() + offset; }
    float* grad_at(size_t offset) { return grads_.empty() ? nullptr : grads_.data() + offset; }

    // Checks that `name` exists and has exactly `shape`; throws attend::Error with both shapes otherwise.
    void check_shape(const std::string& name, const std::vector<int>& shape) const;

    void zero_grad();

private:
    void require_allocated(const char* what) const;

    std::vector<TensorSpec> specs_;
    std::unordered_map<std::string, size_t> index_;
    std::vector<float> values_;
    std::vector<float> grads_;
    size_t total_ = 0;
    bool allocated_ = false;
    bool with_grads_ = false;
};

std::string shape_to_string(const std::vector<int>& shape);  // "[8000, 128]"

}  // namespace attend
