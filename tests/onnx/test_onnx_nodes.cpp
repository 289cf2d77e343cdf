// ONNX conformance: every MaxPool / GlobalMaxPool node test of the ONNX backend test data (Debian package
// libonnx-testdata), run through Primitive and through the reference interpreter and compared bit for bit.
// The cases are found by listing directories, so new test data is picked up without editing this file.
#include <gtest/gtest.h>

#if POOLJIT_HAVE_ONNX

#include "onnx_import.hpp"

#include <pooljit/pooljit.hpp>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace pj = pooljit;
namespace imp = pooljit::onnx_import;

const fs::path testdata_root{POOLJIT_ONNX_TESTDATA_DIR};

// The case folders this suite covers: each pattern must match at least one directory.
struct CasePattern {
    const char* folder;
    const char* prefix;  // a directory name starting with this matches
};
constexpr CasePattern case_patterns[] = {
    {"node", "test_maxpool_"},
    {"node", "test_globalmaxpool"},
    {"pytorch-converted", "test_MaxPool"},
    {"pytorch-operator", "test_operator_maxpool"},
};

std::vector<std::string> matching_dirs(const CasePattern& pattern) {
    std::vector<std::string> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(testdata_root / pattern.folder, error)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory() && name.starts_with(pattern.prefix))
            found.push_back(std::string(pattern.folder) + "/" + name);
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::vector<std::string> all_cases() {
    std::vector<std::string> cases;
    for (const auto& pattern : case_patterns) {
        const auto found = matching_dirs(pattern);
        cases.insert(cases.end(), found.begin(), found.end());
    }
    return cases;
}

std::vector<fs::path> data_sets(const fs::path& case_dir) {
    std::vector<fs::path> sets;
    for (const auto& entry : fs::directory_iterator(case_dir))
        if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_"))
            sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    return sets;
}

std::string element_text(const std::byte* element, pj::DType dtype) {
    auto load = [element]<class T>(T value) {
        std::memcpy(&value, element, sizeof(T));
        return value;
    };
    std::ostringstream text;
    switch (dtype) {
    case pj::DType::f32: text << load(float{}); break;
    case pj::DType::f64: text << load(double{}); break;
    case pj::DType::f16:
    case pj::DType::bf16: text << "0x" << std::hex << load(std::uint16_t{}); break;
    case pj::DType::s8: text << int{load(std::int8_t{})}; break;
    case pj::DType::u8: text << int{load(std::uint8_t{})}; break;
    case pj::DType::s32: text << load(std::int32_t{}); break;
    case pj::DType::s64: text << load(std::int64_t{}); break;
    }
    return text.str();
}

// Bit-for-bit comparison; on mismatch, says how many elements differ and shows the first few.
void expect_identical(const std::vector<std::byte>& expected, std::span<const std::byte> actual, pj::DType dtype,
                      const std::string& what) {
    ASSERT_EQ(expected.size(), actual.size()) << what << ": byte sizes differ";
    const std::size_t size = pj::size_of(dtype);
    std::size_t mismatches = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < expected.size() / size; ++i) {
        if (std::memcmp(expected.data() + i * size, actual.data() + i * size, size) == 0) continue;
        if (++mismatches <= 8)
            first << "\n  element " << i << ": expected " << element_text(expected.data() + i * size, dtype) << ", got "
                  << element_text(actual.data() + i * size, dtype);
    }
    EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << expected.size() / size
                              << " elements differ; first ones:" << first.str();
}

// A destination with poisoned bytes, and a poisoned guard after the tensor that must survive execute().
class GuardedBuffer {
public:
    explicit GuardedBuffer(std::size_t size) : size_(size), bytes_(size + guard_size, poison) {}
    void* data() { return bytes_.data(); }
    std::span<const std::byte> tensor() const { return {bytes_.data(), size_}; }
    bool guard_intact() const {
        return std::all_of(bytes_.begin() + static_cast<std::ptrdiff_t>(size_), bytes_.end(),
                           [](std::byte b) { return b == poison; });
    }

private:
    static constexpr std::size_t guard_size = 64;
    static constexpr std::byte poison{0xA5};
    std::size_t size_;
    std::vector<std::byte> bytes_;
};

struct DataSet {
    imp::Tensor input;
    imp::Tensor values;
    std::optional<imp::Tensor> indices;
};

