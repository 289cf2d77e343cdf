// ONNX MaxPool / GlobalMaxPool -> pooljit::MaxPoolDesc, and TensorProto files -> dense bytes. The mapping
// rules are DESIGN.md section 3 ("Importers"); pooljit::resolve() then checks the result, so every descriptor
// handed out is one that Primitive::create accepts.
#include "onnx_import.hpp"

#include <pooljit/pooljit.hpp>

// onnx_pb.h defines ONNX_API before it includes onnx-ml.pb.h (ONNX_ML is set by the onnx_proto target).
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace pooljit::onnx_import {
namespace {

static_assert(std::endian::native == std::endian::little, "ONNX raw_data is little-endian; so is this copy");

[[noreturn]] void fail(const std::filesystem::path& file, std::string_view where, std::string_view what) {
    throw Error(file.string() + ": " + std::string(where) + ": " + std::string(what));
}

template <class Message>
Message parse_file(const std::filesystem::path& file, const char* message_name) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) fail(file, message_name, "cannot open the file");
    const std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
    Message message;
    if (!message.ParseFromString(bytes))
        fail(file, message_name, "not a valid serialized " + std::string(message_name));
    return message;
}

std::string join(const std::vector<std::int64_t>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

// ---- shapes -------------------------------------------------------------------------------------------------

// What the model says about one value. Dims the model leaves open are described for the error message.
struct KnownValue {
    std::int32_t elem_type = onnx::TensorProto::UNDEFINED;
    std::optional<std::vector<std::int64_t>> dims;  // absent: no shape, or a dimension without a value
    std::string why_dims_unknown;
};

KnownValue from_value_info(const onnx::ValueInfoProto& info) {
    KnownValue known;
    if (!info.type().has_tensor_type()) {
        known.why_dims_unknown = "it is not a tensor";
        return known;
    }
    const auto& tensor = info.type().tensor_type();
    known.elem_type = tensor.elem_type();
    if (!tensor.has_shape()) {
        known.why_dims_unknown = "the model gives no shape";
        return known;
    }
    std::vector<std::int64_t> dims;
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
        const auto& dim = tensor.shape().dim(i);
        if (!dim.has_dim_value()) {
            known.why_dims_unknown = "dimension " + std::to_string(i) + " is dynamic" +
                                     (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : std::string());
            return known;
        }
        dims.push_back(dim.dim_value());
    }
    known.dims = std::move(dims);
    return known;
}

struct GraphShapes {
    std::map<std::string, KnownValue> values;
    std::string inference_failure;  // empty when ONNX shape inference ran through
};

// Writes the overrides into the graph inputs they name, so shape inference carries them to every node.
void apply_overrides_to_inputs(onnx::GraphProto& graph, const ShapeOverrides& overrides) {
    for (auto& input : *graph.mutable_input()) {
        const auto found = overrides.find(input.name());
        if (found == overrides.end() || !input.type().has_tensor_type()) continue;
        auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        shape->clear_dim();
        for (const auto dim : found->second) shape->add_dim()->set_dim_value(dim);
    }
}

// A pool deep inside a network reads a tensor that only shape inference describes (value_info). Inference
// that fails leaves the model's own value_info; the failure is quoted if a pool's input then stays unknown.
GraphShapes graph_shapes(onnx::ModelProto& model, const ShapeOverrides& overrides) {
    GraphShapes shapes;
    apply_overrides_to_inputs(*model.mutable_graph(), overrides);
    try {
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(false, 0, /*data_prop=*/true));
    } catch (const std::exception& error) {
        shapes.inference_failure = error.what();
    }
    // Earlier sources win: a graph input states what the caller feeds, value_info and outputs what inference found.
    const auto& graph = model.graph();
    for (const auto& info : graph.input()) shapes.values.emplace(info.name(), from_value_info(info));
    for (const auto& info : graph.value_info()) shapes.values.emplace(info.name(), from_value_info(info));
    for (const auto& info : graph.output()) shapes.values.emplace(info.name(), from_value_info(info));
    for (const auto& initializer : graph.initializer()) {
        KnownValue value;
        value.elem_type = initializer.data_type();
        value.dims = std::vector<std::int64_t>(initializer.dims().begin(), initializer.dims().end());
        shapes.values.emplace(initializer.name(), std::move(value));
    }
    return shapes;
}

bool is_pool(const onnx::NodeProto& node) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    return default_domain && (node.op_type() == "MaxPool" || node.op_type() == "GlobalMaxPool");
}

