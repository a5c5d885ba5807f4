#include "io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "error.h"

namespace attend {

namespace {

struct DTypeRow {
    DType dtype;
    const char* name;
    size_t size;
};

constexpr DTypeRow kDTypes[] = {
    {DType::F64, "F64", 8}, {DType::F32, "F32", 4}, {DType::F16, "F16", 2},   {DType::BF16, "BF16", 2},
    {DType::I64, "I64", 8}, {DType::I32, "I32", 4}, {DType::I8, "I8", 1},     {DType::U8, "U8", 1},
    {DType::BOOL, "BOOL", 1},
};

// The data is little-endian on disk; every platform Attend targets (x86-64, wasm32) is little-endian too,
// so values are read with memcpy.
template <class T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

// A model header is a few kilobytes; safetensors' own reader refuses headers over 100 MB.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

// The first bytes as text when they are printable (an HTML page, a JSON or text file given as a model).
std::string printable_start(const uint8_t* p, size_t n) {
    std::string text;
    for (size_t i = 0; i < n; ++i) {
        if (p[i] < 0x20 || p[i] > 0x7E) return "";
        text += char(p[i]);
    }
    return text;
}

void check_header_length(uint64_t header_len, uint64_t available, const uint8_t* first8, const std::string& src) {
    if (header_len <= available && header_len <= kMaxHeaderBytes) return;
    const std::string text = printable_start(first8, 8);
    if (!text.empty())
        throw Error(src + ": not a safetensors model file: it begins with the text '" + text +
                    "' (an HTML page or a text file?), where a model file begins with its header's length");
    if (header_len > kMaxHeaderBytes)
        throw Error(src + ": header length " + std::to_string(header_len) + " is over the " +
                    std::to_string(kMaxHeaderBytes) + " bytes a header may have (not a safetensors file)");
    throw Error(src + ": header length " + std::to_string(header_len) + " is larger than the " +
                std::to_string(available) + " bytes that follow it (truncated or not a safetensors file)");
}

nlohmann::json parse_header(const char* begin, uint64_t len, const std::string& src) {
    if (len < 2 || begin[0] != '{')
        throw Error(src + ": header is not a JSON object (expected '{' after the 8-byte length)");
    try {
        return nlohmann::json::parse(begin, begin + len);
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        if (what.size() > 200) what = what.substr(0, 200) + "...";  // the parser quotes what it read
        throw Error(src + ": header is not valid JSON: " + what);
    }
}

// The bytes of tensor data the header declares (the largest data offset), or UINT64_MAX when an entry is
// malformed (from_bytes then says which).
uint64_t declared_data_size(const uint8_t* header, uint64_t len, const std::string& src) {
    const nlohmann::json h = parse_header(reinterpret_cast<const char*>(header), len, src);
    if (!h.is_object()) return UINT64_MAX;
    uint64_t end = 0;
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == "__metadata__") continue;
        const nlohmann::json& e = it.value();
        if (!e.is_object() || !e.contains("data_offsets") || !e["data_offsets"].is_array() ||
            e["data_offsets"].size() != 2 || !e["data_offsets"][1].is_number_unsigned())
            return UINT64_MAX;
        end = std::max(end, e["data_offsets"][1].get<uint64_t>());
    }
    return end;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

const char* dtype_name(DType dtype) {
    for (const auto& row : kDTypes)
        if (row.dtype == dtype) return row.name;
    return "?";
}

DType dtype_from_name(const std::string& name, const std::string& where) {
    for (const auto& row : kDTypes)
        if (name == row.name) return row.dtype;
    throw Error(where + ": unknown dtype '" + name + "', expected one of F64, F32, F16, BF16, I64, I32, I8, U8, BOOL");
}

size_t dtype_size(DType dtype) {
    for (const auto& row : kDTypes)
        if (row.dtype == dtype) return row.size;
    return 0;
}

float half_to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {  // subnormal: renormalise
            int shift = 0;
            while (!(mantissa & 0x400)) {
                mantissa <<= 1;
                ++shift;
            }
            mantissa &= 0x3ff;
            bits = sign | uint32_t(127 - 15 - shift + 1) << 23 | mantissa << 13;
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | mantissa << 13;
    } else {
        bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint16_t sign = uint16_t((x >> 16) & 0x8000);
    uint32_t abs = x & 0x7fffffff;
    if (abs >= 0x7f800000u) return sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0);  // inf / nan
    if (abs >= 0x477ff000u) return sign | 0x7c00;                                    // rounds past 65504
    if (abs < 0x38800000u) {                                                         // subnormal half or zero
        if (abs < 0x33000000u) return sign;
        uint32_t exponent = abs >> 23;
        uint32_t mantissa = (abs & 0x7fffff) | 0x800000;
        int shift = 126 - int(exponent);  // value in units of 2^-24, the half subnormal step
        uint32_t value = mantissa >> shift;
        uint32_t rem = mantissa & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (value & 1))) ++value;
        return sign | uint16_t(value);
    }
    uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);  // round to nearest even at bit 13
    return sign | uint16_t((rounded - (uint32_t(127 - 15) << 23)) >> 13);
}

