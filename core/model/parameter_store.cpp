#include "model/parameter_store.h"

#include "error.h"

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>

namespace attend {

std::string shape_to_string(const std::vector<int>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

size_t ParameterStore::declare(const std::string& name, const std::vector<int>& shape) {
    if (allocated_) throw Error("parameter store: tensor '" + name + "' declared after allocate()");
    if (name.empty()) throw Error("parameter store: tensor name is empty, expected a dotted path");
    if (index_.count(name)) throw Error("parameter store: tensor '" + name + "' declared twice");
    // Counted in size_t, which is 32 bits in WebAssembly: a product or total past it must not wrap.
    const size_t limit = std::numeric_limits<size_t>::max() / 2 / sizeof(float);
    size_t size = 1;
    for (int d : shape) {
        if (d <= 0)
            throw Error("parameter store: tensor '" + name + "' has shape " + shape_to_string(shape) +
                        ", expected positive dimensions");
        if (size > limit / size_t(d))
            throw Error("parameter store: tensor '" + name + "' of shape " + shape_to_string(shape) +
                        " is too large to address");
        size *= size_t(d);
    }
    if (size > limit - total_)
        throw Error("parameter store: tensor '" + name + "' of shape " + shape_to_string(shape) +
                    " takes the parameters past what can be addressed");
    TensorSpec spec{name, shape, total_, size};
    index_[name] = specs_.size();
    specs_.push_back(spec);
    total_ += size;
    return spec.offset;
}

void ParameterStore::allocate(bool with_grads) {
    if (allocated_) throw Error("parameter store: allocate() called twice");
    try {
        values_.assign(total_, 0.0f);
        if (with_grads) grads_.assign(total_, 0.0f);
    } catch (const std::bad_alloc&) {
        values_ = {};
        grads_ = {};
        throw Error("parameter store: out of memory allocating " + std::to_string(total_) + " parameters (" +
                    std::to_string((with_grads ? 2 : 1) * total_ * sizeof(float) >> 20) + " MiB)");
    } catch (const std::length_error&) {
        throw Error("parameter store: " + std::to_string(total_) + " parameters are more than can be allocated");
    }
    with_grads_ = with_grads;
    allocated_ = true;
}

const TensorSpec& ParameterStore::spec(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw Error("parameter store: no tensor named '" + name + "'");
    return specs_[it->second];
}

void ParameterStore::require_allocated(const char* what) const {
    if (!allocated_) throw Error(std::string("parameter store: ") + what + " requested before allocate()");
}

float* ParameterStore::value(const std::string& name) {
    require_allocated("value");
    return values_.data() + spec(name).offset;
}

const float* ParameterStore::value(const std::string& name) const {
    require_allocated("value");
    return values_.data() + spec(name).offset;
}

float* ParameterStore::grad(const std::string& name) {
    require_allocated("gradient");
    if (grads_.empty())
        throw Error("parameter store: gradient of '" + name + "' requested, but the store has no gradients");
    return grads_.data() + spec(name).offset;
}

void ParameterStore::check_shape(const std::string& name, const std::vector<int>& shape) const {
    const TensorSpec& s = spec(name);
    if (s.shape != shape)
        throw Error("tensor '" + name + "' has shape " + shape_to_string(s.shape) + ", expected " +
                    shape_to_string(shape));
}

void ParameterStore::zero_grad() {
    std::fill(grads_.begin(), grads_.end(), 0.0f);
}

}  // namespace attend