// A name in the overrides that matches nothing is a typo, not a wish to be ignored.
void check_override_names(const std::filesystem::path& file, const onnx::GraphProto& graph,
                          const ShapeOverrides& overrides) {
    for (const auto& entry : overrides) {
        const std::string& name = entry.first;  // a named variable: clang 14 cannot capture a structured binding
        const bool names_graph_input = std::any_of(graph.input().begin(), graph.input().end(),
                                                   [&](const auto& input) { return input.name() == name; });
        const bool names_pool_input = std::any_of(graph.node().begin(), graph.node().end(), [&](const auto& node) {
            return is_pool(node) && node.input_size() > 0 && node.input(0) == name;
        });
        if (!names_graph_input && !names_pool_input)
            fail(file, "shape override", "'" + name + "' is neither a graph input nor the input of a pooling node");
    }
}

// ---- attributes ---------------------------------------------------------------------------------------------

// Where a node's problems are reported: "model.onnx: node 'pool1' (MaxPool)".
struct NodeContext {
    const std::filesystem::path& file;
    std::string where;

    [[noreturn]] void fail(std::string_view what) const { onnx_import::fail(file, where, what); }
};

void expect_type(const NodeContext& node, const onnx::AttributeProto& attribute,
                 onnx::AttributeProto::AttributeType expected) {
    // Models from IR version 1 leave the type unset; their payload field alone says what it is.
    if (attribute.type() != onnx::AttributeProto::UNDEFINED && attribute.type() != expected)
        node.fail("attribute " + attribute.name() + " has type " + std::to_string(attribute.type()) + ", expected " +
                  onnx::AttributeProto::AttributeType_Name(expected));
}

std::vector<std::int64_t> ints_of(const NodeContext& node, const onnx::AttributeProto& attribute) {
    expect_type(node, attribute, onnx::AttributeProto::INTS);
    return {attribute.ints().begin(), attribute.ints().end()};
}

std::int64_t int_of(const NodeContext& node, const onnx::AttributeProto& attribute) {
    expect_type(node, attribute, onnx::AttributeProto::INT);
    return attribute.i();
}

AutoPad auto_pad_of(const NodeContext& node, const onnx::AttributeProto& attribute) {
    expect_type(node, attribute, onnx::AttributeProto::STRING);
    const std::string& value = attribute.s();
    if (value == "NOTSET" || value.empty()) return AutoPad::explicit_pads;
    if (value == "VALID") return AutoPad::valid;
    if (value == "SAME_UPPER") return AutoPad::same_upper;
    if (value == "SAME_LOWER") return AutoPad::same_lower;
    node.fail("auto_pad = '" + value + "', must be NOTSET, VALID, SAME_UPPER or SAME_LOWER");
}

// ONNX pads are [x1_begin, x2_begin, ..., x1_end, x2_end].
void set_pads(const NodeContext& node, const std::vector<std::int64_t>& pads, std::size_t spatial_rank,
              MaxPoolDesc& desc) {
    if (pads.size() != 2 * spatial_rank)
        node.fail("pads = " + join(pads) + " has " + std::to_string(pads.size()) + " entries, must have " +
                  std::to_string(2 * spatial_rank) + " (begin and end per spatial axis)");
    const auto middle = pads.begin() + static_cast<std::ptrdiff_t>(spatial_rank);
    desc.pads_begin.assign(pads.begin(), middle);
    desc.pads_end.assign(middle, pads.end());
}

void map_max_pool_attributes(const NodeContext& node, const onnx::NodeProto& proto, bool has_indices,
                             MaxPoolDesc& desc) {
    const std::size_t spatial_rank = desc.src.dims.size() - 2;
    std::vector<std::int64_t> pads;
    bool has_kernel = false;
    StorageOrder order = StorageOrder::row_major;
    for (const auto& attribute : proto.attribute()) {
        const std::string& name = attribute.name();
        if (name == "kernel_shape") {
            desc.kernel = ints_of(node, attribute);
            has_kernel = true;
        } else if (name == "strides") {
            desc.strides = ints_of(node, attribute);
        } else if (name == "dilations") {
            desc.dilations = ints_of(node, attribute);
        } else if (name == "pads") {
            pads = ints_of(node, attribute);
        } else if (name == "auto_pad") {
            desc.auto_pad = auto_pad_of(node, attribute);
        } else if (name == "ceil_mode") {
            const std::int64_t ceil_mode = int_of(node, attribute);
            if (ceil_mode != 0 && ceil_mode != 1)
                node.fail("ceil_mode = " + std::to_string(ceil_mode) + ", must be 0 or 1");
            // ONNX (like PyTorch) drops windows that would start in the right padding: ceil_torch, not ceil.
            // Under auto_pad VALID the ONNX text and reference ignore ceil_mode, while ONNX shape inference
            // and ONNX Runtime apply it; DESIGN.md applies the rounding under valid, so it passes through.
            desc.rounding = ceil_mode == 1 ? Rounding::ceil_torch : Rounding::floor;
        } else if (name == "storage_order") {
            const std::int64_t storage_order = int_of(node, attribute);
            if (storage_order != 0 && storage_order != 1)
                node.fail("storage_order = " + std::to_string(storage_order) + ", must be 0 or 1");
            order = storage_order == 1 ? StorageOrder::column_major : StorageOrder::row_major;
        } else {
            node.fail("attribute " + name + " is not a MaxPool attribute pooljit knows");
        }
    }
    if (!has_kernel) node.fail("attribute kernel_shape is required");
    if (desc.auto_pad == AutoPad::explicit_pads) {
        if (!pads.empty()) set_pads(node, pads, spatial_rank, desc);
    } else if (std::any_of(pads.begin(), pads.end(), [](std::int64_t pad) { return pad != 0; })) {
        // ONNX forbids pads together with auto_pad; all-zero pads, which some exporters write, say nothing.
        node.fail("pads = " + join(pads) + " given together with auto_pad, which ONNX does not allow");
    }
    // ONNX's optional second output: flat NCHW indices into the whole input, always int64.
    if (has_indices) desc.indices = IndexSpec{DType::s64, 0, order};
}