// Runs one implementation (`run(src, dst, idx)`) and compares against the data set's outputs.
template <class Run>
void check_outputs(const char* impl, const pj::MaxPoolDesc& desc, const DataSet& data, Run run) {
    SCOPED_TRACE(impl);
    GuardedBuffer values(data.values.bytes.size());
    std::optional<GuardedBuffer> indices;
    if (data.indices) indices.emplace(data.indices->bytes.size());
    run(data.input.bytes.data(), values.data(), indices ? indices->data() : nullptr);
    expect_identical(data.values.bytes, values.tensor(), desc.src.dtype, std::string(impl) + " values");
    EXPECT_TRUE(values.guard_intact()) << impl << " wrote past the end of dst";
    if (!indices) return;
    expect_identical(data.indices->bytes, indices->tensor(), pj::DType::s64, std::string(impl) + " indices");
    EXPECT_TRUE(indices->guard_intact()) << impl << " wrote past the end of indices";
}

void check_data_set(const imp::PoolNode& pool, const fs::path& set_dir) {
    SCOPED_TRACE(set_dir.string());
    DataSet data{imp::read_tensor(set_dir / "input_0.pb"), imp::read_tensor(set_dir / "output_0.pb"), std::nullopt};
    if (fs::exists(set_dir / "output_1.pb")) data.indices = imp::read_tensor(set_dir / "output_1.pb");
    ASSERT_EQ(data.input.dtype, pool.desc.src.dtype) << "input_0.pb's element type differs from the model's";
    ASSERT_EQ(data.input.dims, pool.desc.src.dims) << "input_0.pb's dims differ from the model's";
    ASSERT_EQ(data.indices.has_value(), pool.desc.indices.has_value())
        << "output_1.pb present iff the node has indices";

    const pj::Primitive primitive = pj::Primitive::create(pool.desc);
    ::testing::Test::RecordProperty("impl", primitive.impl_name());
    ASSERT_EQ(primitive.dst_desc().dtype, data.values.dtype);
    ASSERT_EQ(primitive.dst_desc().dims, data.values.dims) << "inferred output shape differs from output_0.pb";
    if (data.indices) {
        ASSERT_EQ(data.indices->dtype, pj::DType::s64);
        ASSERT_EQ(primitive.indices_desc().dims, data.indices->dims) << "indices shape differs from output_1.pb";
    }
    check_outputs(primitive.impl_name().c_str(), pool.desc, data,
                  [&](const void* src, void* dst, void* idx) { primitive.execute(src, dst, idx); });
    check_outputs("reference", pool.desc, data,
                  [&](const void* src, void* dst, void* idx) { pj::reference::execute(pool.desc, src, dst, idx); });
}

class OnnxNode : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNode, MatchesExpectedOutputsBitForBit) {
    const fs::path case_dir = testdata_root / GetParam();
    const imp::Model model = imp::read_model(case_dir / "model.onnx");
    ASSERT_EQ(model.pools.size(), 1u) << case_dir << " should hold exactly one pooling node";
    // input_0 / output_0 are the graph's, so they test the pool alone only when nothing surrounds it.
    std::string others;
    for (const auto& other : model.others) others += " " + other;
    ASSERT_TRUE(model.others.empty()) << case_dir << ": the model has other nodes besides the pool:" << others
                                      << "; its expected outputs are not the pool's, extend this test to run them";
    const imp::PoolNode& pool = model.pools.front();
    SCOPED_TRACE(pool.op_type + " opset " + std::to_string(pool.opset) + ": " + pj::to_string(pool.desc));
    const auto sets = data_sets(case_dir);
    ASSERT_FALSE(sets.empty()) << case_dir << " has no test_data_set_*";
    for (const auto& set_dir : sets) check_data_set(pool, set_dir);
}

INSTANTIATE_TEST_SUITE_P(Testdata, OnnxNode, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<std::string>& case_info) {
                             std::string name = case_info.param;
                             std::replace_if(
                                 name.begin(), name.end(),
                                 [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                             return name;
                         });
// Without the package the suite has no cases; TestdataFolders.EachPatternHasCases says why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNode);

TEST(TestdataFolders, EachPatternHasCases) {
    if (!fs::is_directory(testdata_root))
        GTEST_SKIP() << "ONNX test data not found at " << testdata_root
                     << ": the Debian package libonnx-testdata is not installed (or set POOLJIT_ONNX_TESTDATA_DIR)";
    for (const auto& pattern : case_patterns)
        EXPECT_FALSE(matching_dirs(pattern).empty())
            << "no directory " << pattern.folder << "/" << pattern.prefix << "* under " << testdata_root;
}

// ---- the importer on models the test data lacks: built here with the ONNX protobuf classes ----------------

onnx::ModelProto single_node_model(const std::string& op_type, const std::vector<std::int64_t>& dims,
                                   onnx::TensorProto::DataType elem_type = onnx::TensorProto::FLOAT,
                                   const std::string& dynamic_dim_name = "") {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    auto* graph = model.mutable_graph();
    auto* node = graph->add_node();
    node->set_op_type(op_type);
    node->set_name("pool");
    node->add_input("x");
    node->add_output("y");
    auto* tensor = graph->add_input()->mutable_type()->mutable_tensor_type();
    graph->mutable_input(0)->set_name("x");
    tensor->set_elem_type(elem_type);
    for (const auto dim : dims) tensor->mutable_shape()->add_dim()->set_dim_value(dim);
    if (!dynamic_dim_name.empty()) tensor->mutable_shape()->mutable_dim(0)->set_dim_param(dynamic_dim_name);
    return model;
}

void add_ints(onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& values) {
    auto* attribute = node.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::INTS);
    for (const auto value : values) attribute->add_ints(value);
}

