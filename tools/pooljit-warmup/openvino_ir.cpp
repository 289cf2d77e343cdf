// OpenVINO IR (.xml + .bin) -> pooljit descriptors, for pooljit-warmup. pugixml parses; this file only maps
// layers and attributes, and checks each descriptor against the output port dims the IR records.
#include "openvino_ir.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

namespace pooljit::openvino_ir {
namespace {

std::string join(const std::vector<std::int64_t>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "x" : "") + std::to_string(values[i]);
    return text.empty() ? "(none)" : text;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
    text = trim(text);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// Where a layer's problems are reported: "net.xml: layer 'pool1' (MaxPool, id 3)".
class LayerContext {
public:
    LayerContext(const std::filesystem::path& file, pugi::xml_node layer) : file_(file), layer_(layer) {
        where_ = "layer '" + name() + "' (" + std::string(layer.attribute("type").value()) + ", id " +
                 std::string(layer.attribute("id").value()) + ")";
    }
    std::string name() const {
        const std::string n = layer_.attribute("name").value();
        return n.empty() ? "id " + std::string(layer_.attribute("id").value()) : n;
    }
    [[noreturn]] void fail(const std::string& what) const { throw Error(file_.string() + ": " + where_ + ": " + what); }

    // An int list attribute of <data>, e.g. kernel="3,3". Absent: nullopt.
    std::optional<std::vector<std::int64_t>> ints(const char* attribute) const {
        const pugi::xml_attribute a = layer_.child("data").attribute(attribute);
        if (!a) return std::nullopt;
        std::vector<std::int64_t> values;
        const std::string_view text = a.value();
        if (trim(text).empty()) return values;
        std::size_t begin = 0;
        for (;;) {
            const std::size_t comma = text.find(',', begin);
            const std::string_view item =
                text.substr(begin, comma == std::string_view::npos ? text.size() - begin : comma - begin);
            const auto value = parse_int(item);
            if (!value)
                fail(std::string("attribute ") + attribute + "=\"" + std::string(text) +
                     "\" is not a comma-separated list of integers");
            values.push_back(*value);
            if (comma == std::string_view::npos) break;
            begin = comma + 1;
        }
        return values;
    }
    std::optional<std::string> text(const char* attribute) const {
        const pugi::xml_attribute a = layer_.child("data").attribute(attribute);
        if (!a) return std::nullopt;
        return std::string(a.value());
    }

    // The dims of a <port>: every <dim> a non-negative integer.
    std::vector<std::int64_t> dims(pugi::xml_node port, const std::string& what) const {
        std::vector<std::int64_t> dims;
        for (const pugi::xml_node dim : port.children("dim")) {
            const auto value = parse_int(dim.child_value());
            if (!value || *value < 0)
                fail(what + " <dim> " + std::to_string(dims.size()) + " = '" + std::string(trim(dim.child_value())) +
                     "': pooljit needs static, non-negative dims");
            dims.push_back(*value);
        }
        return dims;
    }

    pugi::xml_node layer() const { return layer_; }

private:
    const std::filesystem::path& file_;
    pugi::xml_node layer_;
    std::string where_;
};

// The <port> children of <input> or <output>, in document order.
std::vector<pugi::xml_node> ports(pugi::xml_node layer, const char* direction) {
    std::vector<pugi::xml_node> out;
    for (const pugi::xml_node port : layer.child(direction).children("port")) out.push_back(port);
    return out;
}

std::optional<DType> dtype_of_precision(std::string_view precision) {
    static const std::map<std::string, DType> names = {
        {"fp32", DType::f32}, {"f32", DType::f32}, {"fp64", DType::f64},  {"f64", DType::f64},
        {"fp16", DType::f16}, {"f16", DType::f16}, {"bf16", DType::bf16}, {"i8", DType::s8},
        {"u8", DType::u8},    {"i32", DType::s32}, {"i64", DType::s64}};
    const auto found = names.find(lower(trim(precision)));
    if (found == names.end()) return std::nullopt;
    return found->second;
}

struct Endpoint {
    std::string layer;
    std::string port;
    friend bool operator<(const Endpoint& a, const Endpoint& b) {
        return std::tie(a.layer, a.port) < std::tie(b.layer, b.port);
    }
};

class Graph {
public:
    Graph(const std::filesystem::path& file, pugi::xml_node net) : file_(file) {
        for (const pugi::xml_node layer : net.child("layers").children("layer"))
            layers_.emplace(layer.attribute("id").value(), layer);
        for (const pugi::xml_node edge : net.child("edges").children("edge"))
            producers_.emplace(Endpoint{edge.attribute("to-layer").value(), edge.attribute("to-port").value()},
                               Endpoint{edge.attribute("from-layer").value(), edge.attribute("from-port").value()});
    }