float bfloat16_to_float(uint16_t b) {
    uint32_t bits = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

int64_t TensorInfo::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string TensorInfo::shape_string() const { return shape_to_string(shape); }

SafeTensors SafeTensors::from_bytes(std::vector<uint8_t> bytes, const std::string& source_name) {
    using nlohmann::json;
    SafeTensors st;
    st.source_ = source_name;
    const std::string& src = st.source_;
    if (bytes.size() < 8)
        throw Error(src + ": file is " + std::to_string(bytes.size()) +
                    " bytes, too short for the 8-byte safetensors header length");
    uint64_t header_len = load<uint64_t>(bytes.data());
    check_header_length(header_len, bytes.size() - 8, bytes.data(), src);
    const json header = parse_header(reinterpret_cast<const char*>(bytes.data() + 8), header_len, src);
    if (!header.is_object()) throw Error(src + ": header is not a JSON object");
    st.data_start_ = 8 + size_t(header_len);
    const size_t data_size = bytes.size() - st.data_start_;

    std::vector<const TensorInfo*> by_offset;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        const json& entry = it.value();
        if (name == "__metadata__") {
            if (!entry.is_object()) throw Error(src + ": __metadata__ must be an object of strings");
            for (auto m = entry.begin(); m != entry.end(); ++m) {
                if (!m.value().is_string())
                    throw Error(src + ": __metadata__ value of '" + m.key() + "' must be a string");
                st.metadata_[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string where = src + ": tensor '" + name + "'";
        if (!entry.is_object()) throw Error(where + " must be an object with dtype, shape and data_offsets");
        if (!entry.contains("dtype") || !entry["dtype"].is_string()) throw Error(where + " has no string 'dtype'");
        if (!entry.contains("shape") || !entry["shape"].is_array()) throw Error(where + " has no array 'shape'");
        if (!entry.contains("data_offsets") || !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2)
            throw Error(where + " has no 'data_offsets' pair [begin, end]");
        TensorInfo info;
        info.name = name;
        info.dtype = dtype_from_name(entry["dtype"].get<std::string>(), where);
        uint64_t numel = 1;
        for (const json& d : entry["shape"]) {
            if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0))
                throw Error(where + " has a shape entry that is not a non-negative integer");
            uint64_t dim = d.get<uint64_t>();
            if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / 16 / dim)
                throw Error(where + " has a shape too large to address");
            numel *= dim;
            info.shape.push_back(int64_t(dim));
        }
        for (const json& o : entry["data_offsets"])
            if (!o.is_number_unsigned() && !(o.is_number_integer() && o.get<int64_t>() >= 0))
                throw Error(where + " has a data offset that is not a non-negative integer");
        uint64_t begin = entry["data_offsets"][0].get<uint64_t>();
        uint64_t end = entry["data_offsets"][1].get<uint64_t>();
        if (begin > end)
            throw Error(where + " has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                        "] with begin after end");
        if (end > data_size)
            throw Error(where + " has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                        "] out of range: the data section holds " + std::to_string(data_size) + " bytes");
        uint64_t expected = numel * dtype_size(info.dtype);
        if (end - begin != expected)
            throw Error(where + " has " + std::to_string(end - begin) + " bytes but dtype " +
                        dtype_name(info.dtype) + " and shape " + info.shape_string() + " need " +
                        std::to_string(expected));
        info.begin = size_t(begin);
        info.end = size_t(end);
        auto inserted = st.tensors_.emplace(name, std::move(info));
        by_offset.push_back(&inserted.first->second);
    }
    std::sort(by_offset.begin(), by_offset.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    size_t cursor = 0;
    for (const TensorInfo* t : by_offset) {
        if (t->begin < cursor)
            throw Error(src + ": tensor '" + t->name + "' data [" + std::to_string(t->begin) + ", " +
                        std::to_string(t->end) + ") overlaps the previous tensor, which ends at " +
                        std::to_string(cursor));
        if (t->begin > cursor)
            throw Error(src + ": gap in the data section: bytes [" + std::to_string(cursor) + ", " +
                        std::to_string(t->begin) + ") before tensor '" + t->name + "' belong to no tensor");
        cursor = t->end;
    }
    if (cursor != data_size)
        throw Error(src + ": data section has " + std::to_string(data_size) + " bytes but the tensors cover " +
                    std::to_string(cursor) + " (trailing bytes or a wrong header)");
    st.bytes_ = std::move(bytes);
    return st;
}

SafeTensors SafeTensors::from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the safetensors file for reading");
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) throw Error(path + ": cannot determine the file size");
    in.seekg(0, std::ios::beg);
    // The header says how large the file must be: it is read and checked first, so that a file that is not a model
    // (or a truncated one) is refused without reading gigabytes of it.
    std::vector<uint8_t> bytes(static_cast<size_t>(std::min<std::streamoff>(size, 8)));
    if (!bytes.empty() && !in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
        throw Error(path + ": read failed after " + std::to_string(in.gcount()) + " bytes");
    if (size >= 8) {
        const uint64_t header_len = load<uint64_t>(bytes.data());
        check_header_length(header_len, uint64_t(size) - 8, bytes.data(), path);
        bytes.resize(8 + size_t(header_len));
        if (!in.read(reinterpret_cast<char*>(bytes.data() + 8), std::streamsize(header_len)))
            throw Error(path + ": read failed in the header after " + std::to_string(8 + in.gcount()) + " bytes");
        const uint64_t declared = declared_data_size(bytes.data() + 8, header_len, path);
        if (declared != UINT64_MAX && declared != uint64_t(size) - 8 - header_len)
            throw Error(path + ": the header declares " + std::to_string(declared) + " bytes of tensor data but " +
                        std::to_string(uint64_t(size) - 8 - header_len) + " follow it (" +
                        (declared > uint64_t(size) - 8 - header_len ? "a truncated file" : "trailing bytes") + ")");
        bytes.resize(size_t(size));
        const std::streamsize rest = std::streamsize(uint64_t(size) - 8 - header_len);
        if (rest > 0 && !in.read(reinterpret_cast<char*>(bytes.data() + 8 + header_len), rest))
            throw Error(path + ": read failed after " + std::to_string(8 + header_len + in.gcount()) + " bytes");
    }
    return from_bytes(std::move(bytes), path);
}