void add_string(onnx::NodeProto& node, const std::string& name, const std::string& value) {
    auto* attribute = node.add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::STRING);
    attribute->set_s(value);
}

template <class Message>
fs::path write_temp(const Message& message, const std::string& file_name) {
    const fs::path path = fs::path(::testing::TempDir()) / file_name;
    std::ofstream stream(path, std::ios::binary);
    message.SerializeToOstream(&stream);
    return path;
}

TEST(Importer, DynamicDimensionNeedsAnOverride) {
    const auto path = write_temp(single_node_model("GlobalMaxPool", {1, 8, 5, 7}, onnx::TensorProto::FLOAT16, "batch"),
                                 "pooljit_dynamic.onnx");
    try {
        (void)imp::read_model(path);
        FAIL() << "a dynamic batch without an override must throw";
    } catch (const pj::Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(path.string()), std::string::npos) << message;
        EXPECT_NE(message.find("node 'pool'"), std::string::npos) << message;
        EXPECT_NE(message.find("'batch'"), std::string::npos) << message;
    }
    const auto model = imp::read_model(path, {{"x", {2, 8, 5, 7}}});
    ASSERT_EQ(model.pools.size(), 1u);
    EXPECT_EQ(model.pools[0].desc.src, (pj::TensorDesc{pj::DType::f16, pj::Layout::ncx, {2, 8, 5, 7}}));
    EXPECT_EQ(model.pools[0].desc.kernel, (std::vector<std::int64_t>{5, 7}));
    EXPECT_FALSE(model.pools[0].desc.indices);
}

// A pool inside a network: its input is known only through shape inference from the overridden graph input.
TEST(Importer, InfersShapesBetweenNodes) {
    auto model = single_node_model("MaxPool", {1, 3, 8, 8}, onnx::TensorProto::FLOAT, "batch");
    auto* graph = model.mutable_graph();
    add_ints(*graph->mutable_node(0), "kernel_shape", {2, 2});
    graph->mutable_node(0)->set_input(0, "relu_out");
    auto* relu = graph->add_node();
    relu->set_op_type("Relu");
    relu->set_name("relu");
    relu->add_input("x");
    relu->add_output("relu_out");
    graph->mutable_node()->SwapElements(0, 1);  // Relu first: nodes are topologically sorted
    const auto path = write_temp(model, "pooljit_relu_pool.onnx");

    const auto imported = imp::read_model(path, {{"x", {2, 3, 8, 8}}});
    ASSERT_EQ(imported.pools.size(), 1u);
    EXPECT_EQ(imported.pools[0].desc.src.dims, (std::vector<std::int64_t>{2, 3, 8, 8}));
    EXPECT_EQ(imported.pools[0].input, "relu_out");
    EXPECT_EQ(imported.others, (std::vector<std::string>{"Relu 'relu'"}));
    EXPECT_THROW(imp::read_model(path), pj::Error);  // the batch stays dynamic
    EXPECT_THROW(imp::read_model(path, {{"x", {2, 3, 8, 8}}, {"X", {2, 3, 8, 8}}}), pj::Error);  // a typo
}

