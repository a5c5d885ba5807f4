#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "io/safetensors.h"

using namespace attend;

namespace {

std::vector<uint8_t> with_header(const std::string& json, size_t data_bytes) {
    std::vector<uint8_t> out(8 + json.size() + data_bytes, 0);
    uint64_t n = json.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, json.data(), json.size());
    for (size_t i = 0; i < data_bytes; ++i) out[8 + json.size() + i] = uint8_t(i);
    return out;
}

std::string error_of(std::vector<uint8_t> bytes) {
    try {
        SafeTensors::from_bytes(std::move(bytes), "test.safetensors");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<uint8_t> sample_file() {
    SafeTensorsWriter w;
    w.set_metadata("config", "{\"d\": 4}");
    const float a[6] = {1, -2, 3.5f, 0.25f, -0.0f, 1e-3f};
    const int8_t q[3] = {-128, 0, 127};
    const int32_t ids[2] = {7, -1};
    w.add_f32("encoder.layers.0.weight", {2, 3}, a);
    w.add_f16("half", {6}, a);
    w.add_i8("q", {3}, q);
    w.add_i32("ids", {2}, ids);
    return w.to_bytes();
}

}  // namespace

TEST_CASE("safetensors: a written file reads back with the same tensors, dtypes and metadata") {
    std::vector<uint8_t> bytes = sample_file();
    uint64_t header_len;
    std::memcpy(&header_len, bytes.data(), 8);
    CHECK(header_len % 8 == 0);  // data starts 8-byte aligned
    SafeTensors st = SafeTensors::from_bytes(bytes);
    CHECK(st.metadata().at("config") == "{\"d\": 4}");
    CHECK(st.names() == std::vector<std::string>{"encoder.layers.0.weight", "half", "q", "ids"});
    CHECK(st.info("encoder.layers.0.weight").shape == std::vector<int64_t>{2, 3});
    std::vector<float> a = st.floats("encoder.layers.0.weight", {2, 3});
    CHECK(a == std::vector<float>{1, -2, 3.5f, 0.25f, -0.0f, 1e-3f});
    CHECK(st.info("half").dtype == DType::F16);
    std::vector<float> h = st.floats("half");
    for (int i = 0; i < 5; ++i) CHECK(h[i] == a[i]);  // exactly representable in half
    CHECK(std::fabs(h[5] - 1e-3f) < 1e-6f);
    CHECK(st.ints("q") == std::vector<int>{-128, 0, 127});
    CHECK(st.ints("ids") == std::vector<int>{7, -1});
    CHECK_THROWS_WITH_AS(st.floats("encoder.layers.0.weight", {3, 2}),
                         doctest::Contains("has shape [2, 3], expected [3, 2]"), Error);
    CHECK_THROWS_WITH_AS(st.info("missing"), doctest::Contains("no tensor named 'missing'"), Error);
    CHECK_THROWS_WITH_AS(st.ints("half"), doctest::Contains("expected an integer dtype"), Error);
}

TEST_CASE("safetensors: half and bfloat16 conversion") {
    CHECK(half_to_float(0x3c00) == 1.0f);
    CHECK(half_to_float(0xc000) == -2.0f);
    CHECK(half_to_float(0x7bff) == 65504.0f);
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
    CHECK(std::isinf(half_to_float(0x7c00)));
    CHECK(std::isnan(half_to_float(0x7e00)));
    CHECK(float_to_half(1.0f) == 0x3c00);
    CHECK(float_to_half(65504.0f) == 0x7bff);
    CHECK(float_to_half(70000.0f) == 0x7c00);
    CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);
    CHECK(float_to_half(std::ldexp(1.0f, -26)) == 0x0000);
    // Round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
    CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
    CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
    // Every half value survives a round trip.
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN payloads
        const uint16_t back = float_to_half(half_to_float(uint16_t(h)));
        if (back != h) {
            FAIL("half " << h << " came back as " << back);
            break;
        }
    }
    CHECK(bfloat16_to_float(0x3f80) == 1.0f);
    CHECK(bfloat16_to_float(0xc0a0) == -5.0f);
}

TEST_CASE("safetensors: BF16, F64, I64, U8 and BOOL tensors are read") {
    const uint16_t bf[2] = {0x3f80, 0xc0a0};
    const double d[1] = {0.5};
    const int64_t l[2] = {-3, 1LL << 20};
    const uint8_t u[2] = {0, 255};
    SafeTensorsWriter w;
    w.add_raw("bf", DType::BF16, {2}, bf, 4);
    w.add_raw("d", DType::F64, {1}, d, 8);
    w.add_raw("l", DType::I64, {2}, l, 16);
    w.add_raw("u", DType::U8, {2}, u, 2);
    w.add_raw("b", DType::BOOL, {2}, u, 2);
    SafeTensors st = SafeTensors::from_bytes(w.to_bytes());
    CHECK(st.floats("bf") == std::vector<float>{1.0f, -5.0f});
    CHECK(st.floats("d") == std::vector<float>{0.5f});
    CHECK(st.ints("l") == std::vector<int>{-3, 1 << 20});
    CHECK(st.ints("u") == std::vector<int>{0, 255});
    CHECK(st.floats("b") == std::vector<float>{0.0f, 255.0f});
}