    // The layer and output port that feed input `port` of `layer`; nullopt when no edge names one.
    std::optional<std::pair<pugi::xml_node, pugi::xml_node>> producer(pugi::xml_node layer, pugi::xml_node port) const {
        const auto edge = producers_.find(Endpoint{layer.attribute("id").value(), port.attribute("id").value()});
        if (edge == producers_.end()) return std::nullopt;
        const auto from = layers_.find(edge->second.layer);
        if (from == layers_.end()) return std::nullopt;
        for (const pugi::xml_node out : ports(from->second, "output"))
            if (edge->second.port == out.attribute("id").value()) return std::make_pair(from->second, out);
        return std::make_pair(from->second, pugi::xml_node());
    }

    // The element type of the tensor entering `port` of the layer.
    DType input_dtype(const LayerContext& layer, pugi::xml_node port) const {
        if (const pugi::xml_attribute precision = port.attribute("precision")) return checked(layer, precision.value());
        if (const auto from = producer(layer.layer(), port)) {
            if (const pugi::xml_attribute precision = from->second.attribute("precision"))
                return checked(layer, precision.value());
            if (const pugi::xml_attribute element_type = from->first.child("data").attribute("element_type"))
                return checked(layer, element_type.value());
        }
        return DType::f32;  // IRs written without precisions are f32 models
    }

    // The integers of the Const layer feeding `port`, read from the .bin; nullopt when they cannot be read.
    std::optional<std::vector<std::int64_t>> const_values(const LayerContext& layer, pugi::xml_node port) const {
        const auto from = producer(layer.layer(), port);
        if (!from || std::string_view(from->first.attribute("type").value()) != "Const") return std::nullopt;
        const pugi::xml_node data = from->first.child("data");
        const std::string element_type = lower(data.attribute("element_type").value());
        const auto offset = parse_int(data.attribute("offset").value());
        const auto size = parse_int(data.attribute("size").value());
        const std::size_t element = element_type == "i64" ? 8 : element_type == "i32" ? 4 : 0;
        if (element == 0 || !offset || !size || *offset < 0 || *size <= 0 ||
            *size % static_cast<std::int64_t>(element) != 0)
            return std::nullopt;
        std::filesystem::path bin = file_;
        bin.replace_extension(".bin");
        std::ifstream stream(bin, std::ios::binary);
        if (!stream || !stream.seekg(*offset)) return std::nullopt;
        std::vector<char> bytes(static_cast<std::size_t>(*size));
        if (!stream.read(bytes.data(), *size)) return std::nullopt;
        std::vector<std::int64_t> values;
        for (std::size_t at = 0; at < bytes.size(); at += element) {
            if (element == 8) {
                std::int64_t v;
                std::memcpy(&v, bytes.data() + at, 8);
                values.push_back(v);
            } else {
                std::int32_t v;
                std::memcpy(&v, bytes.data() + at, 4);
                values.push_back(v);
            }
        }
        return values;
    }

private:
    DType checked(const LayerContext& layer, std::string_view precision) const {
        const auto dtype = dtype_of_precision(precision);
        if (!dtype)
            layer.fail("input precision '" + std::string(precision) +
                       "' is not one pooljit pools (FP32, FP64, FP16, BF16, I8, U8, I32, I64)");
        return *dtype;
    }

