// Byte bands (KernelPlan::byte_bands, AVX-512 with AVX512_VBMI): planar u8/s8 2-D max pools without indices. A
// call computes `rows` planes of one image, one after another (src and dst step by the call's row steps); each
// plane's outputs go a band (a vector of byte lanes: ByteBands) at a time:
//
//   - rows: for each of the band's registers (one or two), the maximum over the window's kernel_h rows of the
//     plane's bytes, each row's load `dilation_h` input rows after the one before. A straight-line band loads
//     under a mask that leaves out every lane whose byte lies outside the plane (the masked-off lanes keep the
//     maximum so far: a padded row adds nothing, and nothing outside the plane is read); a looped band's loads
//     all lie inside;
//   - columns: kernel_w byte permutes of those registers (vpermb, or vpermi2b across two), each lane taking its
//     window's width tap, merged by max;
//   - one store of the band's lanes (a mask where they are fewer than 64; a store a row where the output has a row
//     pitch), nothing else of the output written.
//
// A looped band first prefetches the lines its loop steps over, prefetch_distance bytes ahead (a prefetch is a
// hint: it never faults, so it may pass the plane's end).
//
// Integer maxima have no order to keep: ties have equal bits. u8's empty value is 0 (a zeroing load), s8's -128.
#include "jit/emit/byte_band_runs.hpp"
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <map>
#include <utility>
#include <vector>
#include <string>

