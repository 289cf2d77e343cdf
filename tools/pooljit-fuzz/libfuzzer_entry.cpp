// libFuzzer entry point: bytes -> the problem-string parser -> (valid and small) create, execute and compare
// with the reference, bit for bit. Every failure aborts, which libFuzzer reports with the input that caused it:
// - parse_problem, to_string or create throwing anything but pooljit::Error;
// - a line that parses but whose printed form does not parse back to the same problem string;
// - a configuration that resolve() rejects but create() accepts;
// - a difference in values or indices, or a write past the outputs.
// The ISA is whatever POOLJIT_MAX_ISA says (unset: the best the CPU has).
//
// Built only with clang (-fsanitize=fuzzer); see tools/pooljit-fuzz/CMakeLists.txt and the README.
#include "casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

// Larger tensors are skipped: the reference is scalar and a case should take milliseconds.
constexpr std::size_t max_tensor_bytes = std::size_t{1} << 20;

[[noreturn]] void finding(const std::string& line, const std::string& what) {
    std::fprintf(stderr, "pooljit libFuzzer finding: %s\n  input: %s\n", what.c_str(), line.c_str());
    std::abort();
}

std::uint64_t fnv1a(std::string_view bytes) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string line(reinterpret_cast<const char*>(data), size);
    pj::AnyPoolDesc desc;
    try {
        desc = pj::parse_problem(line);
    } catch (const pj::Error&) {
        return 0;  // refused, as it should be; anything else escapes and is reported
    }

    // Printing is stable: the printed line parses to a problem that prints the same.
    const std::string printed = pj::to_string(desc);
    if (pj::to_string(pj::parse_problem(printed)) != printed)
        finding(line, "to_string / parse_problem round trip differs: " + printed);

    pj::Problem problem;
    try {
        problem = std::visit([](const auto& d) { return pj::resolve(d); }, desc);
    } catch (const pj::Error&) {
        try {
            (void)pj::create(desc);
        } catch (const pj::Error&) {
            return 0;
        }
        finding(line, "resolve() rejects the configuration but create() accepts it");
    }

    const std::size_t src_bytes = pj::casegen::byte_size(problem.src_desc());
    const std::size_t dst_bytes = pj::casegen::byte_size(problem.dst_desc());
    const std::size_t idx_bytes = problem.has_indices ? pj::casegen::byte_size(problem.indices_desc()) : 0;
    if (src_bytes > max_tensor_bytes || dst_bytes > max_tensor_bytes || idx_bytes > max_tensor_bytes) return 0;

    const pj::Primitive p = pj::create(desc);
    const std::vector<std::uint8_t> src = pj::casegen::differential_data(p.src_desc(), fnv1a(line));
    constexpr std::size_t guard = 64;
    std::vector<std::uint8_t> dst(dst_bytes + guard, 0xA5), idx(idx_bytes + guard, 0xA5);
    std::vector<std::uint8_t> ref_dst(dst_bytes, 0x5A), ref_idx(idx_bytes, 0x5A);
    p.execute(src.data(), dst.data(), p.has_indices() ? idx.data() : nullptr);
    std::visit(
        [&](const auto& d) {
            pj::reference::execute(d, src.data(), ref_dst.data(), p.has_indices() ? ref_idx.data() : nullptr);
        },
        desc);
    if (const auto d = pj::casegen::first_difference(p.dst_desc(), dst.data(), ref_dst.data()))
        finding(line, "values differ (impl " + p.impl_name() + ") at element " + std::to_string(d->element) + ": got " +
                          d->got + ", want " + d->want);
    if (p.has_indices())
        if (const auto d = pj::casegen::first_difference(p.indices_desc(), idx.data(), ref_idx.data()))
            finding(line, "indices differ (impl " + p.impl_name() + ") at element " + std::to_string(d->element) +
                              ": got " + d->got + ", want " + d->want);
    const auto untouched = [](const std::vector<std::uint8_t>& b, std::size_t n) {
        for (std::size_t i = n; i < b.size(); ++i)
            if (b[i] != 0xA5) return false;
        return true;
    };
    if (!untouched(dst, dst_bytes) || !untouched(idx, idx_bytes))
        finding(line, "bytes past the end of an output were written");
    return 0;
}
