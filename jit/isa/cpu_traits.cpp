#include "jit/isa/cpu_traits.hpp"

#include "jit/isa/code_pages.hpp"
#include "jit/isa/isa.hpp"

#include <pooljit/types.hpp>

#include <xbyak/xbyak.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>

namespace pooljit::jit {
namespace {

// rdi iterations of 8 independent vaddps chains on zmm (or ymm) registers 0-7, each adding register 8.
class AddThroughputProbe : public Xbyak::CodeGenerator {
public:
    explicit AddThroughputProbe(bool zmm) : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()) {
        for (int r = 0; r < 9; ++r) vxorps(Xbyak::Xmm(r), Xbyak::Xmm(r), Xbyak::Xmm(r));
        Xbyak::Label loop;
        L(loop);
        for (int r = 0; r < 8; ++r) {
            if (zmm) vaddps(Xbyak::Zmm(r), Xbyak::Zmm(r), Xbyak::Zmm(8));
            else vaddps(Xbyak::Ymm(r), Xbyak::Ymm(r), Xbyak::Ymm(8));
        }
        dec(rdi);
        jnz(loop);
        vzeroupper();
        ret();
        ready();
    }
    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }
};

// Seconds for `iterations` of the probe, the lowest of a few runs (the first warms the core's clocks).
double probe_seconds(bool zmm, long iterations) {
    const AddThroughputProbe probe(zmm);
    const ExecutableCode code{probe.code()};
    const auto run = code.function<void (*)(long)>(0);
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run(iterations);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

CpuTraits measure() {
    CpuTraits t;
    if (const char* forced = std::getenv("POOLJIT_SPLIT_512")) {
        const std::string_view value(forced);
        if (value != "0" && value != "1") throw Error("POOLJIT_SPLIT_512 = " + std::string(value) + ", must be 0 or 1");
        t.splits_512_bit_ops = value == "1";
        return t;
    }
    if (!cpu_runs(Isa::avx512)) return t;
    // 8 adds an iteration: 20,000 iterations are 160,000 adds, 40-80 us a run at 2-4 GHz.
    constexpr long iterations = 20000;
    const double ymm = probe_seconds(false, iterations), zmm = probe_seconds(true, iterations);
    // Twice the bytes an add: a core with full 512-bit units takes about as long (ratio near 1), one that
    // splits them about twice as long. The threshold sits between.
    t.zmm_over_ymm = zmm / ymm;
    t.splits_512_bit_ops = zmm > 1.5 * ymm;
    return t;
}

}  // namespace

CpuTraits cpu_traits() {
    static const CpuTraits measured = measure();
    CpuTraits traits = measured;
    traits.byte_permutes = cpu_features().avx512_vbmi;
    return traits;
}

}  // namespace pooljit::jit
