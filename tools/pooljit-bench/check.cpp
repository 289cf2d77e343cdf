#include "check.hpp"

#include <pooljit/pooljit.hpp>

#include <casegen/casegen.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <variant>

namespace pj = pooljit;

namespace pooljit_bench {
namespace {

// An output buffer followed by guard bytes that execute() must leave alone.
struct GuardedBuffer {
    static constexpr std::size_t guard_bytes = 64;
    static constexpr unsigned char fill = 0xA5;
    static constexpr unsigned char guard = 0x5A;

    explicit GuardedBuffer(std::size_t tensor_bytes) : size(tensor_bytes), bytes(tensor_bytes + guard_bytes, fill) {
        std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(), guard);
    }
    void* data() { return bytes.data(); }
    bool guard_intact() const {
        return std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(),
                           [](unsigned char b) { return b == guard; });
    }

    std::size_t size;
    std::vector<unsigned char> bytes;
};

// Empty when equal; otherwise where the first difference is and how many elements differ.
std::string compare(const char* what, const GuardedBuffer& got, const GuardedBuffer& want, std::size_t element_size) {
    if (!got.guard_intact()) return fmt::format("{}: bytes past the end of the tensor were written", what);
    const auto end = got.bytes.begin() + static_cast<std::ptrdiff_t>(got.size);
    if (std::equal(got.bytes.begin(), end, want.bytes.begin())) return {};
    std::size_t first = got.size, differing = 0;
    for (std::size_t e = 0; e * element_size < got.size; ++e) {
        const auto offset = static_cast<std::ptrdiff_t>(e * element_size);
        if (!std::equal(got.bytes.begin() + offset, got.bytes.begin() + offset + static_cast<std::ptrdiff_t>(element_size),
                        want.bytes.begin() + offset)) {
            first = std::min(first, e);
            ++differing;
        }
    }
    if (differing == 0) return {};
    std::string got_hex, want_hex;
    for (std::size_t b = element_size; b-- > 0;) {
        got_hex += fmt::format("{:02x}", got.bytes[first * element_size + b]);
        want_hex += fmt::format("{:02x}", want.bytes[first * element_size + b]);
    }
    return fmt::format("{}: {} of {} elements differ; first at element {} (memory order): got 0x{}, reference 0x{}",
                       what, differing, got.size / element_size, first, got_hex, want_hex);
}

}  // namespace

std::vector<std::string> check_against_reference(const Case& c, const pj::Primitive& primitive,
                                                 const std::vector<std::uint8_t>& src) {
    const std::size_t dst_bytes = pj::casegen::byte_size(primitive.dst_desc());
    const std::size_t idx_bytes = primitive.has_indices() ? pj::casegen::byte_size(primitive.indices_desc()) : 0;
    GuardedBuffer dst(dst_bytes), idx(idx_bytes), ref_dst(dst_bytes), ref_idx(idx_bytes);
    primitive.execute(src.data(), dst.data(), primitive.has_indices() ? idx.data() : nullptr);
    std::visit([&](const auto& d) {
        pj::reference::execute(d, src.data(), ref_dst.data(), primitive.has_indices() ? ref_idx.data() : nullptr);
    }, c.desc);

    std::vector<std::string> differences;
    std::string diff = compare("dst", dst, ref_dst, pj::size_of(primitive.dst_desc().dtype));
    if (!diff.empty()) differences.push_back(std::move(diff));
    if (primitive.has_indices()) {
        diff = compare("indices", idx, ref_idx, pj::size_of(primitive.indices_desc().dtype));
        if (!diff.empty()) differences.push_back(std::move(diff));
    }
    return differences;
}

}  // namespace pooljit_bench