    const std::filesystem::path& file_;
    std::map<std::string, pugi::xml_node> layers_;
    std::map<Endpoint, Endpoint> producers_;
};

DType index_dtype(const LayerContext& layer) {
    std::string name = layer.text("index_element_type").value_or(layer.text("output_type").value_or("i64"));
    name = lower(trim(name));
    if (name == "i64") return DType::s64;
    if (name == "i32") return DType::s32;
    layer.fail("index_element_type = '" + name + "', must be i32 or i64");
}

// The descriptor must give the output the IR says the layer has: a disagreement means the model was made
// under other rules, and a kernel compiled for it would be the wrong one.
template <typename Desc>
void check_outputs(const LayerContext& layer, const Desc& desc) {
    Problem problem;
    try {
        problem = resolve(desc);
    } catch (const Error& error) {
        layer.fail(std::string(error.what()) + " (pooljit problem: " + to_string(desc) + ")");
    }
    const std::vector<pugi::xml_node> outputs = ports(layer.layer(), "output");
    if (outputs.empty()) layer.fail("the layer has no output port");
    const std::vector<std::int64_t> declared = layer.dims(outputs[0], "output port");
    const std::vector<std::int64_t> inferred = problem.dst_desc().dims;
    if (declared != inferred)
        layer.fail("output port dims " + join(declared) + " differ from " + join(inferred) +
                   ", the dims pooljit infers for " + to_string(desc));
    if (outputs.size() >= 2) {
        const std::vector<std::int64_t> index_dims = layer.dims(outputs[1], "output port 2");
        if (index_dims != inferred)
            layer.fail("indices output port dims " + join(index_dims) + " differ from the values' " + join(inferred));
    }
}

TensorDesc source(const LayerContext& layer, const Graph& graph, const std::vector<pugi::xml_node>& inputs) {
    if (inputs.empty()) layer.fail("the layer has no input port");
    TensorDesc src;
    src.layout = Layout::ncx;  // OpenVINO dims are logical N, C, spatial
    src.dims = layer.dims(inputs[0], "input port");
    if (src.dims.size() < 3 || src.dims.size() > 5)
        layer.fail("input port dims " + join(src.dims) + " have rank " + std::to_string(src.dims.size()) +
                   ", pooling needs rank 3, 4 or 5");
    src.dtype = graph.input_dtype(layer, inputs[0]);
    return src;
}

AutoPad auto_pad_of(const LayerContext& layer) {
    const std::string value = lower(trim(layer.text("auto_pad").value_or("explicit")));
    if (value == "explicit" || value == "notset" || value == "none" || value.empty()) return AutoPad::explicit_pads;
    if (value == "valid") return AutoPad::valid;
    if (value == "same_upper") return AutoPad::same_upper;
    if (value == "same_lower") return AutoPad::same_lower;
    layer.fail("auto_pad = '" + value + "', must be explicit, valid, same_upper or same_lower");
}

Rounding rounding_of(const LayerContext& layer) {
    const std::string value = lower(trim(layer.text("rounding_type").value_or("floor")));
    if (value == "floor") return Rounding::floor;
    if (value == "ceil") return Rounding::ceil;
    if (value == "ceil_torch") return Rounding::ceil_torch;
    layer.fail("rounding_type = '" + value + "', must be floor, ceil or ceil_torch");
}

MaxPoolDesc max_pool(const LayerContext& layer, const Graph& graph) {
    MaxPoolDesc d;
    d.src = source(layer, graph, ports(layer.layer(), "input"));
    const auto kernel = layer.ints("kernel");
    if (!kernel) layer.fail("attribute kernel is required");
    d.kernel = *kernel;
    d.strides = layer.ints("strides").value_or(std::vector<std::int64_t>{});
    d.dilations = layer.ints("dilations").value_or(std::vector<std::int64_t>{});
    d.auto_pad = auto_pad_of(layer);
    if (d.auto_pad == AutoPad::explicit_pads) {
        d.pads_begin = layer.ints("pads_begin").value_or(std::vector<std::int64_t>{});
        d.pads_end = layer.ints("pads_end").value_or(std::vector<std::int64_t>{});
    }
    d.rounding = rounding_of(layer);
    if (ports(layer.layer(), "output").size() >= 2) {
        const std::string version = layer.layer().attribute("version").value();
        if (version == "opset1") layer.fail("MaxPool-1 (version opset1) has one output, the layer declares two");
        std::int64_t axis = 0;
        if (const auto text = layer.text("axis")) {
            const auto value = parse_int(*text);
            if (!value) layer.fail("axis = '" + *text + "' is not an integer");
            axis = *value;
        }
        d.indices = IndexSpec{index_dtype(layer), axis, StorageOrder::row_major};
    }
    check_outputs(layer, d);
    return d;
}

AdaptiveMaxPoolDesc adaptive_max_pool(const LayerContext& layer, const Graph& graph) {
    const std::vector<pugi::xml_node> inputs = ports(layer.layer(), "input");
    AdaptiveMaxPoolDesc a;
    a.src = source(layer, graph, inputs);
    const std::vector<pugi::xml_node> outputs = ports(layer.layer(), "output");
    if (outputs.empty()) layer.fail("the layer has no output port");
    const std::vector<std::int64_t> out_dims = layer.dims(outputs[0], "output port");
    if (out_dims.size() != a.src.dims.size())
        layer.fail("output port dims " + join(out_dims) + " and input port dims " + join(a.src.dims) +
                   " differ in rank");
    const std::vector<std::int64_t> from_port(out_dims.begin() + 2, out_dims.end());
    const auto from_const = inputs.size() >= 2 ? graph.const_values(layer, inputs[1]) : std::nullopt;
    if (from_const && *from_const != from_port)
        layer.fail("the output size Const holds " + join(*from_const) + ", the output port's spatial dims are " +
                   join(from_port));
    a.output_size = from_port;
    if (outputs.size() >= 2) a.index_dtype = index_dtype(layer);
    check_outputs(layer, a);
    return a;
}

}  // namespace

Ir read_ir(const std::filesystem::path& xml_file) {
    const auto fail = [&](const std::string& what) -> void { throw Error(xml_file.string() + ": " + what); };
    std::ifstream probe(xml_file);
    if (!probe) fail("cannot open the file");
    pugi::xml_document document;
    const pugi::xml_parse_result parsed = document.load_file(xml_file.c_str());
    if (!parsed) fail("malformed XML at byte offset " + std::to_string(parsed.offset) + ": " + parsed.description());
    const pugi::xml_node net = document.document_element();
    if (std::string_view(net.name()) != "net")
        fail("not an OpenVINO IR: the root element is <" + std::string(net.name()) + ">, expected <net>");
    if (!net.child("layers")) fail("not an OpenVINO IR: <net> has no <layers>");

    Ir ir;
    ir.file = xml_file;
    const Graph graph(xml_file, net);
    for (const pugi::xml_node layer : net.child("layers").children("layer")) {
        const std::string type = layer.attribute("type").value();
        const LayerContext context(xml_file, layer);
        if (type == "MaxPool") {
            ir.pools.push_back({context.name(), type, layer.attribute("version").value(), max_pool(context, graph)});
        } else if (type == "AdaptiveMaxPool") {
            ir.pools.push_back(
                {context.name(), type, layer.attribute("version").value(), adaptive_max_pool(context, graph)});
        } else if (type != "Parameter" && type != "Const" && type != "Result") {
            ir.others.push_back(type.empty() ? "(no type)" : type);
        }
    }
    return ir;
}

}  // namespace pooljit::openvino_ir
