// The safetensors file format (the model file of docs/design.md): u64 little-endian header length N, N bytes of
// JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {string: string}}, then the raw
// little-endian tensor bytes. Offsets are relative to the data start and must tile it exactly: no gaps, no
// overlap, nothing out of range. Reading validates all of that and throws attend::Error naming the problem.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attend {

enum class DType { F64, F32, F16, BF16, I64, I32, I8, U8, BOOL };

const char* dtype_name(DType dtype);                                  // "F32", ...
DType dtype_from_name(const std::string& name, const std::string& where);  // throws on an unknown name
size_t dtype_size(DType dtype);                                       // bytes per element

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even; overflow gives inf
float bfloat16_to_float(uint16_t b);

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    size_t begin = 0;  // byte offsets relative to the data start
    size_t end = 0;
    int64_t numel() const;
    std::string shape_string() const;  // "[2, 3]"
};

// A parsed file held in memory. Tensor data is read through the accessors, which convert to the requested type.
class SafeTensors {
public:
    // source_name appears in every error message (a file path, or "<memory>").
    static SafeTensors from_bytes(std::vector<uint8_t> bytes, const std::string& source_name = "<memory>");
    static SafeTensors from_file(const std::string& path);

    const std::string& source() const { return source_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    std::vector<std::string> names() const;  // in data-offset order
    bool contains(const std::string& name) const;
    const TensorInfo& info(const std::string& name) const;  // throws when missing

    // Raw bytes of a tensor (little-endian, info(name).dtype).
    const uint8_t* raw(const std::string& name) const;

    // Values converted to float (F64/F32/F16/BF16/integers). With expected_shape given, a different shape throws.
    std::vector<float> floats(const std::string& name) const;
    std::vector<float> floats(const std::string& name, const std::vector<int64_t>& expected_shape) const;
    // Copies into dst, which must hold exactly numel floats of the expected shape.
    void read_floats(const std::string& name, float* dst, const std::vector<int64_t>& expected_shape) const;
    // Integer tensors (I64/I32/I8/U8/BOOL) as int; float tensors are rejected.
    std::vector<int> ints(const std::string& name) const;

private:
    std::string source_;
    std::vector<uint8_t> bytes_;
    size_t data_start_ = 0;
    std::map<std::string, TensorInfo> tensors_;
    std::map<std::string, std::string> metadata_;
};

// Builds a file: add tensors (stored in the order added), then to_bytes() or write_file().
class SafeTensorsWriter {
public:
    void set_metadata(const std::string& key, const std::string& value);
    void add_f32(const std::string& name, const std::vector<int64_t>& shape, const float* data);
    void add_f16(const std::string& name, const std::vector<int64_t>& shape, const float* data);  // converts
    void add_i8(const std::string& name, const std::vector<int64_t>& shape, const int8_t* data);
    void add_i32(const std::string& name, const std::vector<int64_t>& shape, const int32_t* data);
    void add_raw(const std::string& name, DType dtype, const std::vector<int64_t>& shape, const void* data,
                 size_t nbytes);
    std::vector<uint8_t> to_bytes() const;
    void write_file(const std::string& path) const;

private:
    struct Entry {
        std::string name;
        DType dtype;
        std::vector<int64_t> shape;
        std::vector<uint8_t> bytes;
    };
    std::vector<Entry> entries_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace attend