TEST(Importer, MapsMaxPoolAttributes) {
    auto model = single_node_model("MaxPool", {1, 3, 10, 12});
    auto& node = *model.mutable_graph()->mutable_node(0);
    node.add_output("argmax");
    add_ints(node, "kernel_shape", {3, 2});
    add_ints(node, "strides", {2, 3});
    add_ints(node, "pads", {1, 0, 2, 1});
    add_ints(node, "dilations", {1, 2});
    auto* ceil_mode = node.add_attribute();
    ceil_mode->set_name("ceil_mode");
    ceil_mode->set_i(1);  // type left unset, as IR version 1 models do
    const auto pool = imp::read_model(write_temp(model, "pooljit_attributes.onnx")).pools.at(0);
    EXPECT_EQ(pool.opset, 13);
    EXPECT_EQ(pool.desc.pads_begin, (std::vector<std::int64_t>{1, 0}));
    EXPECT_EQ(pool.desc.pads_end, (std::vector<std::int64_t>{2, 1}));
    EXPECT_EQ(pool.desc.dilations, (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(pool.desc.rounding, pj::Rounding::ceil_torch);
    EXPECT_EQ(pool.desc.indices, (pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major}));
    EXPECT_EQ(pool.outputs, (std::vector<std::string>{"y", "argmax"}));
}

// ONNX 1.16's test_maxpool_2d_ceil_output_size_reduce_by_one, which libonnx-testdata 1.12 predates: plain
// ceil would give a 2x2 output whose second window starts past the input; ONNX's ceil_mode drops it.
TEST(Importer, CeilModeDropsWindowsStartingPastTheInput) {
    auto model = single_node_model("MaxPool", {1, 1, 2, 2});
    auto& node = *model.mutable_graph()->mutable_node(0);
    add_ints(node, "kernel_shape", {1, 1});
    add_ints(node, "strides", {2, 2});
    auto* ceil_mode = node.add_attribute();
    ceil_mode->set_name("ceil_mode");
    ceil_mode->set_type(onnx::AttributeProto::INT);
    ceil_mode->set_i(1);
    const auto pool = imp::read_model(write_temp(model, "pooljit_ceil_reduce_by_one.onnx")).pools.at(0);
    const pj::Primitive primitive = pj::Primitive::create(pool.desc);
    ASSERT_EQ(primitive.dst_desc().dims, (std::vector<std::int64_t>{1, 1, 1, 1}));
    const float input[] = {1.0f, 2.0f, 3.0f, 4.0f};
    float output = 0.0f;
    primitive.execute(input, &output);
    EXPECT_EQ(output, 1.0f);
}

// a kernel that reaches past the input under ceil_mode=1 (ONNX gives ceil((3 - 4) / 2 + 1) = 1
// output, as PyTorch and OpenVINO do). The importer accepts the model, explicit pads or auto_pad VALID, and the
// primitive gives ONNX's Y = [3], Indices = [1].
TEST(Importer, CeilModeKernelPastTheInput) {
    for (const char* auto_pad : {"", "NOTSET", "VALID"}) {
        SCOPED_TRACE(std::string("auto_pad '") + auto_pad + "'");
        auto model = single_node_model("MaxPool", {1, 1, 3});
        auto& node = *model.mutable_graph()->mutable_node(0);
        node.add_output("indices");
        add_ints(node, "kernel_shape", {4});
        add_ints(node, "strides", {2});
        if (*auto_pad != '\0') add_string(node, "auto_pad", auto_pad);
        auto* ceil_mode = node.add_attribute();
        ceil_mode->set_name("ceil_mode");
        ceil_mode->set_type(onnx::AttributeProto::INT);
        ceil_mode->set_i(1);
        const auto pool = imp::read_model(write_temp(model, "pooljit_ceil_kernel_past_input.onnx")).pools.at(0);
        EXPECT_EQ(pool.desc.rounding, pj::Rounding::ceil_torch);
        const pj::Primitive primitive = pj::Primitive::create(pool.desc);
        ASSERT_EQ(primitive.dst_desc().dims, (std::vector<std::int64_t>{1, 1, 1}));
        const float input[] = {1.0f, 3.0f, 2.0f};
        float output = 0.0f;
        std::int64_t index = -2;
        primitive.execute(input, &output, &index);
        EXPECT_EQ(output, 3.0f);
        EXPECT_EQ(index, 1);
    }
    // 2-D with pads: H 4 + 1 + 0 = 5 under a kernel of 6 at stride 2, W 3 + 0 + 1 = 4 under 5 at stride 3.
    auto model = single_node_model("MaxPool", {1, 2, 4, 3});
    auto& node = *model.mutable_graph()->mutable_node(0);
    add_ints(node, "kernel_shape", {6, 5});
    add_ints(node, "strides", {2, 3});
    add_ints(node, "pads", {1, 0, 0, 1});
    auto* ceil_mode = node.add_attribute();
    ceil_mode->set_name("ceil_mode");
    ceil_mode->set_type(onnx::AttributeProto::INT);
    ceil_mode->set_i(1);
    const auto pool = imp::read_model(write_temp(model, "pooljit_ceil_kernel_past_input_2d.onnx")).pools.at(0);
    EXPECT_EQ(pj::Primitive::create(pool.desc).dst_desc().dims, (std::vector<std::int64_t>{1, 2, 1, 1}));
    // A kernel of 7 along W spans the padded input plus the stride: refused, naming the node.
    node.mutable_attribute(0)->set_ints(1, 7);
    try {
        (void)imp::read_model(write_temp(model, "pooljit_ceil_kernel_too_wide.onnx"));
        FAIL() << "a kernel reaching the stride past the padded input must be refused";
    } catch (const pj::Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("node 'pool'"), std::string::npos) << message;
        EXPECT_NE(message.find("kernel[1] = 7"), std::string::npos) << message;
        EXPECT_NE(message.find("under ceil_torch rounding"), std::string::npos) << message;
    }
}

