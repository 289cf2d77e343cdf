// Flat planes (KernelPlan::flat_planes): planar u8/s8 2-D values at stride 1 whose outputs sit at their inputs'
// positions. A call computes `rows` planes of one image, one after another, each plane's bytes as one span of
// vectors that cross its rows (the last vector overlapping the one before where the plane is not whole vectors):
//
//   - width pass: a vector's maximum over the width taps dx in [-pad_w, kernel_w - 1 - pad_w], each tap loaded at
//     the vector's offset + dx; the lanes whose tap lies in another row (column + dx outside [0, W)) take the
//     empty value from a min with a mask of the code's data (0xFF or 0x00 for u8, 0x7F or 0x80 for s8), one per
//     phase of the vector along the row and tap. A tap whose load would start before the plane or end past it
//     loads the plane's first or last vector and shifts its bytes into place: the bytes shifted in are masked.
//     Stored into a stack buffer of the plane with pad_h rows of the empty value before it and
//     kernel_h - 1 - pad_h rows after;
//   - height pass: a vector's maximum over the buffer's kernel_h rows, W bytes apart, stored.
//
// Integer maxima have no order to keep: the first maximum and any other are the same bits. Nothing is read
// outside the call's planes, and nothing is written outside its output planes.
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pooljit::jit {
namespace {

class FlatPlaneEmitter : public Xbyak::CodeGenerator {
public:
    explicit FlatPlaneEmitter(const KernelPlan& plan)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), flat_(plan.flat_planes), width_(flat_.vector_bytes),
          signed_(plan.dtype == DType::s8) {
        const std::int64_t reach_after = flat_.kernel_w - 1 - flat_.pad_w;
        if (plan.strategy != Strategy::ncx_planes || (plan.dtype != DType::u8 && plan.dtype != DType::s8) ||
            plan.has_indices || (width_ != 16 && width_ != 32) || flat_.width < 1 || flat_.height < 1 ||
            flat_.elements() < width_ || flat_.pad_w < 0 || flat_.pad_w > 15 || reach_after < 0 || reach_after > 15 ||
            flat_.pad_h < 0 || flat_.pad_h >= flat_.kernel_h || flat_.buffer_bytes() > max_buffer_bytes_)
            throw Error("jit: flat planes need u8/s8 planes of at least one 16- or 32-byte vector without indices, width "
                        "taps at most 15 bytes from their output and a buffer of at most 64 KiB");
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Xmm = Xbyak::Xmm;
    using Label = Xbyak::Label;
    using Mask = std::array<std::uint8_t, 32>;

    static constexpr std::int64_t max_buffer_bytes_ = 64 * 1024, page_bytes_ = 4096;
    // General-purpose registers (caller-saved only): rdi carries the KernelArgs pointer, then the caller's stack.
    const Reg64 args_ = rdi, saved_rsp_ = rdi;
    const Reg64 src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10, buffer_ = rax;
    // Vector registers by role: the empty value, the shifts' scratch, then the maxima and the taps, each role's
    // registers taken in turn (a window's taps never take its maximum's register).
    static constexpr int empty_ = 0, shift_scratch_ = 1, first_maximum_ = 2, first_tap_ = 9, registers_ = 16;

    Xmm vec(int i) const { return width_ == 32 ? Xbyak::Ymm(i) : Xmm(i); }
    void load(const Xmm& to, const Xbyak::Address& from) { vmovdqu(to, from); }
    void store(const Xbyak::Address& to, const Xmm& from) { vmovdqu(to, from); }
    void max(const Xmm& to, const Xmm& a, const Xbyak::Operand& b) {
        if (signed_) vpmaxsb(to, a, b);
        else vpmaxub(to, a, b);
    }
    void min(const Xmm& to, const Xmm& a, const Xbyak::Operand& b) {
        if (signed_) vpminsb(to, a, b);
        else vpminub(to, a, b);
    }
    Xbyak::Address at(const Reg64& base, std::int64_t offset) { return ptr[base + static_cast<std::int32_t>(offset)]; }
    std::uint8_t empty_byte() const { return signed_ ? 0x80 : 0x00; }

    // Vector v's offset in the plane: whole vectors, the last one ending at the plane's end.
    std::int64_t offset_of(std::int64_t v) const { return std::min(v * width_, flat_.elements() - width_); }

    // The mask of width tap dx for the vector at `offset`: keep (the type's highest byte) where the tap lies in
    // the lane's row, else the empty value. Null where every lane keeps its tap (no min needed).
    const Mask* mask_of(std::int64_t offset, std::int64_t tap_dx) {
        Mask m{};
        bool all_kept = true;
        for (int lane = 0; lane < width_; ++lane) {
            const std::int64_t column = (offset + lane) % flat_.width + tap_dx;
            const bool kept = column >= 0 && column < flat_.width;
            m[static_cast<std::size_t>(lane)] = kept ? (signed_ ? 0x7F : 0xFF) : empty_byte();
            all_kept = all_kept && kept;
        }
        if (all_kept) return nullptr;
        const auto [it, inserted] = masks_.try_emplace(m, masks_.size() * static_cast<std::size_t>(width_));
        return &it->first;
    }

    // to <- the plane's bytes [a, a + width_), where the load must stay inside [0, elements): a tap before the plane
    // loads its first vector and shifts the bytes up, one past it loads its last vector and shifts them down. The
    // bytes shifted in (zeros) belong to lanes whose tap lies outside the plane: masked.
    void load_tap(const Xmm& to, std::int64_t a) {
        const std::int64_t last = flat_.elements() - width_;
        const std::int64_t from = std::clamp<std::int64_t>(a, 0, last);
        load(to, at(src_, from));
        const auto shift = static_cast<std::uint8_t>(a < from ? from - a : a - from);
        if (shift == 0) return;
        const bool up = a < from;
        if (width_ == 16) {
            if (up) vpslldq(to, to, shift);
            else vpsrldq(to, to, shift);
            return;
        }
        const Xbyak::Ymm t(to.getIdx()), s(shift_scratch_);
        if (up) {
            vperm2i128(s, t, t, 0x08);                                 // [0, to.lo]
            vpalignr(t, t, s, static_cast<std::uint8_t>(16 - shift));  // each lane's bytes moved up by shift
        } else {
            vperm2i128(s, t, t, 0x81);  // [to.hi, 0]
            vpalignr(t, s, t, shift);   // each lane's bytes moved down by shift
        }
    }

    // The width pass of one plane: each vector's maximum over its width taps, into the buffer.
    void width_pass(const Label& masks) {
        int next_maximum = first_maximum_, next_tap = first_tap_;
        const auto take = [](int& next, int first, int end) {
            const int r = next;
            next = next + 1 == end ? first : next + 1;
            return r;
        };
        const std::int64_t pre = std::int64_t{flat_.pad_h} * flat_.width;
        for (std::int64_t v = 0; v < flat_.vectors(); ++v) {
            const std::int64_t offset = offset_of(v);
            const Xmm acc = vec(take(next_maximum, first_maximum_, first_tap_));
            bool started = false;
            for (std::int64_t tap_dx = -flat_.pad_w; tap_dx <= flat_.kernel_w - 1 - flat_.pad_w; ++tap_dx) {
                const Mask* mask = mask_of(offset, tap_dx);
                const std::int64_t a = offset + tap_dx;
                const bool direct = a >= 0 && a <= flat_.elements() - width_;
                Xmm tap = acc;
                if (started) tap = vec(take(next_tap, first_tap_, registers_));
                if (direct && !mask && started) {
                    max(acc, acc, at(src_, a));
                    continue;
                }
                load_tap(tap, a);
                if (mask) min(tap, tap, ptr[rip + masks + static_cast<std::int32_t>(masks_.at(*mask))]);
                if (started) max(acc, acc, tap);
                started = true;
            }
            store(at(buffer_, pre + offset), acc);
        }
    }

    // The height pass of one plane: each vector's maximum over the buffer's rows, into the output plane.
    void height_pass() {
        int next = first_maximum_;
        for (std::int64_t v = 0; v < flat_.vectors(); ++v) {
            const std::int64_t offset = offset_of(v);
            const Xmm acc = vec(next);
            next = next + 1 == registers_ ? first_maximum_ : next + 1;
            load(acc, at(buffer_, offset));
            for (std::int64_t r = 1; r < flat_.kernel_h; ++r) max(acc, acc, at(buffer_, offset + r * flat_.width));
            store(at(dst_, offset), acc);
        }
    }

    void generate() {
        Label masks, empty_vector, plane_loop, done;
        // The buffer: pad_h empty rows, the plane's width maxima, the empty rows after, and a vector of room for
        // the empty rows' last store. Probed a page at a time, as the stack grows.
        const std::int64_t room = (flat_.buffer_bytes() + width_ + 63) / 64 * 64 + 64;
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        mov(saved_rsp_, rsp);  // the arguments are read: rdi is free
        std::int64_t unprobed = room;
        for (; unprobed > page_bytes_; unprobed -= page_bytes_) {
            sub(rsp, static_cast<std::int32_t>(page_bytes_));
            or_(dword[rsp], 0);
        }
        sub(rsp, static_cast<std::int32_t>(unprobed));
        and_(rsp, -64);
        mov(buffer_, rsp);
        // The empty rows before and after the plane, written once a call (the width pass writes only the plane).
        load(vec(empty_), ptr[rip + empty_vector]);
        const std::int64_t pre = std::int64_t{flat_.pad_h} * flat_.width;
        const std::int64_t post_begin = pre + flat_.elements();
        for (std::int64_t o = 0; o < pre; o += width_) store(at(buffer_, o), vec(empty_));
        for (std::int64_t o = post_begin; o < flat_.buffer_bytes(); o += width_) store(at(buffer_, o), vec(empty_));
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(plane_loop);
        width_pass(masks);
        height_pass();
        add(src_, src_step_);
        add(dst_, dst_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        L(done);
        mov(rsp, saved_rsp_);
        vzeroupper();
        ret();
        align(32);
        L(empty_vector);
        for (int i = 0; i < 32; ++i) db(empty_byte());
        L(masks);
        std::vector<const Mask*> in_order(masks_.size());
        for (const auto& [mask, offset] : masks_) in_order[offset / static_cast<std::size_t>(width_)] = &mask;
        for (const Mask* mask : in_order)
            for (int i = 0; i < width_; ++i) db((*mask)[static_cast<std::size_t>(i)]);
    }

    const FlatPlanes& flat_;
    const int width_;
    const bool signed_;
    std::map<Mask, std::size_t> masks_;  // each distinct mask, by its offset in the table
};

class FlatPlaneKernel final : public CompiledKernel {
public:
    explicit FlatPlaneKernel(const KernelPlan& plan) : code_{FlatPlaneEmitter(plan).code()} {}
    KernelFn full_block() const override { return code_.function<KernelFn>(0); }
    KernelFn tail_block() const override { return nullptr; }
    std::size_t code_size() const override { return code_.code_size(); }
    std::vector<CodeRegion> code_regions() const override { return {{"full", code_.entry(0), code_.entry_size(0)}}; }

private:
    ExecutableCode code_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_flat_planes(const KernelPlan& plan) {
    return std::make_unique<FlatPlaneKernel>(plan);
}

}  // namespace pooljit::jit