std::vector<std::string> SafeTensors::names() const {
    std::vector<const TensorInfo*> infos;
    for (const auto& kv : tensors_) infos.push_back(&kv.second);
    std::sort(infos.begin(), infos.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->name < b->name;
    });
    std::vector<std::string> out;
    for (const TensorInfo* t : infos) out.push_back(t->name);
    return out;
}

bool SafeTensors::contains(const std::string& name) const { return tensors_.count(name) != 0; }

const TensorInfo& SafeTensors::info(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(source_ + ": no tensor named '" + name + "'");
    return it->second;
}

const uint8_t* SafeTensors::raw(const std::string& name) const { return bytes_.data() + data_start_ + info(name).begin; }

std::vector<float> SafeTensors::floats(const std::string& name) const {
    const TensorInfo& t = info(name);
    std::vector<float> out(size_t(t.numel()));
    const uint8_t* p = raw(name);
    const size_t n = out.size();
    switch (t.dtype) {
        case DType::F64: for (size_t i = 0; i < n; ++i) out[i] = float(load<double>(p + 8 * i)); break;
        case DType::F32: if (n) std::memcpy(out.data(), p, 4 * n); break;
        case DType::F16: for (size_t i = 0; i < n; ++i) out[i] = half_to_float(load<uint16_t>(p + 2 * i)); break;
        case DType::BF16: for (size_t i = 0; i < n; ++i) out[i] = bfloat16_to_float(load<uint16_t>(p + 2 * i)); break;
        case DType::I64: for (size_t i = 0; i < n; ++i) out[i] = float(load<int64_t>(p + 8 * i)); break;
        case DType::I32: for (size_t i = 0; i < n; ++i) out[i] = float(load<int32_t>(p + 4 * i)); break;
        case DType::I8: for (size_t i = 0; i < n; ++i) out[i] = float(int8_t(p[i])); break;
        case DType::U8:
        case DType::BOOL: for (size_t i = 0; i < n; ++i) out[i] = float(p[i]); break;
    }
    return out;
}

std::vector<float> SafeTensors::floats(const std::string& name, const std::vector<int64_t>& expected_shape) const {
    const TensorInfo& t = info(name);
    if (t.shape != expected_shape)
        throw Error(source_ + ": tensor '" + name + "' has shape " + t.shape_string() + ", expected " +
                    shape_to_string(expected_shape));
    return floats(name);
}