TEST(Importer, RejectsPadsWithAutoPadAndUnknownAttributes) {
    auto model = single_node_model("MaxPool", {1, 3, 10, 12});
    auto& node = *model.mutable_graph()->mutable_node(0);
    add_ints(node, "kernel_shape", {3, 3});
    add_string(node, "auto_pad", "SAME_LOWER");
    EXPECT_EQ(imp::read_model(write_temp(model, "pooljit_same.onnx")).pools.at(0).desc.auto_pad,
              pj::AutoPad::same_lower);
    add_ints(node, "pads", {1, 1, 1, 1});
    EXPECT_THROW(imp::read_model(write_temp(model, "pooljit_pads_and_auto_pad.onnx")), pj::Error);
    node.mutable_attribute()->RemoveLast();
    add_ints(node, "kernel", {3, 3});
    EXPECT_THROW(imp::read_model(write_temp(model, "pooljit_unknown_attribute.onnx")), pj::Error);
}

TEST(Importer, RejectsMissingFile) {
    EXPECT_THROW(imp::read_model("/nonexistent/model.onnx"), pj::Error);
    EXPECT_THROW(imp::read_tensor("/nonexistent/input_0.pb"), pj::Error);
}

TEST(Importer, ReadsTypedTensorFields) {
    onnx::TensorProto halves;
    halves.set_data_type(onnx::TensorProto::FLOAT16);
    halves.add_dims(2);
    halves.add_int32_data(0x3C00);  // 1.0
    halves.add_int32_data(0xFC00);  // -inf
    const auto half_tensor = imp::read_tensor(write_temp(halves, "pooljit_f16.pb"));
    EXPECT_EQ(half_tensor.dtype, pj::DType::f16);
    const std::uint16_t half_bits[] = {0x3C00, 0xFC00};
    ASSERT_EQ(half_tensor.bytes.size(), sizeof half_bits);
    EXPECT_EQ(std::memcmp(half_tensor.bytes.data(), half_bits, sizeof half_bits), 0);

    onnx::TensorProto int8s;
    int8s.set_data_type(onnx::TensorProto::INT8);
    int8s.add_dims(1);
    int8s.add_int32_data(-128);
    EXPECT_EQ(imp::read_tensor(write_temp(int8s, "pooljit_s8.pb")).bytes, (std::vector<std::byte>{std::byte{0x80}}));
    int8s.set_int32_data(0, 200);  // out of range for int8
    EXPECT_THROW(imp::read_tensor(write_temp(int8s, "pooljit_s8_bad.pb")), pj::Error);

    onnx::TensorProto longs;
    longs.set_data_type(onnx::TensorProto::INT64);
    longs.add_dims(1);
    longs.add_dims(2);
    longs.add_int64_data(-1);
    longs.add_int64_data(1LL << 40);
    const auto long_tensor = imp::read_tensor(write_temp(longs, "pooljit_s64.pb"));
    const std::int64_t long_values[] = {-1, 1LL << 40};
    EXPECT_EQ(long_tensor.dims, (std::vector<std::int64_t>{1, 2}));
    ASSERT_EQ(long_tensor.bytes.size(), sizeof long_values);
    EXPECT_EQ(std::memcmp(long_tensor.bytes.data(), long_values, sizeof long_values), 0);

    longs.add_int64_data(3);  // three values for two elements
    EXPECT_THROW(imp::read_tensor(write_temp(longs, "pooljit_s64_bad.pb")), pj::Error);

    onnx::TensorProto strings;
    strings.set_data_type(onnx::TensorProto::STRING);
    EXPECT_THROW(imp::read_tensor(write_temp(strings, "pooljit_string.pb")), pj::Error);
}

}  // namespace

#else  // !POOLJIT_HAVE_ONNX

TEST(OnnxNodes, NeedsOnnx) {
    GTEST_SKIP() << "pooljit was built without ONNX support (Debian packages libonnx-dev and libprotobuf-dev were not "
                    "found), so the ONNX node tests cannot read models";
}

#endif
