// The parameter tensors of a model file, shared by the translator's (translate/model_file.h) and the language
// model's (lm/lm_model_file.h): strict checks of a file's tensors against a declared layout, reading them (F32,
// F16, BF16, or I8 with per-row scales), and writing them in a chosen dtype.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "model/parameter_store.h"
#include "translate/translator_network.h"

namespace attend {

// A metadata entry of the file, as text or parsed JSON; a missing one is "not an Attend <kind>", naming the key.
std::string model_metadata(const SafeTensors& file, const std::string& key, const std::string& kind);
nlohmann::json model_metadata_json(const SafeTensors& file, const std::string& key, const std::string& kind);

// Each parameter of layout is in the file with its shape and a supported dtype, I8 matrices have their F32
// per-row scales, and nothing else is in the file (but tensors starting with ignored_prefix, when not empty);
// a shape mismatch names the config fields (dims) that imply it. Checked from the header alone, before allocating.
void check_model_tensors(const ParameterStore& layout, const SafeTensors& file, const std::string& ignored_prefix,
                         const std::vector<ConfigDim>& dims);

// Reads the values of tensors check_model_tensors accepted; a weight that is not finite is refused by name.
void read_model_parameters(ParameterStore& params, const SafeTensors& file);

// Adds every parameter: F32, F16 (matrices; vectors stay F32), or I8 (matrices, symmetric per row, with
// "<name>.scale" F32 [rows]).
void add_model_parameters(SafeTensorsWriter& writer, const ParameterStore& params, DType dtype);

}  // namespace attend
