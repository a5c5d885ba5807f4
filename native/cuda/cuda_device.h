// Asking the CUDA runtime for GPUs. Any failure there (no driver, "CUDA driver version is insufficient",
// no device) means "no GPU"; the reason is returned so that skipped tests and `--device cuda` can say why.
#pragma once
#include <string>

namespace attend::cuda {

struct DeviceQuery {
    int count = 0;            // usable GPUs; 0 when the runtime failed
    std::string reason;       // why count is 0 (runtime error text), empty when count > 0
    std::string description;  // one line per GPU: name, memory, compute capability
};

DeviceQuery query_devices();

}  // namespace attend::cuda