TEST_CASE("safetensors: a file written by tools/safetensors_np.py (the fixtures) reads") {
    SafeTensors st = SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/rnn_loss.safetensors");
    CHECK(st.metadata().at("label_smoothing") == "0.1");
    CHECK(st.info("logits").dtype == DType::F32);
    CHECK(st.info("targets").dtype == DType::I32);
    CHECK(st.floats("logits").size() == 42);
}

TEST_CASE("safetensors: a file truncated at any point gives a clear error") {
    const std::vector<uint8_t> good = sample_file();
    uint64_t header_len;
    std::memcpy(&header_len, good.data(), 8);
    // Cut inside the length, inside the header, right after it, and inside the data.
    for (size_t cut : {size_t(0), size_t(5), size_t(8), size_t(8 + header_len / 2), size_t(8 + header_len),
                       size_t(8 + header_len + 3), good.size() - 1}) {
        CAPTURE(cut);
        std::vector<uint8_t> bytes(good.begin(), good.begin() + long(cut));
        const std::string e = error_of(bytes);
        CHECK(contains(e, "test.safetensors"));
        CHECK((contains(e, "too short") || contains(e, "header length") || contains(e, "out of range") ||
               contains(e, "data section")));
    }
    CHECK(contains(error_of(std::vector<uint8_t>(good.begin(), good.begin() + 5)), "too short"));
    CHECK(contains(error_of(std::vector<uint8_t>(good.begin(), good.begin() + 8 + long(header_len) / 2)),
                   "is larger than"));
    CHECK(contains(error_of(std::vector<uint8_t>(good.begin(), good.end() - 1)), "out of range"));
}

TEST_CASE("safetensors: malformed headers are rejected with a message naming the problem") {
    const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
    CHECK_NOTHROW(SafeTensors::from_bytes(with_header("{" + a + "}", 8)));
    // Header length larger than the file.
    {
        std::vector<uint8_t> bytes = with_header("{" + a + "}", 8);
        uint64_t n = 1000;
        std::memcpy(bytes.data(), &n, 8);
        CHECK(contains(error_of(bytes), "header length 1000 is larger than"));
    }
    CHECK(contains(error_of(with_header("{\"a\": [1, 2", 0)), "not valid JSON"));
    CHECK(contains(error_of(with_header("[1, 2]", 0)), "not a JSON object"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", 8)),
                   "unknown dtype 'Q7'"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", 8)),
                   "out of range"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)),
                   "need 12"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8)),
                   "begin after end"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                        12)),
                   "overlaps"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12)),
                   "gap in the data section"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12)),
                   "trailing bytes"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8)),
                   "not a non-negative integer"));
    CHECK(contains(error_of(with_header(R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", 8)), "no array 'shape'"));
    CHECK(contains(error_of(with_header(R"({"__metadata__":{"k":1}})", 0)), "must be a string"));
    CHECK_THROWS_WITH_AS(SafeTensors::from_file("/nonexistent/model.safetensors"),
                         doctest::Contains("/nonexistent/model.safetensors: cannot open"), Error);
}

TEST_CASE("safetensors from a file: the header is checked before the rest is read; a text file is named as one") {
    const std::string path = std::string(P_tmpdir) + "/attend_safetensors_" + std::to_string(std::rand()) + ".bin";
    auto write = [&](const std::vector<uint8_t>& bytes) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    };
    auto error_of_file = [&]() -> std::string {
        try {
            SafeTensors::from_file(path);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    const std::string a = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    write(with_header(a, 8));
    CHECK(SafeTensors::from_file(path).floats("a").size() == 2);

    // A page of HTML where a model was expected: said so, not a header length of 8e18 bytes.
    const std::string html = "<!DOCTYPE html><html><body>Not found</body></html>";
    write(std::vector<uint8_t>(html.begin(), html.end()));
    CHECK(contains(error_of_file(), "not a safetensors model file: it begins with the text '<!DOCTYP'"));

    // Shorter or longer than its header declares: refused from the header, naming both sizes.
    std::vector<uint8_t> good = with_header(a, 8);
    write(std::vector<uint8_t>(good.begin(), good.end() - 3));
    CHECK(contains(error_of_file(), "the header declares 8 bytes of tensor data but 5 follow it (a truncated file)"));
    good.push_back(0);
    write(good);
    CHECK(contains(error_of_file(), "the header declares 8 bytes of tensor data but 9 follow it (trailing bytes)"));

    // A gigabyte that is no model (a sparse file: no disk used): refused from its first bytes.
    write({});
    std::filesystem::resize_file(path, std::uintmax_t(1) << 30);
    CHECK(contains(error_of_file(), "header is not a JSON object"));

    // A header that is not JSON: a short message, not the parser's quote of the whole header.
    write(with_header("{" + std::string(12000, 'x') + "}", 0));
    const std::string message = error_of_file();
    CHECK(contains(message, "header is not valid JSON"));
    CHECK(message.size() < 500);
    std::remove(path.c_str());
}

TEST_CASE("safetensors: the writer rejects duplicates and size mismatches") {
    SafeTensorsWriter w;
    const float x[2] = {1, 2};
    w.add_f32("x", {2}, x);
    CHECK_THROWS_WITH_AS(w.add_f32("x", {2}, x), doctest::Contains("added twice"), Error);
    CHECK_THROWS_WITH_AS(w.add_raw("y", DType::F32, {3}, x, 8), doctest::Contains("needs 12"), Error);
    CHECK_THROWS_AS(w.add_f32("__metadata__", {2}, x), Error);
}