// ---- nodes --------------------------------------------------------------------------------------------------

std::int64_t default_domain_opset(const onnx::ModelProto& model) {
    for (const auto& opset : model.opset_import())
        if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
    return 1;  // models before IR version 3 carry no opset_import: they are opset 1
}

TensorDesc input_desc(const NodeContext& node, const std::string& input, const GraphShapes& shapes,
                      const ShapeOverrides& overrides) {
    const std::string inference_note =
        shapes.inference_failure.empty() ? "" : " (ONNX shape inference failed: " + shapes.inference_failure + ")";
    const auto found = shapes.values.find(input);
    if (found == shapes.values.end() || found->second.elem_type == onnx::TensorProto::UNDEFINED)
        node.fail("the element type of input '" + input +
                  "' is unknown: it is not a graph input, value_info, graph output or initializer with a type" +
                  inference_note);
    TensorDesc desc;
    try {
        desc.dtype = dtype_from_onnx(found->second.elem_type);
    } catch (const Error& error) {
        node.fail("input '" + input + "': " + error.what());
    }
    if (const auto override = overrides.find(input); override != overrides.end()) {
        desc.dims = override->second;
    } else if (found->second.dims) {
        desc.dims = *found->second.dims;
    } else {
        node.fail("the shape of input '" + input + "' is unknown (" + found->second.why_dims_unknown +
                  "); give its dims as an override" + inference_note);
    }
    if (desc.dims.size() < 3)
        node.fail("input '" + input + "' has dims " + join(desc.dims) + ", rank " + std::to_string(desc.dims.size()) +
                  "; pooling needs N, C and at least one spatial axis");
    return desc;
}

PoolNode import_node(const std::filesystem::path& file, const onnx::NodeProto& proto, int position, std::int64_t opset,
                     const GraphShapes& shapes, const ShapeOverrides& overrides) {
    PoolNode pool;
    pool.op_type = proto.op_type();
    pool.name = proto.name().empty() ? proto.op_type() + "#" + std::to_string(position) : proto.name();
    pool.opset = opset;
    const NodeContext node{file, "node '" + pool.name + "' (" + pool.op_type + ")"};
    if (proto.input_size() < 1 || proto.input(0).empty()) node.fail("the node has no input");
    if (proto.output_size() < 1 || proto.output(0).empty()) node.fail("the node has no output");
    pool.input = proto.input(0);
    pool.outputs.push_back(proto.output(0));
    // Optional ONNX outputs may be present as empty names: only a named second output asks for indices.
    const bool has_indices = proto.output_size() >= 2 && !proto.output(1).empty();
    if (has_indices) pool.outputs.push_back(proto.output(1));

    pool.desc.src = input_desc(node, pool.input, shapes, overrides);
    pool.desc.src.layout = Layout::ncx;  // ONNX tensors are always NCHW-ordered
    if (pool.op_type == "GlobalMaxPool") {
        if (proto.attribute_size() != 0)
            node.fail("attribute " + proto.attribute(0).name() + " is not a GlobalMaxPool attribute");
        if (has_indices) node.fail("GlobalMaxPool has one output, the node names two");
        pool.desc.kernel.assign(pool.desc.src.dims.begin() + 2, pool.desc.src.dims.end());
    } else {
        map_max_pool_attributes(node, proto, has_indices, pool.desc);
    }
    try {
        (void)resolve(pool.desc);
    } catch (const Error& error) {
        node.fail(std::string(error.what()) + " (pooljit problem: " + to_string(pool.desc) + ")");
    }
    return pool;
}

// ---- tensors ------------------------------------------------------------------------------------------------

