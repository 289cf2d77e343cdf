// Byte bands in the AVX2 form (KernelPlan::byte_bands with 32 lanes): planar u8/s8 2-D max pools without indices,
// as emit_byte_bands.cpp computes them on cores with byte permutes, a plane's outputs a band of 32 byte lanes at a
// time. What differs is how a band gathers its window columns and how it keeps to the plane's bytes:
//
//   - columns: vpshufb picks bytes within each 128-bit half. Quarter q of V (its 16-byte pieces: the rows' maxima
//     in one or two registers) reaches an output half directly where the halves agree, and through the register
//     with its halves swapped (vperm2i128) where they do not. A width tap is one shuffle of each source that holds
//     some of its lanes' bytes, every other lane zeroed by the table's high bit, merged by max: 0 adds nothing to
//     an unsigned maximum. s8 compares in the unsigned order once its sign bit is flipped (x ^ 0x80 keeps the
//     order of the signed values), and flips back before the store;
//   - loads: a looped band's loads all lie inside the plane. A straight-line band's load that reaches past either
//     end of the plane loads the vector inside it that starts (ends) at the plane's edge, and its bytes shift into
//     their lanes with zeros (the empty value) in the lanes outside the plane: nothing outside the plane is read;
//   - stores: a band's lanes (fewer than 32 in short rows) store as whole vectors where they fill one, and
//     otherwise as two overlapping stores of the largest piece that fits (16, 8, 4 or 2 bytes) or single bytes:
//     nothing else of the output is written. A row's chunk that later chunks of the row follow stores a whole
//     vector inside the row, whose lanes past its outputs those chunks then overwrite.
//
// Integer maxima have no order to keep: ties have equal bits.
#include "jit/emit/byte_band_runs.hpp"
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

constexpr int lanes_ = 32;
// The sources a shuffle reads: V's registers as they are and with their halves swapped.
constexpr int sources_ = 4;

// The shuffle tables of one permute (a chunk's width tap), one per source; `used` says which sources hold a lane.
struct ShuffleTables {
    std::array<std::array<std::uint8_t, lanes_>, sources_> table{};
    std::array<bool, sources_> used{};
};

// Source s of lane `lane` taking V's byte `from`: register from / 32, swapped where the byte's half is not the lane's.
ShuffleTables shuffle_tables(const std::array<std::uint8_t, 64>& permute, std::int64_t lanes) {
    ShuffleTables t;
    for (auto& table : t.table) table.fill(0x80);
    for (std::int64_t lane = 0; lane < lanes; ++lane) {
        const int from = permute[static_cast<std::size_t>(lane)];
        const int source = 2 * (from / 32) + ((from / 16) % 2 == lane / 16 ? 0 : 1);
        t.table[static_cast<std::size_t>(source)][static_cast<std::size_t>(lane)] = static_cast<std::uint8_t>(from % 16);
        t.used[static_cast<std::size_t>(source)] = true;
    }
    return t;
}