namespace pooljit::jit {
namespace {

class ByteBandEmitter : public Xbyak::CodeGenerator {
public:
    explicit ByteBandEmitter(const KernelPlan& plan)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), bands_(plan.byte_bands),
          signed_(plan.dtype == DType::s8) {
        bool fits = plan.strategy == Strategy::ncx_planes && !plan.has_indices &&
                    (plan.dtype == DType::u8 || plan.dtype == DType::s8) && bands_.rows > 0 && bands_.kernel_h >= 1 &&
                    bands_.kernel_w >= 1 && !bands_.chunks.empty() &&
                    bands_.permutes.size() == bands_.chunks.size() * static_cast<std::size_t>(bands_.kernel_w);
        for (const ByteBandChunk& chunk : bands_.chunks)
            fits = fits && (chunk.registers == 1 || chunk.registers == 2) && chunk.outputs >= 1 &&
                   chunk.outputs * bands_.rows <= 64 && (bands_.rows == 1 || bands_.chunks.size() == 1) &&
                   bands_.prefetch_distance >= 0 && bands_.prefetch_distance < (std::int64_t{1} << 30) &&
                   bands_.pitch >= bands_.width && bands_.out_pitch >= bands_.out_width;
        if (!fits)
            throw Error("jit: byte bands need u8/s8 planes without indices, whole permutes for each chunk's width taps, "
                        "one or two registers a chunk and at most 64 lanes a band (several rows only of one chunk)");
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Zmm = Xbyak::Zmm;
    using Label = Xbyak::Label;
    static constexpr std::uint64_t all_lanes_ = ~std::uint64_t{0};

    // General-purpose registers: rdi carries the KernelArgs pointer; rbx (saved) a mask's or a constant's bits.
    const Reg64 args_ = rdi, scratch_ = rbx;
    const Reg64 src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10;
    const Reg64 src_cursor_ = r11, dst_cursor_ = rcx, count_ = rax;
    // Vector registers: the rows' maxima (one or two), the band's maximum, the permutes in turn, an index vector,
    // and s8's empty value.
    const Zmm rows_[2] = {zmm0, zmm1};
    const Zmm maximum_ = zmm2, permuted_[2] = {zmm3, zmm4}, index_ = zmm5, empty_ = zmm31;
    // Opmasks: each distinct lane mask of the code's loads and stores pinned in k1-k7 before the plane loop, the
    // most used first; where there are more, k1 is set before each use of the others.
    const Xbyak::Opmask scratch_mask_ = k1;
    static constexpr int mask_registers_ = 7;

    // The lanes of a 64-byte load at plane offset `at` whose bytes lie inside the plane's extent.
    std::uint64_t inside_lanes(std::int64_t at) const {
        const std::int64_t begin = std::max<std::int64_t>(0, -at), end = std::min<std::int64_t>(64, bands_.extent() - at);
        if (begin >= end) return 0;
        const std::uint64_t upto_end = end == 64 ? all_lanes_ : (std::uint64_t{1} << end) - 1;
        return upto_end & ~((std::uint64_t{1} << begin) - 1);
    }
    static std::uint64_t first_lanes(std::int64_t n) { return n >= 64 ? all_lanes_ : (std::uint64_t{1} << n) - 1; }
    void set_mask(const Xbyak::Opmask& k, std::uint64_t lanes) {
        mov(scratch_, lanes);
        kmovq(k, scratch_);
    }
    // The opmask that holds `lanes` (set now where it is not pinned).
    Xbyak::Opmask mask_of(std::uint64_t lanes) {
        if (const auto it = pinned_.find(lanes); it != pinned_.end()) return Xbyak::Opmask(it->second);
        set_mask(scratch_mask_, lanes);
        return scratch_mask_;
    }
    // The lanes of chunk register r's load of window row kh (all lanes in a looped band).
    std::uint64_t load_lanes(const ByteBandChunk& chunk, int r, int kh, std::int64_t plane_row, bool looped) const {
        if (looped) return all_lanes_;
        return inside_lanes(plane_row * bands_.pitch + load_offset(chunk, r, kh));
    }
    std::int64_t load_offset(const ByteBandChunk& chunk, int r, int kh) const {
        return kh * bands_.dilation_h * bands_.pitch + chunk.in_begin + 64 * r;
    }
    // Every band of a plane in code order: (its window row 0's input row, output rows, looped); `each` is called
    // with them and the band's index within its run.
    template <typename Each>
    void for_each_band(Each&& each) const {
        for (const ByteBandRun& run : bands_.runs) {
            const std::int64_t row = run.begin * bands_.stride_h - bands_.pad_h;
            for (std::int64_t b = 0; b < (run.looped ? 1 : run.count); ++b)
                each(run, b, row + b * run.rows * bands_.stride_h);
        }
    }
    // Pins the masks the code uses, by how many times a plane uses each.
    void pin_masks() {
        std::map<std::uint64_t, std::int64_t> uses;
        for_each_band([&](const ByteBandRun& run, std::int64_t, std::int64_t plane_row) {
            const std::int64_t times = run.looped ? run.count : 1;
            for (const ByteBandChunk& chunk : bands_.chunks) {
                for (int r = 0; r < chunk.registers; ++r)
                    for (int kh = 0; kh < bands_.kernel_h; ++kh)
                        if (const std::uint64_t lanes = load_lanes(chunk, r, kh, plane_row, run.looped);
                            lanes != 0 && lanes != all_lanes_)
                            uses[lanes] += times;
                for (const auto& [lanes, at] : stores(chunk, run.rows))
                    if (lanes != all_lanes_) uses[lanes] += times;
            }
        });
        std::vector<std::pair<std::int64_t, std::uint64_t>> by_use;
        for (const auto& [lanes, count] : uses) by_use.emplace_back(-count, lanes);
        std::sort(by_use.begin(), by_use.end());
        const std::size_t pinned = by_use.size() <= mask_registers_ ? by_use.size() : mask_registers_ - 1;
        const int first = by_use.size() <= mask_registers_ ? 1 : 2;  // k1 stays the scratch where some are not pinned
        for (std::size_t i = 0; i < pinned; ++i) {
            pinned_[by_use[i].second] = first + static_cast<int>(i);
            set_mask(Xbyak::Opmask(first + static_cast<int>(i)), by_use[i].second);
        }
    }
    void set_empty(const Zmm& v) {
        if (signed_) vmovdqa64(v, empty_);
        else vpxord(v, v, v);
    }
    void max_into(const Zmm& to, const Xbyak::Operand& b) {
        if (signed_) vpmaxsb(to, to, b);
        else vpmaxub(to, to, b);
    }

    // One band: its chunks' rows, permutes and stores. src points at the plane's offset `src_at` for the band's
    // first output row's window row 0 (column 0), dst at its first output. `plane_row` is the input row of
    // that window row where the band is straight-line code (its loads masked to the plane), and `looped`
    // says its loads need no mask.
    void band(const Reg64& src, std::int64_t src_at, std::int64_t plane_row, const Reg64& dst, std::int64_t dst_at,
              std::int64_t rows, bool looped) {
        for (const ByteBandChunk& chunk : bands_.chunks) {
            for (int r = 0; r < chunk.registers; ++r) {
                const Zmm& v = rows_[r];
                bool first = true;
                for (int kh = 0; kh < bands_.kernel_h; ++kh) {
                    const std::int64_t offset = load_offset(chunk, r, kh);
                    const std::uint64_t lanes = load_lanes(chunk, r, kh, plane_row, looped);
                    if (lanes == 0) continue;
                    const Xbyak::Address at = ptr[src + static_cast<std::int32_t>(src_at + offset)];
                    if (lanes == all_lanes_) {
                        if (first) vmovdqu8(v, at);
                        else max_into(v, at);
                    } else {
                        const Xbyak::Opmask k = mask_of(lanes);
                        if (first) {
                            if (signed_) {
                                set_empty(v);
                                vmovdqu8(v | k, at);
                            } else {
                                vmovdqu8(v | k | T_z, at);
                            }
                        } else if (signed_) {
                            vpmaxsb(v | k, v, at);
                        } else {
                            vpmaxub(v | k, v, at);
                        }
                    }
                    first = false;
                }
                if (first) set_empty(v);  // no lane of this register lies in the plane: no output reads it
            }
            for (int k = 0; k < bands_.kernel_w; ++k) {
                const Zmm& to = k == 0 ? maximum_ : permuted_[k % 2];
                const auto table = static_cast<std::int32_t>((chunk.first_permute + static_cast<std::size_t>(k)) * 64);
                const std::size_t permute = chunk.first_permute + static_cast<std::size_t>(k);
                if (permute < pinned_permutes_) {
                    if (chunk.registers == 1) {
                        vpermb(to, Zmm(first_pinned_permute_ + static_cast<int>(permute)), rows_[0]);
                    } else {
                        vmovdqa64(to, Zmm(first_pinned_permute_ + static_cast<int>(permute)));
                        vpermi2b(to, rows_[0], rows_[1]);
                    }
                } else if (chunk.registers == 1) {
                    vmovdqu64(index_, ptr[rip + permutes_label_ + table]);
                    vpermb(to, index_, rows_[0]);
                } else {
                    vmovdqu64(to, ptr[rip + permutes_label_ + table]);
                    vpermi2b(to, rows_[0], rows_[1]);
                }
                if (k > 0) max_into(maximum_, to);
            }
            // Output rows that abut take one store; a row pitch, one store a row, each at its row's address less
            // its lanes' offset in the vector, under the mask of its lanes.
            for (const auto& [lanes, at] : stores(chunk, rows)) {
                const Xbyak::Address out = ptr[dst + static_cast<std::int32_t>(dst_at + at)];
                if (lanes == all_lanes_) vmovdqu8(out, maximum_);
                else vmovdqu8(out | mask_of(lanes), maximum_);
            }
        }
    }
    // A band's stores: each one's lanes and its offset from the band's first output.
    std::vector<std::pair<std::uint64_t, std::int64_t>> stores(const ByteBandChunk& chunk, std::int64_t rows) const {
        if (rows == 1 || bands_.out_pitch == bands_.out_width) return {{first_lanes(rows * chunk.outputs), chunk.out_begin}};
        std::vector<std::pair<std::uint64_t, std::int64_t>> out;
        for (std::int64_t g = 0; g < rows; ++g)
            out.emplace_back(first_lanes((g + 1) * chunk.outputs) & ~first_lanes(g * chunk.outputs),
                             g * bands_.out_pitch - g * chunk.outputs + chunk.out_begin);
        return out;
    }

    void generate() {
        Label plane_loop, done;
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        push(scratch_);
        pin_masks();
        // The permutes held in registers where they all fit.
        if (bands_.permutes.size() <= static_cast<std::size_t>(empty_.getIdx() - first_pinned_permute_)) {
            pinned_permutes_ = bands_.permutes.size();
            for (std::size_t i = 0; i < pinned_permutes_; ++i)
                vmovdqu64(Zmm(first_pinned_permute_ + static_cast<int>(i)),
                          ptr[rip + permutes_label_ + static_cast<std::int32_t>(i * 64)]);
        }
        if (signed_) {
            mov(scratch_.cvt32(), 0x80808080u);
            vpbroadcastd(empty_, scratch_.cvt32());
        }
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(plane_loop);
        emit_plane_bands(*this, bands_, {src_, dst_, src_cursor_, dst_cursor_, count_},
                         [&](const Reg64& src, std::int64_t src_at, std::int64_t plane_row, const Reg64& dst,
                             std::int64_t dst_at, std::int64_t rows, bool looped) {
                             band(src, src_at, plane_row, dst, dst_at, rows, looped);
                         });
        add(src_, src_step_);
        add(dst_, dst_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        L(done);
        pop(scratch_);
        vzeroupper();
        ret();
        align(64);
        L(permutes_label_);
        for (const std::array<std::uint8_t, 64>& permute : bands_.permutes)
            for (const std::uint8_t b : permute) db(b);
    }

    const ByteBands& bands_;
    const bool signed_;
    Label permutes_label_;
    std::map<std::uint64_t, int> pinned_;  // a load's or store's lanes -> the opmask that holds them
    std::size_t pinned_permutes_ = 0;      // permutes [0, pinned_permutes_) held in registers from zmm6 on
    static constexpr int first_pinned_permute_ = 6;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_byte_bands(const KernelPlan& plan) {
    return std::make_unique<OneEntryKernel<ByteBandEmitter>>(plan);
}

}  // namespace pooljit::jit
