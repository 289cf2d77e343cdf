// Reads ONNX models and tensors into pooljit descriptors. Only this library's .cpp sees protobuf: users get
// plain pooljit types, so the warmup tool and the tests need no ONNX headers.
//
//   auto model = pooljit::onnx_import::read_model("resnet50.onnx", {{"data", {1, 3, 224, 224}}});
//   for (const auto& pool : model.pools) pooljit::Primitive::create(pool.desc);
#pragma once

#include <pooljit/types.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pooljit::onnx_import {

// One MaxPool or GlobalMaxPool node of the model's main graph, mapped by DESIGN.md section 3 ("Importers").
struct PoolNode {
    std::string name;     // the node's name, or "<op_type>#<position in the graph>" when it has none
    std::string op_type;  // "MaxPool" or "GlobalMaxPool"
    std::int64_t opset = 0;
    MaxPoolDesc desc;  // validated: pooljit::resolve(desc) succeeds
    std::string input;
    std::vector<std::string> outputs;  // values, then indices when the node has a second output
};

struct Model {
    std::filesystem::path file;
    std::int64_t opset = 0;           // of the default ("" / "ai.onnx") domain
    std::vector<PoolNode> pools;      // in graph order
    std::vector<std::string> others;  // every other node of the main graph, as "op_type 'name'"
};

// Tensor name -> dims: a graph input (e.g. to fix a dynamic batch) or a pool's input. Each name must be one.
using ShapeOverrides = std::map<std::string, std::vector<std::int64_t>>;

// The overrides are written into the graph inputs, then ONNX shape inference fills in the tensors between
// nodes. A pool's input shape comes from the overrides, then graph inputs, value_info, graph outputs and
// initializers. Throws pooljit::Error naming the file and the node for an unreadable model, a pool input
// whose shape or element type stays unknown (a dynamic dimension without an override), an unsupported
// attribute, a descriptor that pooljit rejects, or an override naming no graph input and no pool input.
Model read_model(const std::filesystem::path& file, const ShapeOverrides& overrides = {});

// The contents of a serialized TensorProto (the .pb files of the ONNX test data), dense, little-endian.
struct Tensor {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::int64_t> dims;
    std::vector<std::byte> bytes;  // product(dims) * size_of(dtype) bytes
};

// Accepts raw_data and the typed fields (float_data, double_data, int32_data, int64_data). Throws
// pooljit::Error naming the file for an element type pooljit lacks, external data or a size mismatch.
Tensor read_tensor(const std::filesystem::path& file);

// ONNX TensorProto.DataType value -> pooljit dtype; throws Error for the types pooljit does not pool.
DType dtype_from_onnx(std::int32_t onnx_elem_type);

}  // namespace pooljit::onnx_import
