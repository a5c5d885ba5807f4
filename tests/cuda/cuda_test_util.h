// Shared helpers for the CUDA tests: the GPU check that every GPU test case starts with, device copies of host
// data, masks with device pointers, and a comparison that reports the worst element.
//
// Without a usable GPU every GPU test case prints why it is skipped (the cudaGetDeviceCount error) and returns
// having checked nothing: a skip, said out loud, never a pass that pretends to have compared anything.
#pragma once
#include <doctest/doctest.h>

#include "cuda/device_memory.h"
#include "train/devices.h"
#include "kernels/attn_mask.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace attend::cuda_test {

inline const CudaAvailability& gpu() {
    static const CudaAvailability a = cuda_availability();
    return a;
}

inline bool have_gpu() { return gpu().gpus > 0; }

inline std::string skip_reason() { return "no usable GPU: " + gpu().reason; }

}  // namespace attend::cuda_test

// First line of every test case that needs a GPU.
#define ATTEND_REQUIRE_GPU()                                                                              \
    do {                                                                                                  \
        if (!::attend::cuda_test::have_gpu()) {                                                           \
            const std::string attend_skip_ = std::string("SKIPPED (") +                                   \
                                             doctest::getContextOptions()->currentTest->m_name + "): " +  \
                                             ::attend::cuda_test::skip_reason();                          \
            MESSAGE(attend_skip_);                                                                        \
            return;                                                                                       \
        }                                                                                                 \
    } while (0)

namespace attend::cuda_test {

using cuda::DeviceBuffer;

inline std::vector<float> random_vector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

inline std::vector<int> random_ints(size_t n, uint32_t seed, int lo, int hi /*inclusive*/) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
    return DeviceBuffer<T>(host);
}

template <class T>
std::vector<T> to_host(const DeviceBuffer<T>& d) {
    return d.to_host();
}

// |gpu - cpu| <= atol + rtol * |cpu| for every element; equal infinities and NaN-for-NaN count as equal. On failure
// the message names the tensor, the number of bad elements and the worst one.
inline void check_close(const std::vector<float>& gpu_values, const std::vector<float>& cpu_values, double atol,
                        double rtol, const std::string& what) {
    REQUIRE_MESSAGE(gpu_values.size() == cpu_values.size(), what << ": sizes differ");
    size_t bad = 0, worst = 0;
    double worst_excess = -1.0, max_abs = 0.0;
    for (size_t i = 0; i < cpu_values.size(); ++i) {
        const double g = gpu_values[i], c = cpu_values[i];
        if ((std::isnan(g) && std::isnan(c)) || (std::isinf(g) && std::isinf(c) && (g > 0) == (c > 0))) continue;
        const double err = std::fabs(g - c);
        if (!(err <= max_abs)) max_abs = std::isnan(err) ? INFINITY : std::max(max_abs, err);
        const double excess = err - (atol + rtol * std::fabs(c));
        if (!(excess <= 0.0)) {
            ++bad;
            if (std::isnan(excess) || excess > worst_excess) {
                worst_excess = std::isnan(excess) ? INFINITY : excess;
                worst = i;
            }
        }
    }
    CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << cpu_values.size() << " elements differ beyond atol "
                                 << atol << " + rtol " << rtol << "; worst at " << worst << ": gpu "
                                 << (bad ? gpu_values[worst] : 0.0f) << " cpu " << (bad ? cpu_values[worst] : 0.0f)
                                 << "; max |diff| " << max_abs);
}

// An AttnMask whose arrays live on the device; built from a host mask and the sizes its arrays have.
struct DeviceMask {
    DeviceBuffer<int> valid_lens;
    DeviceBuffer<uint8_t> key_padding, bool_mask;
    DeviceBuffer<float> additive;
    AttnMask mask;

    DeviceMask(const AttnMask& host, int B, int H, int Tq, int Tk) : mask(host) {
        if (host.valid_lens) {
            const size_t n = host.valid_lens_per_query ? size_t(B) * Tq : size_t(B);
            valid_lens = DeviceBuffer<int>(std::vector<int>(host.valid_lens, host.valid_lens + n));
            mask.valid_lens = valid_lens.get();
        }
        if (host.key_padding) {
            const size_t n = size_t(B) * Tk;
            key_padding = DeviceBuffer<uint8_t>(std::vector<uint8_t>(host.key_padding, host.key_padding + n));
            mask.key_padding = key_padding.get();
        }
        const size_t planes = host.attn_mask_per_head ? size_t(B) * H : 1;
        const size_t n = planes * Tq * Tk;
        if (host.bool_mask) {
            bool_mask = DeviceBuffer<uint8_t>(std::vector<uint8_t>(host.bool_mask, host.bool_mask + n));
            mask.bool_mask = bool_mask.get();
        }
        if (host.additive) {
            additive = DeviceBuffer<float>(std::vector<float>(host.additive, host.additive + n));
            mask.additive = additive.get();
        }
    }
};

}  // namespace attend::cuda_test
