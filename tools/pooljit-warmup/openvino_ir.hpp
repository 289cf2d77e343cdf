// Reads the pooling layers of an OpenVINO IR (.xml, with its .bin next to it when there is one) into pooljit
// descriptors. Only openvino_ir.cpp sees pugixml.
//
//   auto ir = pooljit::openvino_ir::read_ir("model.xml");
//   for (const auto& layer : ir.pools) pooljit::create(layer.desc);
#pragma once

#include <pooljit/pooljit.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace pooljit::openvino_ir {

// One MaxPool (opset1 / opset8 / opset14) or AdaptiveMaxPool (opset8) layer.
struct PoolLayer {
    std::string name;     // the layer's name attribute, or "id <id>" when it has none
    std::string type;     // "MaxPool" or "AdaptiveMaxPool"
    std::string version;  // the layer's version attribute, e.g. "opset8" (may be empty)
    AnyPoolDesc desc;     // validated: resolve() accepts it, and its output dims are the IR's output port dims
};

struct Ir {
    std::filesystem::path file;
    std::vector<PoolLayer> pools;     // in document order
    std::vector<std::string> others;  // every other layer's type, except Parameter, Const and Result
};

// The mapping (DESIGN.md section 3, "Importers"):
// - src dims: the layer's first input port; dtype: that port's precision, else the producing port's
//   precision or the producing Parameter's element_type (via <edges>), else f32; layout ncx.
// - MaxPool: kernel, strides, pads_begin, pads_end, dilations (absent: all 1), auto_pad (explicit / notset /
//   valid / same_upper / same_lower), rounding_type (floor / ceil / ceil_torch). A layer that declares a second
//   output port gets indices: index_element_type (i32 / i64, default i64) and axis (default 0).
// - AdaptiveMaxPool: the output size is the Const that feeds input port 1, read from the .bin; when the .bin
//   or the Const cannot be read, the spatial dims of output port 0 (which every IR carries). A second output
//   port asks for indices of index_element_type (also accepted under the name output_type).
// Throws pooljit::Error naming the file (and the layer) for an unreadable file, malformed XML, a document
// that is not an IR, a missing or malformed attribute or dim, a dynamic dim, a descriptor pooljit rejects,
// or output port dims that differ from the dims pooljit infers.
Ir read_ir(const std::filesystem::path& xml_file);

}  // namespace pooljit::openvino_ir