class ByteShuffleBandEmitter : public Xbyak::CodeGenerator {
public:
    explicit ByteShuffleBandEmitter(const KernelPlan& plan)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), bands_(plan.byte_bands),
          signed_(plan.dtype == DType::s8) {
        bool fits = plan.strategy == Strategy::ncx_planes && !plan.has_indices && plan.isa == Isa::avx2 &&
                    (plan.dtype == DType::u8 || plan.dtype == DType::s8) && bands_.rows > 0 && bands_.kernel_h >= 1 &&
                    bands_.kernel_w >= 1 && !bands_.chunks.empty() && bands_.extent() >= lanes_ &&
                    bands_.permutes.size() == bands_.chunks.size() * static_cast<std::size_t>(bands_.kernel_w) &&
                    bands_.prefetch_distance >= 0 && bands_.prefetch_distance < (std::int64_t{1} << 30) &&
                    bands_.pitch >= bands_.width && bands_.out_pitch >= bands_.out_width;
        for (const ByteBandChunk& chunk : bands_.chunks) {
            fits = fits && (chunk.registers == 1 || chunk.registers == 2) && chunk.outputs >= 1 &&
                   chunk.outputs * bands_.rows <= lanes_ && (bands_.rows == 1 || bands_.chunks.size() == 1);
            for (int k = 0; fits && k < bands_.kernel_w; ++k)
                for (std::int64_t lane = 0; lane < chunk.outputs * bands_.rows; ++lane)
                    fits = fits && bands_.permutes[chunk.first_permute + static_cast<std::size_t>(k)]
                                                  [static_cast<std::size_t>(lane)] < lanes_ * chunk.registers;
        }
        if (!fits)
            throw Error("jit: byte shuffle bands need u8/s8 planes of at least 32 bytes without indices, in the AVX2 "
                        "form, one or two registers a chunk, at most 32 lanes a band (several rows only of one chunk) "
                        "and permutes inside the chunk's registers");
        for (const ByteBandChunk& chunk : bands_.chunks)
            for (int k = 0; k < bands_.kernel_w; ++k)
                tables_.push_back(shuffle_tables(bands_.permutes[chunk.first_permute + static_cast<std::size_t>(k)],
                                                 chunk.outputs * bands_.rows));
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Ymm = Xbyak::Ymm;
    using Xmm = Xbyak::Xmm;
    using Label = Xbyak::Label;

    // General-purpose registers: rdi carries the KernelArgs pointer.
    const Reg64 args_ = rdi;
    const Reg64 src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10;
    const Reg64 src_cursor_ = r11, dst_cursor_ = rcx, count_ = rax;
    // Vector registers: V's registers and their swapped halves (the four sources), the band's maximum, a shuffle's
    // result, a moved load and a shift's other half, and s8's sign bits.
    const Ymm rows_[2] = {ymm0, ymm1}, swapped_[2] = {ymm2, ymm3};
    const Ymm maximum_ = ymm4, shuffled_ = ymm5, moved_ = ymm6, half_ = ymm7, sign_ = ymm15;

    // A byte count in 0-31 as an instruction's immediate.
    static std::uint8_t imm(int bytes) { return static_cast<std::uint8_t>(bytes); }
    const Ymm& source(int s) const { return s % 2 == 0 ? rows_[s / 2] : swapped_[s / 2]; }
    void max_into(const Ymm& to, const Xbyak::Operand& b) {
        if (signed_) vpmaxsb(to, to, b);
        else vpmaxub(to, to, b);
    }
    // to = from's bytes moved up (lanes toward higher ones) by `by` in 1-31, zeros below.
    void shift_up(const Ymm& to, const Ymm& from, int by) {
        vperm2i128(half_, from, from, 0x08);  // low half zero, high half from's low half
        if (by < 16) vpalignr(to, from, half_, imm(16 - by));
        else vpslldq(to, half_, imm(by - 16));
    }
    // to = from's bytes moved down by `by` in 1-31, zeros above.
    void shift_down(const Ymm& to, const Ymm& from, int by) {
        vperm2i128(half_, from, from, 0x81);  // low half from's high half, high half zero
        if (by < 16) vpalignr(to, half_, from, imm(by));
        else vpsrldq(to, half_, imm(by - 16));
    }
    // The n bytes of `from`'s first lanes at `out`, nothing else written: whole pieces, or two overlapping ones.
    void store_first(const Xbyak::RegExp& out, const Ymm& from, int n) {
        const Xmm low(from.getIdx()), spare(moved_.getIdx());
        if (n == lanes_) {
            vmovdqu(ptr[out], from);
        } else if (n > 16) {
            vmovdqu(ptr[out], low);
            shift_down(moved_, from, n - 16);
            vmovdqu(ptr[out + (n - 16)], spare);
        } else if (n == 16) {
            vmovdqu(ptr[out], low);
        } else if (n > 8) {
            vmovq(ptr[out], low);
            vpsrldq(spare, low, imm(n - 8));
            vmovq(ptr[out + (n - 8)], spare);
        } else if (n == 8) {
            vmovq(ptr[out], low);
        } else if (n > 4) {
            vmovd(ptr[out], low);
            vpsrldq(spare, low, imm(n - 4));
            vmovd(ptr[out + (n - 4)], spare);
        } else if (n == 4) {
            vmovd(ptr[out], low);
        } else {
            if (n >= 2) vpextrw(ptr[out], low, 0);
            if (n % 2 == 1) vpextrb(ptr[out + (n - 1)], low, imm(n - 1));
        }
    }

    // Window row kh's load into register r of a chunk: V's lanes [0, 32) hold plane offset `at` on.
    std::int64_t load_offset(const ByteBandChunk& chunk, int r, int kh) const {
        return kh * bands_.dilation_h * bands_.pitch + chunk.in_begin + std::int64_t{lanes_} * r;
    }

    // One band: its chunks' rows, shuffles and stores. src points at the plane's offset `src_at` for the band's first
    // output row's window row 0 (column 0), dst at its first output. A straight-line band (`looped` false) has src
    // at the plane's first byte, so src_at is the plane offset of that window row.
    void band(const Reg64& src, std::int64_t src_at, const Reg64& dst, std::int64_t dst_at, std::int64_t rows,
              bool looped) {
        const std::int64_t extent = bands_.extent();
        for (std::size_t c = 0; c < bands_.chunks.size(); ++c) {
            const ByteBandChunk& chunk = bands_.chunks[c];
            for (int r = 0; r < chunk.registers; ++r) {
                const Ymm& v = rows_[r];
                bool first = true;
                for (int kh = 0; kh < bands_.kernel_h; ++kh) {
                    const std::int64_t at = src_at + load_offset(chunk, r, kh);
                    const bool whole = looped || (at >= 0 && at + lanes_ <= extent);
                    if (whole) {
                        const Xbyak::Address a = ptr[src + static_cast<std::int32_t>(at)];
                        if (first) vmovdqu(v, a);
                        else max_into(v, a);
                        first = false;
                        continue;
                    }
                    if (at + lanes_ <= 0 || at >= extent) continue;  // no byte of this load lies in the plane
                    // The vector inside the plane from its first byte (or to its last), its bytes moved into place;
                    // s8 flipped first, so the shift's zeros are its lowest value.
                    const std::int64_t inside = std::clamp<std::int64_t>(at, 0, extent - lanes_);
                    vmovdqu(moved_, ptr[src + static_cast<std::int32_t>(inside)]);
                    if (signed_) vpxor(moved_, moved_, sign_);
                    if (at < inside) shift_up(moved_, moved_, static_cast<int>(inside - at));
                    else shift_down(moved_, moved_, static_cast<int>(at - inside));
                    if (signed_) vpxor(moved_, moved_, sign_);
                    if (first) vmovdqa(v, moved_);
                    else max_into(v, moved_);
                    first = false;
                }
                if (first) {
                    // No lane of this register lies in the plane: no output reads it (its lowest value, flipped).
                    vpxor(v, v, v);
                } else if (signed_) {
                    vpxor(v, v, sign_);
                }
            }
            // The swapped registers some width tap reads.
            const std::size_t first_table = c * static_cast<std::size_t>(bands_.kernel_w);
            for (int r = 0; r < chunk.registers; ++r) {
                const auto swapped = static_cast<std::size_t>(2 * r + 1);
                if (std::any_of(tables_.begin() + static_cast<std::ptrdiff_t>(first_table),
                                tables_.begin() + static_cast<std::ptrdiff_t>(first_table + static_cast<std::size_t>(bands_.kernel_w)),
                                [&](const ShuffleTables& t) { return t.used[swapped]; }))
                    vperm2i128(swapped_[r], rows_[r], rows_[r], 0x01);
            }
            bool first = true;
            for (int k = 0; k < bands_.kernel_w; ++k) {
                const std::size_t t = first_table + static_cast<std::size_t>(k);
                for (int s = 0; s < sources_; ++s) {
                    if (!tables_[t].used[static_cast<std::size_t>(s)]) continue;
                    const auto offset = static_cast<std::int32_t>((t * sources_ + static_cast<std::size_t>(s)) * lanes_);
                    const Xbyak::Address table = ptr[rip + tables_label_ + offset];
                    if (first) {
                        vpshufb(maximum_, source(s), table);
                        first = false;
                    } else {
                        vpshufb(shuffled_, source(s), table);
                        vpmaxub(maximum_, maximum_, shuffled_);
                    }
                }
            }
            if (signed_) vpxor(maximum_, maximum_, sign_);
            // Output rows that abut take one store; a row pitch, one store a row from its lanes moved down first.
            // A chunk of a row that the row's later chunks follow stores a whole vector where the row holds it:
            // its lanes past the chunk's outputs are the next chunk's outputs, which that chunk stores after.
            const bool followed = c + 1 < bands_.chunks.size() && chunk.out_begin + lanes_ <= bands_.out_width;
            if (rows == 1 || bands_.out_pitch == bands_.out_width) {
                store_first(dst + static_cast<std::int32_t>(dst_at + chunk.out_begin), maximum_,
                            followed ? lanes_ : static_cast<int>(rows * chunk.outputs));
                continue;
            }
            for (std::int64_t g = rows - 1; g >= 0; --g) {
                const auto at = static_cast<std::int32_t>(dst_at + g * bands_.out_pitch + chunk.out_begin);
                const auto n = static_cast<int>(chunk.outputs);
                if (g == 0) {
                    store_first(dst + at, maximum_, n);
                } else {
                    shift_down(shuffled_, maximum_, static_cast<int>(g * chunk.outputs));
                    store_first(dst + at, shuffled_, n);
                }
            }
        }
    }

    void generate() {
        Label plane_loop, done;
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        if (signed_) {
            mov(eax, 0x80808080u);
            vmovd(Xmm(sign_.getIdx()), eax);
            vpbroadcastd(sign_, Xmm(sign_.getIdx()));
        }
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(plane_loop);
        emit_plane_bands(*this, bands_, {src_, dst_, src_cursor_, dst_cursor_, count_},
                         [&](const Reg64& src, std::int64_t src_at, std::int64_t, const Reg64& dst, std::int64_t dst_at,
                             std::int64_t rows, bool looped) { band(src, src_at, dst, dst_at, rows, looped); });
        add(src_, src_step_);
        add(dst_, dst_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        L(done);
        vzeroupper();
        ret();
        align(32);
        L(tables_label_);
        for (const ShuffleTables& t : tables_)
            for (const auto& table : t.table)
                for (const std::uint8_t b : table) db(b);
    }

    const ByteBands& bands_;
    const bool signed_;
    std::vector<ShuffleTables> tables_;  // per chunk, per width tap
    Label tables_label_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_byte_shuffle_bands(const KernelPlan& plan) {
    return std::make_unique<OneEntryKernel<ByteShuffleBandEmitter>>(plan);
}

}  // namespace pooljit::jit
