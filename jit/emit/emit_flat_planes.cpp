// Flat planes (KernelPlan::flat_planes): planar u8/s8/s32/f32/bf16/f16 2-D values at stride 1 (any dilation) whose
// outputs sit at their inputs' positions. bf16 and f16 widen as they load (bf16 planes of windows of 5 width taps
// or more are widened once, into the stack: FlatPlanes::converts_plane) and run the f32 code; the buffer holds
// f32, and each output vector narrows back to the selected element's bits. bf16: a word to the top of a dword
// (its f32 value, exactly) and back. f16: `vcvtph2ps` and `vcvtps2ph`, exact for every value but NaN, which the
// conversion quiets: the fast code never stores a NaN (a plane that holds one runs the exact copy under propagate;
// ignore skips them), and the exact copy gives each NaN lane the f32 NaN 0x7FC00000 | its bits, stored back as
// its own 16 bits. A call computes `rows` planes of one image, one after another, each plane's elements as one
// span of vectors that cross its rows (the last vector overlapping the one before where the plane is not whole
// vectors); where the input's or the output's rows lie apart (a view's row pitch), both passes take a row at a
// time instead, its whole vectors and one overlapping the last (width_rows, height_rows):
//
//   - width pass: a vector's maximum over the width taps dx = j * dilation_w - pad_w, each tap loaded at
//     the vector's offset + dx; the lanes whose tap lies in another row (column + dx outside [0, W)) take the
//     empty value from a mask of the code's data, one per phase of the vector along the row and tap (integers: a
//     min with the type's highest or lowest value; f32: an and and an or, which leave no NaN in a masked lane). A
//     tap whose load would start before the plane or end past it loads the plane's first or last vector and moves
//     its elements into place (bytes: shifted within 16-byte lanes; 32-bit elements: permuted): the lanes moved
//     in are masked. Stored into a stack buffer of the plane with pad_h rows of the empty value before it and
//     extent_h - 1 - pad_h rows after;
//   - height pass: a vector's maximum over the buffer's kernel_h rows, dilation_h * W elements apart, stored.
//
// Integer maxima have no order to keep (ties have equal bits). f32 merges each tap into the maximum so far with
// `vmaxps acc, tap, acc`, which keeps the maximum so far on a tie (+0 and -0: the first in scan order) and on a
// NaN: under nan=ignore the maximum starts from -inf and a NaN is skipped as the rule asks; under nan=propagate
// each vector's own elements (its tap at dx = 0, which the planner requires) add into a watch, and a plane whose
// watch ends NaN (or an inf minus an inf) runs again in exact compares, a tap taken where the maximum so far is
// not NaN and the tap is greater or NaN: each window's first NaN. Nothing is read outside the call's planes, and nothing is written
// outside its output planes.
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace pooljit::jit {
namespace {

class FlatPlaneEmitter : public Xbyak::CodeGenerator {
public:
    explicit FlatPlaneEmitter(const KernelPlan& plan)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), flat_(plan.flat_planes), dtype_(plan.dtype),
          width_(flat_.vector_bytes), lanes_(flat_.lanes), elem_(flat_.lanes > 0 ? flat_.vector_bytes / flat_.lanes : 0),
          widened_(plan.dtype == DType::bf16 || plan.dtype == DType::f16), half_(plan.dtype == DType::f16),
          converted_(plan.flat_planes.converts_plane), data_elem_(widened_ ? 2 : elem_),
          src_elem_(converted_ ? 4 : data_elem_),
          float_(plan.dtype == DType::f32 || widened_), watch_(float_ && plan.nan == NanPolicy::propagate) {
        const std::int64_t reach_after = flat_.extent_w() - 1 - flat_.pad_w;
        const bool bytes = dtype_ == DType::u8 || dtype_ == DType::s8;
        const bool dwords = dtype_ == DType::s32 || dtype_ == DType::f32 || widened_;
        const std::int64_t reach = bytes ? 15 : lanes_ - 1;
        if (plan.strategy != Strategy::ncx_planes || plan.has_indices || !(bytes || dwords) ||
            (bytes && elem_ != 1) || (dwords && (elem_ != 4 || width_ != 32)) || (width_ != 16 && width_ != 32) ||
            flat_.width < 1 || flat_.height < 1 || flat_.pitch < flat_.width || flat_.out_pitch < flat_.width ||
            (flat_.pitched() && flat_.width < lanes_) || flat_.out_pitch > std::numeric_limits<std::int32_t>::max() / data_elem_ ||
            flat_.elements() < lanes_ || flat_.pad_w < 0 || flat_.pad_w > reach ||
            reach_after < 0 || reach_after > reach || flat_.pad_h < 0 || flat_.pad_h >= flat_.extent_h() ||
            flat_.dilation_w < 1 || flat_.dilation_h < 1 || (watch_ && flat_.pad_w % flat_.dilation_w != 0) ||
            flat_.buffer_elements() * elem_ > max_buffer_bytes_ || (converted_ && (!widened_ || half_)))
            throw Error("jit: flat planes need u8/s8 planes of at least one 16- or 32-byte vector, or s32/f32/bf16/f16 "
                        "planes of a 32-byte one (bf16 and f16 widened), without indices, width taps at most 15 bytes "
                        "or 7 elements from their output, row pitches of the width or more (rows of a vector at least "
                        "where one is not the width, an output row step under 2^31 bytes), a buffer of at most 64 KiB and, under a NaN watch, a width "
                        "tap at each output's column; only bf16 planes are converted once");
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Xmm = Xbyak::Xmm;
    using Label = Xbyak::Label;
    // A mask or permute of the code's data: its bytes (an f32 mask is an and and an or, 2 vectors).
    using Bytes = std::array<std::uint8_t, 64>;

    static constexpr std::int64_t max_buffer_bytes_ = 64 * 1024, page_bytes_ = 4096;
    // General-purpose registers (caller-saved only): rdi carries the KernelArgs pointer, then the caller's stack.
    const Reg64 args_ = rdi, saved_rsp_ = rdi;
    const Reg64 src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10, buffer_ = rax;
    // A loop's cursors (into the plane and the buffer, or the buffer and the output) and its count (saved).
    const Reg64 cursor_ = r11, second_cursor_ = rcx, count_ = rbx;
    // The plane's own address while src_ points at its converted copy (bf16 planes; saved).
    const Reg64 plane_src_ = r12;
    // Vector registers by role: the empty value, the moves' scratch, then the maxima, the taps (and the exact
    // merges' compares) and the watch's running sums, each role's registers taken in turn.
    static constexpr int empty_ = 0, scratch_ = 1, first_maximum_ = 2, first_tap_ = 7, first_sum_ = 12, registers_ = 16;
    static constexpr int sums_ = registers_ - first_sum_;

    Xmm vec(int i) const { return width_ == 32 ? Xbyak::Ymm(i) : Xmm(i); }
    static int take(int& next, int first, int end) {
        const int r = next;
        next = next + 1 == end ? first : next + 1;
        return r;
    }
    Xmm next_maximum() { return vec(take(next_maximum_, first_maximum_, first_tap_)); }
    Xmm next_tap() { return vec(take(next_tap_, first_tap_, first_sum_)); }

    void load(const Xmm& to, const Xbyak::Address& from) { vmovdqu(to, from); }
    void store(const Xbyak::Address& to, const Xmm& from) { vmovdqu(to, from); }
    // to <- the maximum of `to` (so far) and b: f32 keeps `to` on a tie and on a NaN (b must be a register).
    void max_into(const Xmm& to, const Xbyak::Operand& b) {
        switch (dtype_) {
            case DType::u8: vpmaxub(to, to, b); break;
            case DType::s8: vpmaxsb(to, to, b); break;
            case DType::s32: vpmaxsd(to, to, b); break;
            default: vmaxps(to, static_cast<const Xmm&>(b), to); break;
        }
    }
    // Exact f32 merge (planes that hold a NaN): acc takes b where acc is not NaN and b is greater or NaN.
    void exact_max_into(const Xmm& acc, const Xmm& b) {
        const Xmm ordered = next_tap(), greater = next_tap();
        vcmpps(ordered, acc, acc, 7);   // ordered: acc is not NaN
        vcmpps(greater, b, acc, 6);     // not less or equal, unordered: b > acc, or a NaN
        vandps(ordered, ordered, greater);
        vblendvps(acc, acc, b, ordered);
    }
    // Where the code reads and writes: each tensor's register and the element it points at (a loop's cursors
    // point into the plane; straight code uses the plane's own registers, at element 0).
    struct Bases {
        Reg64 src, buffer, dst;
        std::int64_t src_element = 0, buffer_element = 0, dst_element = 0;
    };
    Bases plane_bases() const { return {src_, buffer_, dst_}; }
    Xbyak::Address src_at(std::int64_t e) {
        return ptr[bases_.src + static_cast<std::int32_t>((e - bases_.src_element) * src_elem_)];
    }
    Xbyak::Address buffer_at(std::int64_t e) {
        return ptr[bases_.buffer + static_cast<std::int32_t>((e - bases_.buffer_element) * elem_)];
    }
    Xbyak::Address dst_at(std::int64_t e) {
        return ptr[bases_.dst + static_cast<std::int32_t>((e - bases_.dst_element) * data_elem_)];
    }
    // A vector of the input as the code computes it: bf16 widened (each word the top of its dword); f16 converted,
    // and in the exact copy each NaN lane replaced by 0x7FC00000 | its bits (the watch's sums are free there).
    void load_input(const Xmm& to, const Xbyak::Address& from, bool exact) {
        if (!widened_) return load(to, from);
        if (!half_) {
            vpmovzxwd(to, from);
            vpslld(to, to, 16);
            return;
        }
        vcvtph2ps(to, from);
        if (!exact) return;
        const Xmm raw = vec(first_sum_), nan = vec(first_sum_ + 1);
        vpmovzxwd(raw, from);
        vpor(raw, raw, ptr[rip + constants_label_ + quiet_nan_at_]);
        vcmpps(nan, to, to, 3);  // unordered: a NaN lane
        vblendvps(to, to, raw, nan);
    }
    // A vector of outputs: bf16 narrowed (the top words, packed in order); f16 converted, and in the exact copy
    // each NaN lane's low 16 bits.
    void store_output(const Xbyak::Address& to, const Xmm& from, bool exact) {
        if (!widened_) return store(to, from);
        const Xbyak::Ymm y(from.getIdx());
        const Xmm x(from.getIdx());
        if (!half_) {
            vpsrld(y, y, 16);
            vpackusdw(y, y, y);  // each 128-bit lane: its 4 words twice
            vpermq(y, y, 0x08);
            vmovdqu(to, x);
            return;
        }
        if (!exact) {
            vcvtps2ph(x, y, 0);  // exact: every value came from an f16
            vmovdqu(to, x);
            return;
        }
        const Xbyak::Ymm nan(first_sum_), bits(first_sum_ + 1), half(first_sum_ + 2);
        vcmpps(nan, y, y, 3);
        vpand(bits, y, ptr[rip + constants_label_ + low_words_at_]);
        vcvtps2ph(Xmm(half.getIdx()), y, 0);
        vpackusdw(bits, bits, bits);
        vpermq(bits, bits, 0x08);
        vpackssdw(nan, nan, nan);
        vpermq(nan, nan, 0x08);
        vpblendvb(Xmm(half.getIdx()), Xmm(half.getIdx()), Xmm(bits.getIdx()), Xmm(nan.getIdx()));
        vmovdqu(to, Xmm(half.getIdx()));
    }

    // The empty value's bytes, the type's highest value's, and -inf's and a kept lane's for the f32 masks.
    void put_lane(Bytes& to, int lane, std::uint32_t bits) const {
        std::memcpy(to.data() + static_cast<std::size_t>(lane * elem_), &bits, static_cast<std::size_t>(elem_));
    }
    std::uint32_t empty_bits() const {
        switch (dtype_) {
            case DType::u8: return 0;
            case DType::s8: return 0x80;
            case DType::s32: return 0x80000000u;
            default: return 0xFF800000u;  // -inf
        }
    }
    std::uint32_t highest_bits() const { return dtype_ == DType::u8 ? 0xFF : dtype_ == DType::s8 ? 0x7F : 0x7FFFFFFFu; }

    // Vector v's offset in the plane (elements): whole vectors, the last one ending at the plane's end.
    std::int64_t offset_of(std::int64_t v) const { return std::min(v * lanes_, flat_.elements() - lanes_); }

    // The offset in the data of the mask of width tap dx for the vector at `offset`, or -1 where every lane keeps
    // its tap. Integers: the type's highest value where the tap lies in the lane's row, else the empty value
    // (a min). f32: all ones and then 0 where it does, 0 and then -inf where it does not (an and, then an or).
    // (Over a row pitch the width pass takes a row at a time: no lane lies in a gap.)
    std::int64_t mask_of(std::int64_t offset, std::int64_t tap_dx) {
        Bytes m{};
        bool all_kept = true;
        for (int lane = 0; lane < lanes_; ++lane) {
            const std::int64_t column = (offset + lane) % flat_.pitch + tap_dx;
            const bool kept = column >= 0 && column < flat_.width;
            all_kept = all_kept && kept;
            if (!float_) {
                put_lane(m, lane, kept ? highest_bits() : empty_bits());
                continue;
            }
            put_lane(m, lane, kept ? 0xFFFFFFFFu : 0u);
            put_lane(m, lane + lanes_, kept ? 0u : empty_bits());
        }
        if (all_kept) return -1;
        const auto [it, inserted] = masks_.try_emplace(m, mask_bytes_);
        if (inserted) mask_bytes_ += float_ ? 2 * width_ : width_;
        return it->second;
    }
    void apply_mask(const Xmm& tap, std::int64_t mask) {
        const auto from = [&](std::int64_t extra) { return ptr[rip + masks_label_ + static_cast<std::int32_t>(mask + extra)]; };
        switch (dtype_) {
            case DType::u8: vpminub(tap, tap, from(0)); break;
            case DType::s8: vpminsb(tap, tap, from(0)); break;
            case DType::s32: vpminsd(tap, tap, from(0)); break;
            default:
                vandps(tap, tap, from(0));
                vorps(tap, tap, from(width_));
        }
    }

    // to <- the plane's elements [a, a + lanes_), where the load must stay inside [0, elements): a tap before the
    // plane loads its first vector and moves the elements up, one past it loads its last vector and moves them
    // down. The lanes moved in belong to taps that lie outside the plane: masked.
    void load_tap(const Xmm& to, std::int64_t a, bool exact) {
        const std::int64_t from = std::clamp<std::int64_t>(a, 0, flat_.elements() - lanes_);
        const std::int64_t move = a - from;  // < 0: up, > 0: down
        if (move == 0) return converted_ ? load(to, src_at(from)) : load_input(to, src_at(from), exact);
        if (elem_ == 4) {
            // Lane j takes element j + move of the loaded vector (clamped: a lane outside is masked).
            Bytes index{};
            for (int lane = 0; lane < lanes_; ++lane)
                put_lane(index, lane, static_cast<std::uint32_t>(std::clamp<std::int64_t>(lane + move, 0, lanes_ - 1)));
            const auto [it, inserted] = permutes_.try_emplace(index, permute_bytes_);
            if (inserted) permute_bytes_ += width_;
            const Xbyak::Ymm t(to.getIdx()), s(scratch_);
            if (widened_ && !converted_) {
                load_input(t, src_at(from), exact);
                vmovdqu(s, ptr[rip + permutes_label_ + static_cast<std::int32_t>(it->second)]);
                vpermd(t, s, t);
            } else {
                vmovdqu(s, ptr[rip + permutes_label_ + static_cast<std::int32_t>(it->second)]);
                vpermd(t, s, src_at(from));
            }
            return;
        }
        load(to, src_at(from));
        const auto shift = static_cast<std::uint8_t>(move < 0 ? -move : move);
        if (width_ == 16) {
            if (move < 0) vpslldq(to, to, shift);
            else vpsrldq(to, to, shift);
            return;
        }
        const Xbyak::Ymm t(to.getIdx()), s(scratch_);
        if (move < 0) {
            vperm2i128(s, t, t, 0x08);                                 // [0, to.lo]
            vpalignr(t, t, s, static_cast<std::uint8_t>(16 - shift));  // each lane's bytes moved up by shift
        } else {
            vperm2i128(s, t, t, 0x81);  // [to.hi, 0]
            vpalignr(t, s, t, shift);   // each lane's bytes moved down by shift
        }
    }

    // Vector v's maximum over its width taps, into the buffer. `exact`: the f32 exact merges.
    void width_vector(std::int64_t v, bool exact) { width_vector_at(offset_of(v), exact); }
    // The maximum over its width taps of the vector at the plane's element `offset`, into the buffer.
    void width_vector_at(std::int64_t offset, bool exact) {
        const Xmm acc = next_maximum();
        bool started = false;
        for (std::int64_t j = 0; j < flat_.kernel_w; ++j) {
            const std::int64_t tap_dx = j * flat_.dilation_w - flat_.pad_w;
            const std::int64_t mask = mask_of(offset, tap_dx);
            const std::int64_t a = offset + tap_dx;
            const bool direct = a >= 0 && a <= flat_.elements() - lanes_;
            if (!float_ && direct && mask < 0 && started) {
                max_into(acc, src_at(a));  // integer ties have equal bits: the load folds into the max
                continue;
            }
            const Xmm tap = started || (float_ && !watch_) ? next_tap() : acc;
            load_tap(tap, a, exact);
            if (mask >= 0) apply_mask(tap, mask);
            if (watch_ && !exact && tap_dx == 0) {
                const Xmm sum = vec(take(next_sum_, first_sum_, registers_));
                vaddps(sum, sum, tap);
            }
            if (float_ && !watch_ && !started) vmaxps(acc, tap, vec(empty_));  // ignore: from -inf, a NaN skipped
            else if (started && exact) exact_max_into(acc, tap);
            else if (started) max_into(acc, tap);
            started = true;
        }
        store(buffer_at(std::int64_t{flat_.pad_h} * flat_.pitch + offset), acc);
    }

    // The maximum over the buffer's rows of the vector at `offset` (the buffer's element; the output's at
    // `out_offset`), into the output plane.
    void height_vector_at(std::int64_t offset, std::int64_t out_offset, bool exact) {
        const Xmm acc = next_maximum();
        load(acc, buffer_at(offset));
        for (std::int64_t r = 1; r < flat_.kernel_h; ++r) {
            if (!float_) {
                max_into(acc, buffer_at(offset + r * flat_.dilation_h * flat_.pitch));
                continue;
            }
            const Xmm row = next_tap();
            load(row, buffer_at(offset + r * flat_.dilation_h * flat_.pitch));
            if (exact) exact_max_into(acc, row);
            else max_into(acc, row);
        }
        store_output(dst_at(out_offset), acc, exact);
    }
    void height_vector(std::int64_t v, bool exact) { height_vector_at(offset_of(v), offset_of(v), exact); }

    // The width pass over a row pitch: a row at a time, its whole vectors and one overlapping the last, so no lane
    // computes a gap. The first and last rows are straight code (their taps may reach past the plane's ends, where
    // the loads move); the rows between loop, their taps loading in place (a row of a vector at least and taps at
    // most 7 elements or 15 bytes from their output: a tap of a middle row stays inside the plane's span).
    void width_rows(bool exact) {
        const std::int64_t pre = std::int64_t{flat_.pad_h} * flat_.pitch;
        const auto row = [&](std::int64_t r) {
            for (std::int64_t k = 0; k < flat_.row_vectors(); ++k)
                width_vector_at(r * flat_.pitch + std::min(k * lanes_, flat_.width - lanes_), exact);
        };
        bases_ = plane_bases();
        row(0);
        if (flat_.height >= 3) {
            lea(cursor_, ptr[src_ + static_cast<std::int32_t>(flat_.pitch * src_elem_)]);
            lea(second_cursor_, ptr[buffer_ + static_cast<std::int32_t>((pre + flat_.pitch) * elem_)]);
            mov(count_, flat_.height - 2);
            Label middle;
            L(middle);
            bases_ = Bases{cursor_, second_cursor_, dst_, flat_.pitch, pre + flat_.pitch, 0};
            row(1);
            add(cursor_, static_cast<std::int32_t>(flat_.pitch * src_elem_));
            add(second_cursor_, static_cast<std::int32_t>(flat_.pitch * elem_));
            dec(count_);
            jnz(middle, T_NEAR);
            bases_ = plane_bases();
        }
        if (flat_.height >= 2) row(flat_.height - 1);
    }

    // The height pass over a row pitch: a row at a time in a loop, its whole vectors and one overlapping the last
    // (rows of a vector at least), so no store reaches into the output's gap.
    void height_rows(bool exact) {
        mov(cursor_, buffer_);
        mov(second_cursor_, dst_);
        mov(count_, flat_.height);
        Label row;
        L(row);
        bases_ = Bases{src_, cursor_, second_cursor_, 0, 0, 0};
        for (std::int64_t k = 0; k < flat_.row_vectors(); ++k) {
            const std::int64_t column = std::min(k * lanes_, flat_.width - lanes_);
            height_vector_at(column, column, exact);
        }
        bases_ = plane_bases();
        add(cursor_, static_cast<std::int32_t>(flat_.pitch * elem_));
        add(second_cursor_, static_cast<std::int32_t>(flat_.out_pitch * data_elem_));
        dec(count_);
        jnz(row, T_NEAR);
    }

    // A pass over the plane's vectors: straight code, or where [loop_begin, loop_end) holds at least two periods
    // of `period` vectors whose code is the same, those in a loop of whole periods, addressed through `looped`
    // (its cursors start at the addresses given and advance a period's elements a pass, of cursor_elem and
    // second_cursor_elem bytes).
    template <class Vector>
    void pass(std::int64_t loop_begin, std::int64_t loop_end, std::int64_t period, const Bases& looped,
              const Xbyak::Address& cursor_start, const Xbyak::Address& second_cursor_start, int cursor_elem,
              int second_cursor_elem, Vector vector) {
        bases_ = plane_bases();
        const std::int64_t periods = loop_end - loop_begin >= 2 * period ? (loop_end - loop_begin) / period : 0;
        std::int64_t v = 0;
        if (periods > 0) {
            for (; v < loop_begin; ++v) vector(v);
            lea(cursor_, cursor_start);
            lea(second_cursor_, second_cursor_start);
            mov(count_, periods);
            Label loop;
            L(loop);
            bases_ = looped;
            for (std::int64_t j = 0; j < period; ++j) vector(loop_begin + j);
            add(cursor_, static_cast<std::int32_t>(period * lanes_ * cursor_elem));
            add(second_cursor_, static_cast<std::int32_t>(period * lanes_ * second_cursor_elem));
            dec(count_);
            jnz(loop, T_NEAR);
            bases_ = plane_bases();
            v = loop_begin + periods * period;
        }
        for (; v < flat_.vectors(); ++v) vector(v);
    }

    // A converted plane (bf16, FlatPlanes::converts_plane): the plane at src_ widened to f32 into the stack at
    // converted_offset(), once a pass over it (the exact copy's conversion as its loads would take it); src_ then
    // points there for the passes, and back at the plane after them (saved in plane_src_).
    void convert_plane(bool exact) {
        const std::int64_t whole = flat_.elements() / lanes_;
        Label loop;
        mov(cursor_, src_);
        lea(second_cursor_, ptr[buffer_ + static_cast<std::int32_t>(converted_offset())]);
        mov(count_, whole);
        L(loop);
        load_input(vec(scratch_), ptr[cursor_], exact);
        vmovups(ptr[second_cursor_], vec(scratch_));
        add(cursor_, static_cast<std::int32_t>(lanes_ * data_elem_));
        add(second_cursor_, static_cast<std::int32_t>(lanes_ * src_elem_));
        dec(count_);
        jnz(loop, T_NEAR);
        if (flat_.elements() % lanes_ != 0) {  // the last vector, overlapping the one before
            const std::int64_t last = flat_.elements() - lanes_;
            load_input(vec(scratch_), ptr[src_ + static_cast<std::int32_t>(last * data_elem_)], exact);
            vmovups(ptr[buffer_ + static_cast<std::int32_t>(converted_offset() + last * src_elem_)], vec(scratch_));
        }
        mov(plane_src_, src_);
        lea(src_, ptr[buffer_ + static_cast<std::int32_t>(converted_offset())]);
    }
    // The converted plane's offset from buffer_: after the buffer and its room, on a line of its own.
    std::int64_t converted_offset() const { return (flat_.buffer_elements() * elem_ + width_ + 63) / 64 * 64 + 64; }

    void plane(bool exact) {
        if (converted_) convert_plane(exact);
        plane_passes(exact);
        if (converted_) mov(src_, plane_src_);
    }

    void plane_passes(bool exact) {
        const std::int64_t whole = flat_.elements() / lanes_;
        const std::int64_t pre = std::int64_t{flat_.pad_h} * flat_.pitch;
        const std::int64_t reach_after = flat_.extent_w() - 1 - flat_.pad_w;
        // Width: vectors whose taps all load in place, their masks repeating every `period` vectors.
        std::int64_t first = 0;
        while (first * lanes_ < flat_.pad_w) ++first;
        std::int64_t last = whole;  // exclusive
        while (last > first && last * lanes_ + reach_after > flat_.elements()) --last;
        const std::int64_t period = flat_.pitch / std::gcd(flat_.pitch, std::int64_t{lanes_});
        if (flat_.pitched()) {
            width_rows(exact);
            return height_rows(exact);
        }
        // The width pass's cursors walk the plane and the buffer, the height pass's the buffer and the output.
        const Bases width{cursor_, second_cursor_, dst_, first * lanes_, pre + first * lanes_, 0};
        pass(first, last, period, width, ptr[src_ + static_cast<std::int32_t>(first * lanes_ * src_elem_)],
             ptr[buffer_ + static_cast<std::int32_t>((pre + first * lanes_) * elem_)], src_elem_, elem_,
             [&](std::int64_t v) { width_vector(v, exact); });
        // Height: whole vectors in a loop of height_unroll_.
        pass(0, whole, height_unroll_, Bases{src_, cursor_, second_cursor_, 0, 0, 0}, ptr[buffer_], ptr[dst_], elem_,
             data_elem_, [&](std::int64_t v) { height_vector(v, exact); });
    }

    void generate() {
        Label empty_vector, plane_loop, next_plane, exact_plane, done;
        // The buffer: pad_h empty rows, the plane's width maxima, the empty rows after, and a vector of room for
        // the empty rows' last store. Probed a page at a time, as the stack grows.
        const std::int64_t buffer_bytes = flat_.buffer_elements() * elem_;
        const std::int64_t room =
            converted_ ? converted_offset() + (flat_.elements() * src_elem_ + 63) / 64 * 64 : (buffer_bytes + width_ + 63) / 64 * 64 + 64;
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        push(count_);
        push(plane_src_);
        mov(saved_rsp_, rsp);  // the arguments are read: rdi is free
        // Steps of a page less the alignment's 63 bytes: the last step and the alignment together stay within a
        // page of the last probe, so no page is passed untouched.
        constexpr std::int64_t probe_step = page_bytes_ - 64;
        std::int64_t unprobed = room;
        for (; unprobed > probe_step; unprobed -= probe_step) {
            sub(rsp, static_cast<std::int32_t>(probe_step));
            or_(dword[rsp], 0);
        }
        sub(rsp, static_cast<std::int32_t>(unprobed));
        and_(rsp, -64);
        or_(dword[rsp], 0);  // the alignment may pass the last page probed
        mov(buffer_, rsp);
        // The empty rows before and after the plane, written once a call (the width pass writes only the plane).
        load(vec(empty_), ptr[rip + empty_vector]);
        const std::int64_t pre = std::int64_t{flat_.pad_h} * flat_.pitch * elem_;
        for (std::int64_t o = 0; o < pre; o += width_) store(ptr[buffer_ + static_cast<std::int32_t>(o)], vec(empty_));
        for (std::int64_t o = pre + flat_.elements() * elem_; o < buffer_bytes; o += width_)
            store(ptr[buffer_ + static_cast<std::int32_t>(o)], vec(empty_));
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(plane_loop);
        // Each plane's watch starts from zero: a +inf in one plane and a -inf in the next must not look like a NaN.
        if (watch_)
            for (int i = 0; i < sums_; ++i) vxorps(vec(first_sum_ + i), vec(first_sum_ + i), vec(first_sum_ + i));
        plane(false);
        if (watch_) {
            // The sums, added together, are NaN where some element of the plane was (or an inf met a -inf).
            const Xmm total = vec(first_tap_), check = vec(first_tap_ + 1);
            vaddps(total, vec(first_sum_), vec(first_sum_ + 1));
            vaddps(check, vec(first_sum_ + 2), vec(first_sum_ + 3));
            vaddps(total, total, check);
            vcmpps(check, total, total, 3);  // unordered
            vtestps(check, check);
            jnz(exact_plane, T_NEAR);
        }
        L(next_plane);
        add(src_, src_step_);
        add(dst_, dst_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        L(done);
        mov(rsp, saved_rsp_);
        pop(plane_src_);
        pop(count_);
        vzeroupper();
        ret();
        if (watch_) {
            L(exact_plane);
            plane(true);
            jmp(next_plane, T_NEAR);
        }
        align(32);
        L(empty_vector);
        Bytes empty{};
        for (int lane = 0; lane < 32 / elem_; ++lane) put_lane(empty, lane, empty_bits());
        for (int i = 0; i < 32; ++i) db(empty[static_cast<std::size_t>(i)]);
        // The masks and permutes, each at the offset the code reads it from.
        const auto put_table = [&](Label& label, const std::map<Bytes, std::int64_t>& table, std::int64_t bytes,
                                   int entry_bytes) {
            L(label);
            std::vector<std::uint8_t> data(static_cast<std::size_t>(bytes));
            for (const auto& [entry, offset] : table)
                std::copy_n(entry.begin(), entry_bytes, data.begin() + static_cast<std::ptrdiff_t>(offset));
            for (const std::uint8_t b : data) db(b);
        };
        put_table(masks_label_, masks_, mask_bytes_, float_ ? 2 * width_ : width_);
        put_table(permutes_label_, permutes_, permute_bytes_, width_);
        if (half_) {
            align(32);
            L(constants_label_);
            for (int i = 0; i < 8; ++i) dd(0x7FC00000u);
            for (int i = 0; i < 8; ++i) dd(0x0000FFFFu);
        }
    }

    const FlatPlanes& flat_;
    const DType dtype_;
    // elem_: a lane's bytes as the code computes (and the buffer holds); data_elem_: an input or output element's.
    const int width_, lanes_, elem_;
    const bool widened_, half_;
    // The plane converted to f32 once into the stack (FlatPlanes::converts_plane): the passes read it there.
    const bool converted_;
    // data_elem_: an input or output element's bytes; src_elem_: the bytes of an element the passes read.
    const int data_elem_, src_elem_;
    // f16's exact copy: its constants' offsets after constants_label_ (0x7FC00000, then 0x0000FFFF, each dword).
    static constexpr std::int32_t quiet_nan_at_ = 0, low_words_at_ = 32;
    const bool float_, watch_;
    Label masks_label_, permutes_label_, constants_label_;
    std::map<Bytes, std::int64_t> masks_, permutes_;  // each distinct entry, by its offset in its table
    std::int64_t mask_bytes_ = 0, permute_bytes_ = 0;
    int next_maximum_ = first_maximum_, next_tap_ = first_tap_, next_sum_ = first_sum_;
    Bases bases_{src_, buffer_, dst_};
    // Output vectors a pass of the height loop (no masks: any count).
    static constexpr std::int64_t height_unroll_ = 4;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_flat_planes(const KernelPlan& plan) {
    return std::make_unique<OneEntryKernel<FlatPlaneEmitter>>(plan);
}

}  // namespace pooljit::jit
