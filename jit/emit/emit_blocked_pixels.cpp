// Blocked pixels (KernelPlan::blocked_pixels): nCx8c / nCx16c u8/s8 max pools folded into lanes (at stride 1 or 2
// along the width, or of one output a row), run as the lane-axis problem of blocks_folded() (a call's planes are
// channel blocks; a plane's rows are rows of pixels of B bytes, its row pitch the tensor's). A vector holds
// G = vector_bytes / B output pixels of one row. Three codes:
//
//   - shifted taps (BlockedPixels::shifted): chunk c's s G pixels from s c G load once (whole vectors from the
//     chunk's first pixel), merged down the window's rows; at stride 2 split into even and odd pixels; width tap
//     o = s m + phase is that phase's pixels shifted by m outputs, the chunks after or before (held in a window of
//     registers, the ones after loaded ahead) moving in (valignq; ymm: vperm2i128, vpalignr);
//   - a window of the whole row (BlockedPixels::whole_row): the row's vectors into 4 maxima in flight, reduced
//     across the vector's pixels;
//   - pairs, where a tap reaches further: for each load pair (BlockedPixels::pairs: width tap offsets o from s x,
//     neighbouring taps paired at stride 2), s vectors load the s G pixels from s x + o of every real row of the
//     window and take their maximum down the rows (integers: equal values have equal bits, so the order of the
//     merges is of no consequence); at stride 2 the result's even pixels are tap o of the G outputs, its odd
//     pixels tap o + 1.
//
// The splits into even and odd pixels:
//
//   - zmm, B = 16: vshufi64x2 picks 128-bit lanes 0 and 2 (even) or 1 and 3 (odd) of both vectors;
//   - zmm, B = 8: vpermi2q with the even or odd quadword indices of both vectors;
//   - ymm, B = 16: vperm2i128 picks the low (even) or high (odd) halves of both vectors;
//   - ymm, B = 8: vpunpcklqdq / vpunpckhqdq take quadwords 0 and 2 (1 and 3) of both vectors, in the order of
//     outputs x, x + 2, x + 1, x + 3; vpermq puts the maxima in order before the store.
//
// Where the channels-last code compared one pixel a vector and loaded every tap of every window, each input pixel
// of a row is loaded once a window row (shifted taps). A partial last block's planes run a second entry that
// ands each output vector with the block's lane mask (the padded lanes stored as 0). The rows of a plane go in runs of equal real window rows
// (BlockedPixels::runs; an output row whose window has no real row stores the empty value). Along a row, the
// chunks of G outputs whose loads all lie inside the row run in a loop; the chunks at the row's ends load their
// pixels under masks of whole pixels (the lanes outside the row take the empty value: 0, or -128 for s8) and the
// last chunk stores only its outputs. Nothing is read outside the real pixels of a window's rows, and nothing is
// written but the output pixels.
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pooljit::jit {
namespace {

class BlockedPixelEmitter : public Xbyak::CodeGenerator {
public:
    // tail: the entry of a partial last block's planes, whose outputs' lanes from tail_lanes on are stored as 0.
    BlockedPixelEmitter(const KernelPlan& plan, bool tail)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), bp_(plan.blocked_pixels),
          s8_(plan.dtype == DType::s8), zmm_(plan.blocked_pixels.vector_bytes == 64), tail_(tail),
          g_(plan.blocked_pixels.pixels()) {
        const bool shape = (bp_.block == 8 || bp_.block == 16) && (bp_.vector_bytes == 32 || bp_.vector_bytes == 64) &&
                           bp_.in_w >= 1 && bp_.out_w >= 1 && bp_.out_h >= 1 && !bp_.runs.empty() && !bp_.pairs.empty();
        if (plan.strategy != Strategy::ncx_planes || plan.has_indices || (plan.dtype != DType::u8 && !s8_) || !shape ||
            (zmm_ && plan.isa != Isa::avx512) || (tail && (bp_.tail_lanes <= 0 || bp_.tail_lanes >= bp_.block)))
            throw Error("jit: blocked pixels need u8/s8 without indices, pixels of 8 or 16 bytes in 32-byte vectors "
                        "(64-byte ones on AVX-512), and runs of rows and load pairs");
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Xmm = Xbyak::Xmm;
    using Label = Xbyak::Label;
    using Address = Xbyak::Address;

    // rdi carries the KernelArgs pointer, then a chunk's output; rbx, r12, r13 are saved.
    const Reg64 args_ = rdi, src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10;
    const Reg64 row_ = r11, out_ = rax, x_ = rcx, d_ = rdi, rows_left_ = rbx, chunks_left_ = r12, tmp_ = r13;
    // Vector registers: the empty value, the tail entry's lane mask (zmm: 31), a mask (ymm), a masked load, the
    // outputs' maxima, a split's result, then 4 pairs of load registers taken in turn; the quadword indices (zmm,
    // B = 8) in 16 and 17.
    static constexpr int empty_ = 0, ymm_tail_mask_ = 1, mask_ = 3, loaded_ = 4, acc_ = 5, split_ = 6, first_pair_ = 7,
                         pair_sets_ = 4, even_index_ = 16, odd_index_ = 17, zmm_tail_mask_ = 31;
    // Shifted taps: a chunk's vectors down the window's rows, a shifted tap, then the window of chunks' registers
    // (each chunk's even and odd pixels at stride 2, its pixels at stride 1).
    static constexpr int rows_a_ = 6, rows_b_ = 7, shifted_ = 8, first_slot_ = 9;
    int tail_mask() const { return zmm_ ? zmm_tail_mask_ : ymm_tail_mask_; }
    // The register of chunk c + slot's phase (slot in [-reach, reach]).
    int slot_register(std::int64_t slot, int phase) const {
        return first_slot_ + static_cast<int>((slot + bp_.reach_chunks()) * bp_.stride_w + phase);
    }

    Xmm vec(int i) const { return zmm_ ? Xmm(Xbyak::Zmm(i)) : Xmm(Xbyak::Ymm(i)); }
    void copy(const Xmm& to, const Xmm& from) {
        if (zmm_) vmovdqa64(to, from);
        else vmovdqa(to, from);
    }
    void load(const Xmm& to, const Address& from) {
        if (zmm_) vmovdqu64(to, from);
        else vmovdqu(to, from);
    }
    void max_into(const Xmm& to, const Xbyak::Operand& b) {
        if (s8_) vpmaxsb(to, to, b);
        else vpmaxub(to, to, b);
    }
    // A row's pointer plus a constant of any size (a register and 32 bits where it fits).
    void add_constant(const Reg64& r, std::int64_t v) {
        if (v == 0) return;
        if (v >= INT32_MIN && v <= INT32_MAX) {
            add(r, static_cast<std::int32_t>(v));
        } else {
            mov(tmp_, v);
            add(r, tmp_);
        }
    }

    // The pixels of [first, first + G) inside the row, as a bit a pixel.
    std::uint32_t pixel_bits(std::int64_t first) const {
        std::uint32_t bits = 0;
        for (std::int64_t p = 0; p < g_; ++p)
            if (first + p >= 0 && first + p < bp_.in_w) bits |= 1u << p;
        return bits;
    }
    std::uint32_t all_pixels() const { return (1u << g_) - 1; }
    // A quadword a bit, each pixel's B / 8 quadwords.
    std::uint32_t quadword_bits(std::uint32_t pixels) const {
        const int per = bp_.block / 8;
        std::uint32_t bits = 0;
        for (int p = 0; p < g_; ++p)
            if (pixels >> p & 1u) bits |= ((1u << per) - 1) << (p * per);
        return bits;
    }
    // ymm: the mask register of a quadword pattern (all bits of a quadword set), from the code's data.
    void load_ymm_mask(std::uint32_t quadwords) {
        auto [it, added] = ymm_masks_.try_emplace(quadwords);
        vmovdqu(Xbyak::Ymm(mask_), ptr[rip + it->second]);
    }
    // to <- the pixels of `pixels` (bits) at `from`, the rest empty.
    void load_pixels(const Xmm& to, const Address& from, std::uint32_t pixels) {
        if (pixels == all_pixels()) return load(to, from);
        if (pixels == 0) return copy(to, vec(empty_));
        const std::uint32_t quadwords = quadword_bits(pixels);
        if (zmm_) {
            mov(tmp_.cvt32(), quadwords);
            kmovw(k1, tmp_.cvt32());
            if (s8_) {
                copy(to, vec(empty_));
                vmovdqu64(to | k1, from);
            } else {
                vmovdqu64(to | k1 | T_z, from);
            }
            return;
        }
        load_ymm_mask(quadwords);
        vpmaskmovq(to, vec(mask_), from);  // the lanes outside the mask are zero
        if (s8_) vpblendvb(to, vec(empty_), to, vec(mask_));
    }

    // One chunk's G outputs: from `base` + `at` (bytes; the chunk's pixel 2x there) over the window rows
    // [0, taps) of the run, stored at `out` + `out_at`. `first_pixel`: the chunk's pixel 2x in the row (edge
    // chunks, whose loads take masks), `outputs`: the outputs stored (G but at the row's end).
    void chunk(const Reg64& base, std::int64_t at, const Reg64& out, std::int64_t out_at, std::int64_t taps,
               bool edge, std::int64_t first_pixel, std::int64_t outputs) {
        const std::int64_t b = bp_.block, vb = bp_.vector_bytes;
        const int vectors = bp_.stride_w;  // a pair's vectors: its 2G pixels at stride 2, G at stride 1
        const std::int64_t row_step = std::int64_t{bp_.dilation_h} * bp_.src_row_bytes;
        const Xmm acc = vec(acc_);
        if (taps == 0) {
            copy(acc, vec(empty_));
        } else {
            bool started = false;
            for (std::size_t i = 0; i < bp_.pairs.size(); ++i) {
                const BlockedPixelPair& pair = bp_.pairs[i];
                const int set = static_cast<int>(i % pair_sets_);
                const Xmm v[2] = {vec(first_pair_ + 2 * set), vec(first_pair_ + 2 * set + 1)};
                for (int k = 0; k < vectors; ++k) {
                    const std::uint32_t pixels = edge ? pixel_bits(first_pixel + pair.offset + k * g_) : all_pixels();
                    for (std::int64_t r = 0; r < taps; ++r) {
                        const Address from = ptr[base + static_cast<std::int32_t>(at + pair.offset * b + k * vb + r * row_step)];
                        if (r == 0) {
                            load_pixels(v[k], from, pixels);
                        } else if (pixels == all_pixels()) {
                            max_into(v[k], from);
                        } else if (pixels != 0) {
                            load_pixels(vec(loaded_), from, pixels);
                            max_into(v[k], vec(loaded_));
                        }
                    }
                }
                if (vectors == 1) {  // stride 1: the pixels from x + o are tap o
                    if (started) max_into(acc, v[0]);
                    else copy(acc, v[0]);
                    started = true;
                    continue;
                }
                // Even pixels: tap o; odd pixels: tap o + 1.
                for (int phase = 0; phase < (pair.odd ? 2 : 1); ++phase) {
                    const Xmm to = started ? vec(split_) : acc;
                    split(to, v[0], v[1], phase == 1);
                    if (started) max_into(acc, to);
                    started = true;
                }
            }
        }
        store(out, out_at, outputs);
    }

    // to <- the even (or odd) pixels of the 2G pixels in a, b.
    void split(const Xmm& to, const Xmm& a, const Xmm& b, bool odd, bool in_order = false) {
        if (zmm_ && bp_.block == 16)
            return vshufi64x2(Xbyak::Zmm(to.getIdx()), Xbyak::Zmm(a.getIdx()), Xbyak::Zmm(b.getIdx()), odd ? 0xDD : 0x88);
        if (zmm_) {
            vmovdqa64(to, vec(odd ? odd_index_ : even_index_));
            return vpermi2q(to, a, b);
        }
        if (bp_.block == 16)
            return vperm2i128(Xbyak::Ymm(to.getIdx()), Xbyak::Ymm(a.getIdx()), Xbyak::Ymm(b.getIdx()), odd ? 0x31 : 0x20);
        if (odd) vpunpckhqdq(to, a, b);
        else vpunpcklqdq(to, a, b);
        if (in_order) vpermq(Xbyak::Ymm(to.getIdx()), Xbyak::Ymm(to.getIdx()), 0xD8);  // x, x+2, x+1, x+3 in order
    }

    // The chunk's first `outputs` pixels of acc at out + out_at.
    void store(const Reg64& out, std::int64_t out_at, std::int64_t outputs, bool in_order = false) {
        const Xmm acc = vec(acc_);
        if (tail_ && zmm_) vpandq(acc, acc, vec(tail_mask()));  // the padded lanes 0
        else if (tail_) vpand(acc, acc, vec(tail_mask()));
        if (!zmm_ && bp_.block == 8 && !in_order) vpermq(Xbyak::Ymm(acc_), Xbyak::Ymm(acc_), 0xD8);  // x, x+2, x+1, x+3 in order
        const auto at = [&](std::int64_t bytes) { return ptr[out + static_cast<std::int32_t>(out_at + bytes)]; };
        if (outputs == g_) return zmm_ ? vmovdqu64(at(0), acc) : vmovdqu(at(0), acc);
        const std::int64_t bytes = outputs * bp_.block;
        if (bytes == 8) return vmovq(at(0), Xmm(acc_));  // one pixel: the low lanes, no mask
        if (bytes == 16) return vmovdqu(at(0), Xmm(acc_));
        if (zmm_) {
            mov(tmp_.cvt32(), (1u << (bytes / 8)) - 1);
            kmovw(k1, tmp_.cvt32());
            return vmovdqu64(at(0) | k1, acc);
        }
        // ymm: 16 bytes, then 8, from the low half, then the high half's.
        if (bytes < 16) return vmovq(at(0), Xmm(acc_));
        vmovdqu(at(0), Xmm(acc_));
        if (bytes < 24) return;
        vextracti128(Xmm(split_), Xbyak::Ymm(acc_), 1);
        vmovq(at(16), Xmm(split_));
    }

    // Shifted taps: `to` <- the maxima down the window rows [0, taps) of the G pixels at base + at (whose first is
    // pixel `first` of the row: the lanes outside the row take the empty value).
    void rows_of(const Xmm& to, const Reg64& base, std::int64_t at, std::int64_t first, std::int64_t taps) {
        const std::int64_t row_step = std::int64_t{bp_.dilation_h} * bp_.src_row_bytes;
        const std::uint32_t pixels = pixel_bits(first);
        for (std::int64_t r = 0; r < taps; ++r) {
            const Address from = ptr[base + static_cast<std::int32_t>(at + r * row_step)];
            if (r == 0) {
                load_pixels(to, from, pixels);
            } else if (pixels == all_pixels()) {
                max_into(to, from);
            } else if (pixels != 0) {
                load_pixels(vec(loaded_), from, pixels);
                max_into(to, vec(loaded_));
            }
        }
    }
    // The registers of chunk `slot` <- its pixels down the window rows, from base + at (pixel `first` of the row):
    // at stride 2 its 2G pixels split into even and odd pixels, at stride 1 its G pixels.
    void chunk_pixels(std::int64_t slot, const Reg64& base, std::int64_t at, std::int64_t first, std::int64_t taps) {
        const int phases = bp_.stride_w;
        bool any = false;
        for (int k = 0; k < phases; ++k) any = any || pixel_bits(first + k * g_) != 0;
        if (!any) {
            for (int phase = 0; phase < phases; ++phase) copy(vec(slot_register(slot, phase)), vec(empty_));
            return;
        }
        if (phases == 1) return rows_of(vec(slot_register(slot, 0)), base, at, first, taps);
        rows_of(vec(rows_a_), base, at, first, taps);
        rows_of(vec(rows_b_), base, at + bp_.vector_bytes, first + g_, taps);
        split(vec(slot_register(slot, 0)), vec(rows_a_), vec(rows_b_), false, true);
        split(vec(slot_register(slot, 1)), vec(rows_a_), vec(rows_b_), true, true);
    }
    // The register holding width tap (phase, m) of the current chunk: its phase's pixels shifted by m outputs, the
    // chunks' after (or before) moving in.
    Xmm shifted_tap(int phase, std::int64_t m) {
        const std::int64_t slot = m >= 0 ? m / g_ : -((-m + g_ - 1) / g_), k = m - slot * g_;
        if (k == 0) return vec(slot_register(slot, phase));
        const Xmm to = vec(shifted_), lo = vec(slot_register(slot, phase)), hi = vec(slot_register(slot + 1, phase));
        if (zmm_) {
            valignq(to, hi, lo, static_cast<std::uint8_t>(k * (bp_.block / 8)));  // quadwords
            return to;
        }
        // ymm: the middle halves of lo, hi (16-byte pixels: k = 1), or for 8-byte pixels those and a quadword more
        // or less.
        const Xbyak::Ymm t(shifted_), l(lo.getIdx()), h(hi.getIdx());
        vperm2i128(t, l, h, 0x21);
        if (bp_.block == 16 || k == 2) return to;
        if (k == 1) vpalignr(t, t, l, 8);
        else vpalignr(t, h, t, 8);
        return to;
    }

    // One output row of a run whose windows' real rows are `taps` > 0, in shifted taps: chunk c's pixels loaded
    // once (from x_ + at), kept in the window of chunks' registers as long as a tap reads them, the chunks after
    // loaded ahead of the outputs that read them.
    void output_row_shifted(std::int64_t taps) {
        const std::int64_t s = bp_.stride_w, b = bp_.block, chunks = bp_.chunks(), chunk_bytes = s * g_ * b;
        const std::vector<BlockedPixels::ShiftedTap> width_taps = bp_.shifted_taps();
        const std::int64_t back = bp_.chunks_back(), ahead = bp_.chunks_ahead(), looped = bp_.shifted_loop_chunks();
        if (back > bp_.reach_chunks() || ahead > bp_.reach_chunks())
            throw Error("jit: blocked pixels' shifted taps reach past the chunks the registers hold");
        const auto iteration = [&](std::int64_t c, std::int64_t at, std::int64_t out_at, std::int64_t outputs) {
            chunk_pixels(ahead, x_, at + ahead * chunk_bytes, s * (c + ahead) * g_, taps);
            const Xmm acc = vec(acc_);
            for (std::size_t t = 0; t < width_taps.size(); ++t) {
                const Xmm tap = shifted_tap(width_taps[t].phase, width_taps[t].m);
                if (t == 0) copy(acc, tap);
                else max_into(acc, tap);
            }
            store(d_, out_at, outputs, true);
            for (std::int64_t slot = -back; slot < ahead; ++slot)
                for (int phase = 0; phase < s; ++phase)
                    copy(vec(slot_register(slot, phase)), vec(slot_register(slot + 1, phase)));
        };
        mov(x_, row_);
        mov(d_, out_);
        for (std::int64_t slot = -back; slot < 0; ++slot)  // pixels before the row
            for (int phase = 0; phase < s; ++phase) copy(vec(slot_register(slot, phase)), vec(empty_));
        for (std::int64_t slot = 0; slot < ahead; ++slot) chunk_pixels(slot, x_, slot * chunk_bytes, s * slot * g_, taps);
        if (looped > 0) {
            Label loop;
            mov(chunks_left_, looped);
            L(loop);
            // Chunk 0's masks: every looped chunk (and the ones after it that it reads) lies inside the row as
            // chunk 0 does, so its pixel masks are whole and its loads plain.
            iteration(0, 0, 0, g_);
            add(x_, static_cast<std::int32_t>(chunk_bytes));
            add(d_, static_cast<std::int32_t>(g_ * b));
            dec(chunks_left_);
            jnz(loop, T_NEAR);
        }
        for (std::int64_t c = looped; c < chunks; ++c)
            iteration(c, (c - looped) * chunk_bytes, (c - looped) * g_ * b, std::min(g_, bp_.out_w - c * g_));
    }

    // One output row of a window of the whole row (BlockedPixels::whole_row), `taps` > 0 real rows: every vector of
    // each row into a few maxima in flight (a loop over groups of them where the row is long), the partial last
    // vector under its pixel mask, then the maxima merged and reduced across the vector's G pixels, one stored.
    // Rows that follow each other in memory (a dense plane's, dilation 1) are one span of pixels: a vector's pixels
    // need not share a row, only start on a pixel.
    void output_row_whole(std::int64_t taps) {
        const std::int64_t vb = bp_.vector_bytes, row_step = std::int64_t{bp_.dilation_h} * bp_.src_row_bytes;
        const bool flat = bp_.whole_rows_one_span();
        const std::int64_t span_pixels = flat ? taps * bp_.in_w : bp_.in_w;
        const std::int64_t full = span_pixels / g_, rest = span_pixels % g_;
        const int chains = static_cast<int>(std::clamp<std::int64_t>(full, 1, 4));
        const auto chain = [&](int c) { return vec(first_slot_ + c); };
        std::vector<bool> started(static_cast<std::size_t>(chains), false);
        const auto merge = [&](int c, const Address& from, std::uint32_t pixels) {
            if (!started[static_cast<std::size_t>(c)]) {
                load_pixels(chain(c), from, pixels);
                started[static_cast<std::size_t>(c)] = true;
            } else if (pixels == all_pixels()) {
                max_into(chain(c), from);
            } else {
                load_pixels(vec(loaded_), from, pixels);
                max_into(chain(c), vec(loaded_));
            }
        };
        constexpr std::int64_t max_unrolled = 16;
        for (std::int64_t r = 0; r < (flat ? 1 : taps); ++r) {
            const std::int64_t at = r * row_step;
            if (full <= max_unrolled) {
                for (std::int64_t v = 0; v < full; ++v)
                    merge(static_cast<int>(v % chains), ptr[row_ + static_cast<std::int32_t>(at + v * vb)], all_pixels());
            } else {
                // The first group starts the chains (plain loads); the loop merges the groups after it.
                for (int c = 0; c < chains; ++c) merge(c, ptr[row_ + static_cast<std::int32_t>(at + c * vb)], all_pixels());
                const std::int64_t groups = full / chains;
                Label loop;
                lea(x_, ptr[row_ + static_cast<std::int32_t>(at + chains * vb)]);
                mov(chunks_left_, groups - 1);
                L(loop);
                for (int c = 0; c < chains; ++c) max_into(chain(c), ptr[x_ + static_cast<std::int32_t>(c * vb)]);
                add(x_, static_cast<std::int32_t>(chains * vb));
                dec(chunks_left_);
                jnz(loop, T_NEAR);
                for (std::int64_t v = groups * chains; v < full; ++v)
                    merge(static_cast<int>(v % chains), ptr[row_ + static_cast<std::int32_t>(at + v * vb)], all_pixels());
            }
            // The span's last pixels: the span's last whole vector, overlapping the one before (a max is
            // idempotent), or a vector's first `rest` pixels under a mask where the span is shorter than a vector.
            if (rest > 0 && full > 0)
                merge(0, ptr[row_ + static_cast<std::int32_t>(at + (span_pixels - g_) * bp_.block)], all_pixels());
            else if (rest > 0)
                merge(0, ptr[row_ + static_cast<std::int32_t>(at)], (1u << rest) - 1);
        }
        const Xmm acc = vec(acc_);
        copy(acc, chain(0));
        for (int c = 1; c < chains; ++c)
            if (started[static_cast<std::size_t>(c)]) max_into(acc, chain(c));
        // Across the pixels: halves of the vector, then quarters (zmm), then the two quadwords of 16 bytes (B = 8).
        const Xmm t = vec(shifted_);
        if (zmm_) {
            vshufi64x2(Xbyak::Zmm(shifted_), Xbyak::Zmm(acc_), Xbyak::Zmm(acc_), 0x4E);
            max_into(acc, t);
            vshufi64x2(Xbyak::Zmm(shifted_), Xbyak::Zmm(acc_), Xbyak::Zmm(acc_), 0xB1);
            max_into(acc, t);
        } else {
            vperm2i128(Xbyak::Ymm(shifted_), Xbyak::Ymm(acc_), Xbyak::Ymm(acc_), 0x01);
            max_into(acc, t);
        }
        if (bp_.block == 8) {
            vpshufd(t, acc, 0x4E);
            max_into(acc, t);
        }
        store(out_, 0, 1, true);
    }

    // One output row of a run whose windows' real rows are `taps` (row_ at the first, out_ at the output row).
    void output_row(std::int64_t taps) {
        const std::int64_t b = bp_.block, chunks = bp_.chunks();
        const std::int64_t left = std::min(bp_.interior_begin(), chunks);
        const std::int64_t right = std::max(left, std::min(bp_.interior_end(), chunks));
        const auto edge = [&](std::int64_t c) {
            const std::int64_t first = bp_.stride_w * c * g_;
            chunk(row_, first * b, out_, c * g_ * b, taps, true, first, std::min(g_, bp_.out_w - c * g_));
        };
        for (std::int64_t c = 0; c < left; ++c) edge(c);
        if (right > left) {
            Label loop;
            lea(x_, ptr[row_ + static_cast<std::int32_t>(bp_.stride_w * left * g_ * b)]);
            lea(d_, ptr[out_ + static_cast<std::int32_t>(left * g_ * b)]);
            mov(chunks_left_, right - left);
            L(loop);
            chunk(x_, 0, d_, 0, taps, false, 0, g_);
            add(x_, static_cast<std::int32_t>(bp_.stride_w * g_ * b));
            add(d_, static_cast<std::int32_t>(g_ * b));
            dec(chunks_left_);
            jnz(loop, T_NEAR);
        }
        for (std::int64_t c = right; c < chunks; ++c) edge(c);
    }

    void generate() {
        Label plane_loop, done, even_label, odd_label, tail_label;
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        push(rows_left_);
        push(chunks_left_);
        push(tmp_);
        // The empty value: 0, or -128 in every byte for s8.
        if (s8_) {
            mov(tmp_.cvt32(), 0x80);
            vmovd(Xmm(empty_), tmp_.cvt32());
            vpbroadcastb(vec(empty_), Xmm(empty_));
        } else {
            vpxor(Xbyak::Ymm(empty_), Xbyak::Ymm(empty_), Xbyak::Ymm(empty_));  // zeroes the zmm too
        }
        if (zmm_ && bp_.block == 8) {
            vmovdqu64(vec(even_index_), ptr[rip + even_label]);
            vmovdqu64(vec(odd_index_), ptr[rip + odd_label]);
        }
        if (tail_) load(vec(tail_mask()), ptr[rip + tail_label]);
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(plane_loop);
        for (const BlockedPixelRun& run : bp_.runs) {
            const std::int64_t taps = run.tap_end - run.tap_begin;
            // The run's first output row and its window's first real row (none: the row's first).
            const std::int64_t first_row =
                taps > 0 ? run.begin * bp_.stride_h - bp_.pad_h + run.tap_begin * bp_.dilation_h : 0;
            mov(row_, src_);
            add_constant(row_, first_row * bp_.src_row_bytes);
            mov(out_, dst_);
            add_constant(out_, run.begin * bp_.dst_row_bytes);
            const auto row = [&] {
                if (bp_.whole_row && taps > 0) output_row_whole(taps);
                else if (bp_.shifted && taps > 0) output_row_shifted(taps);
                else output_row(taps);
            };
            if (run.count == 1) {
                row();
                continue;
            }
            Label rows;
            mov(rows_left_, run.count);
            L(rows);
            row();
            add_constant(row_, std::int64_t{bp_.stride_h} * bp_.src_row_bytes);
            add_constant(out_, bp_.dst_row_bytes);
            dec(rows_left_);
            jnz(rows, T_NEAR);
        }
        add(src_, src_step_);
        add(dst_, dst_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        L(done);
        pop(tmp_);
        pop(chunks_left_);
        pop(rows_left_);
        vzeroupper();
        ret();
        // Data: the quadword indices, the ymm masks.
        align(64);
        L(even_label);
        for (int q = 0; q < 8; ++q) dq(static_cast<std::uint64_t>(2 * q));
        L(odd_label);
        for (int q = 0; q < 8; ++q) dq(static_cast<std::uint64_t>(2 * q + 1));
        // Each pixel's real lanes kept, its padded lanes 0.
        L(tail_label);
        for (int i = 0; i < 64; ++i) db(i % bp_.block < bp_.tail_lanes ? 0xFF : 0);
        for (auto& [quadwords, label] : ymm_masks_) {
            L(label);
            for (int q = 0; q < 4; ++q) dq(quadwords >> q & 1u ? ~std::uint64_t{0} : 0);
        }
    }

    const BlockedPixels& bp_;
    const bool s8_, zmm_, tail_;
    const std::int64_t g_;
    std::map<std::uint32_t, Label> ymm_masks_;
};

// The full entry, and for a partial last block the tail entry.
class BlockedPixelKernel final : public CompiledKernel {
public:
    explicit BlockedPixelKernel(const KernelPlan& plan)
        : tail_(plan.blocked_pixels.tail_lanes > 0),
          code_(tail_ ? ExecutableCode{BlockedPixelEmitter(plan, false).code(), BlockedPixelEmitter(plan, true).code()}
                      : ExecutableCode{BlockedPixelEmitter(plan, false).code()}) {}
    KernelFn full_block() const override { return code_.function<KernelFn>(0); }
    KernelFn tail_block() const override { return tail_ ? code_.function<KernelFn>(1) : nullptr; }
    std::size_t code_size() const override { return code_.code_size(); }
    std::vector<CodeRegion> code_regions() const override {
        std::vector<CodeRegion> regions{{"full", code_.entry(0), code_.entry_size(0)}};
        if (tail_) regions.push_back({"tail", code_.entry(1), code_.entry_size(1)});
        return regions;
    }

private:
    bool tail_;
    ExecutableCode code_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_blocked_pixels(const KernelPlan& plan) {
    return std::make_unique<BlockedPixelKernel>(plan);
}

}  // namespace pooljit::jit