void SafeTensors::read_floats(const std::string& name, float* dst, const std::vector<int64_t>& expected_shape) const {
    std::vector<float> v = floats(name, expected_shape);
    std::copy(v.begin(), v.end(), dst);
}

std::vector<int> SafeTensors::ints(const std::string& name) const {
    const TensorInfo& t = info(name);
    std::vector<int> out(size_t(t.numel()));
    const uint8_t* p = raw(name);
    const size_t n = out.size();
    switch (t.dtype) {
        case DType::I64:
            for (size_t i = 0; i < n; ++i) {
                int64_t v = load<int64_t>(p + 8 * i);
                if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
                    throw Error(source_ + ": tensor '" + name + "' holds " + std::to_string(v) +
                                ", which does not fit a 32-bit int");
                out[i] = int(v);
            }
            break;
        case DType::I32: for (size_t i = 0; i < n; ++i) out[i] = load<int32_t>(p + 4 * i); break;
        case DType::I8: for (size_t i = 0; i < n; ++i) out[i] = int8_t(p[i]); break;
        case DType::U8:
        case DType::BOOL: for (size_t i = 0; i < n; ++i) out[i] = p[i]; break;
        default:
            throw Error(source_ + ": tensor '" + name + "' has dtype " + dtype_name(t.dtype) +
                        ", expected an integer dtype (I64, I32, I8, U8, BOOL)");
    }
    return out;
}

void SafeTensorsWriter::set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

void SafeTensorsWriter::add_raw(const std::string& name, DType dtype, const std::vector<int64_t>& shape,
                                const void* data, size_t nbytes) {
    if (name == "__metadata__") throw Error("safetensors writer: '__metadata__' is reserved, not a tensor name");
    for (const Entry& e : entries_)
        if (e.name == name) throw Error("safetensors writer: tensor '" + name + "' added twice");
    int64_t numel = 1;
    for (int64_t d : shape) {
        if (d < 0) throw Error("safetensors writer: tensor '" + name + "' has a negative dimension");
        numel *= d;
    }
    if (size_t(numel) * dtype_size(dtype) != nbytes)
        throw Error("safetensors writer: tensor '" + name + "' has " + std::to_string(nbytes) + " bytes, shape " +
                    shape_to_string(shape) + " of " + dtype_name(dtype) + " needs " +
                    std::to_string(size_t(numel) * dtype_size(dtype)));
    Entry e{name, dtype, shape, std::vector<uint8_t>(nbytes)};
    if (nbytes) std::memcpy(e.bytes.data(), data, nbytes);
    entries_.push_back(std::move(e));
}

namespace {
size_t count(const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d < 0 ? 0 : d);
    return n;
}
}  // namespace

void SafeTensorsWriter::add_f32(const std::string& name, const std::vector<int64_t>& shape, const float* data) {
    add_raw(name, DType::F32, shape, data, 4 * count(shape));
}

void SafeTensorsWriter::add_f16(const std::string& name, const std::vector<int64_t>& shape, const float* data) {
    std::vector<uint16_t> half(count(shape));
    for (size_t i = 0; i < half.size(); ++i) half[i] = float_to_half(data[i]);
    add_raw(name, DType::F16, shape, half.data(), 2 * half.size());
}

void SafeTensorsWriter::add_i8(const std::string& name, const std::vector<int64_t>& shape, const int8_t* data) {
    add_raw(name, DType::I8, shape, data, count(shape));
}

void SafeTensorsWriter::add_i32(const std::string& name, const std::vector<int64_t>& shape, const int32_t* data) {
    add_raw(name, DType::I32, shape, data, 4 * count(shape));
}

std::vector<uint8_t> SafeTensorsWriter::to_bytes() const {
    // ordered_json keeps the tensors in the order added, which is also the data order.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata_.empty()) header["__metadata__"] = metadata_;
    size_t offset = 0;
    for (const Entry& e : entries_) {
        header[e.name] = {{"dtype", dtype_name(e.dtype)}, {"shape", e.shape},
                          {"data_offsets", {offset, offset + e.bytes.size()}}};
        offset += e.bytes.size();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // the data then starts 8-byte aligned
    std::vector<uint8_t> out(8 + text.size() + offset);
    uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, text.data(), text.size());
    size_t pos = 8 + text.size();
    for (const Entry& e : entries_) {
        if (!e.bytes.empty()) std::memcpy(out.data() + pos, e.bytes.data(), e.bytes.size());
        pos += e.bytes.size();
    }
    return out;
}

void SafeTensorsWriter::write_file(const std::string& path) const {
    std::vector<uint8_t> bytes = to_bytes();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot open for writing");
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw Error(path + ": write failed");
}

}  // namespace attend