// Copies a typed repeated field into dense bytes of Element, checking that each value fits Element.
template <class Element, class Values>
std::vector<std::byte> pack(const Values& values, const std::filesystem::path& file) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(values.size()) * sizeof(Element));
    for (int i = 0; i < values.size(); ++i) {
        const auto value = values.Get(i);
        if constexpr (std::is_integral_v<Element>) {
            if (!std::in_range<Element>(value))
                fail(file, "TensorProto",
                     "element " + std::to_string(i) + " = " + std::to_string(value) +
                         " does not fit the tensor's element type");
        }
        const auto element = static_cast<Element>(value);
        std::memcpy(bytes.data() + static_cast<std::size_t>(i) * sizeof(Element), &element, sizeof(Element));
    }
    return bytes;
}

std::vector<std::byte> typed_field_bytes(const onnx::TensorProto& tensor, DType dtype,
                                         const std::filesystem::path& file) {
    switch (dtype) {
    case DType::f32: return pack<float>(tensor.float_data(), file);
    case DType::f64: return pack<double>(tensor.double_data(), file);
    // 16-bit floats travel as their bit patterns, one per int32_data entry.
    case DType::f16:
    case DType::bf16: return pack<std::uint16_t>(tensor.int32_data(), file);
    case DType::s8: return pack<std::int8_t>(tensor.int32_data(), file);
    case DType::u8: return pack<std::uint8_t>(tensor.int32_data(), file);
    case DType::s32: return pack<std::int32_t>(tensor.int32_data(), file);
    case DType::s64: return pack<std::int64_t>(tensor.int64_data(), file);
    }
    fail(file, "TensorProto", "unhandled dtype");
}

}  // namespace

DType dtype_from_onnx(std::int32_t onnx_elem_type) {
    switch (onnx_elem_type) {
    case onnx::TensorProto::FLOAT: return DType::f32;
    case onnx::TensorProto::DOUBLE: return DType::f64;
    case onnx::TensorProto::FLOAT16: return DType::f16;
    case onnx::TensorProto::BFLOAT16: return DType::bf16;
    case onnx::TensorProto::INT8: return DType::s8;
    case onnx::TensorProto::UINT8: return DType::u8;
    case onnx::TensorProto::INT32: return DType::s32;
    case onnx::TensorProto::INT64: return DType::s64;
    default: break;
    }
    const std::string name =
        onnx::TensorProto::DataType_IsValid(onnx_elem_type)
            ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_elem_type))
            : "unknown";
    throw Error("ONNX element type " + std::to_string(onnx_elem_type) + " (" + name +
                ") is not one pooljit supports (FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, UINT8, INT32, INT64)");
}

Model read_model(const std::filesystem::path& file, const ShapeOverrides& overrides) {
    auto proto = parse_file<onnx::ModelProto>(file, "ModelProto");
    check_override_names(file, proto.graph(), overrides);
    Model model;
    model.file = file;
    model.opset = default_domain_opset(proto);
    const GraphShapes shapes = graph_shapes(proto, overrides);
    for (int position = 0; position < proto.graph().node_size(); ++position) {
        const auto& node = proto.graph().node(position);
        if (is_pool(node))
            model.pools.push_back(import_node(file, node, position, model.opset, shapes, overrides));
        else
            model.others.push_back(node.op_type() + " '" + node.name() + "'");
    }
    return model;
}

Tensor read_tensor(const std::filesystem::path& file) {
    const auto proto = parse_file<onnx::TensorProto>(file, "TensorProto");
    if (proto.data_location() == onnx::TensorProto::EXTERNAL)
        fail(file, "TensorProto", "external data is not supported");
    if (proto.has_segment()) fail(file, "TensorProto", "segmented tensors are not supported");
    Tensor tensor;
    tensor.name = proto.name();
    try {
        tensor.dtype = dtype_from_onnx(proto.data_type());
    } catch (const Error& error) {
        fail(file, "TensorProto", error.what());
    }
    std::size_t count = 1;
    for (const std::int64_t dim : proto.dims()) {
        if (dim < 0) fail(file, "TensorProto", "negative dimension " + std::to_string(dim));
        count *= static_cast<std::size_t>(dim);
        tensor.dims.push_back(dim);
    }
    if (proto.has_raw_data())
        tensor.bytes.assign(reinterpret_cast<const std::byte*>(proto.raw_data().data()),
                            reinterpret_cast<const std::byte*>(proto.raw_data().data() + proto.raw_data().size()));
    else
        tensor.bytes = typed_field_bytes(proto, tensor.dtype, file);
    const std::size_t expected = count * size_of(tensor.dtype);
    if (tensor.bytes.size() != expected)
        fail(file, "TensorProto",
             "holds " + std::to_string(tensor.bytes.size()) + " bytes of data, dims " + join(tensor.dims) + " of " +
                 to_string(tensor.dtype) + " need " + std::to_string(expected));
    return tensor;
}

}  // namespace pooljit::onnx_import
