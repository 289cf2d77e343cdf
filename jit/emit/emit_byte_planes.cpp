// Byte planes (KernelPlan::byte_planes): planar u8/s8 windows of the whole plane, without indices. A call computes
// `rows` planes of one image, each one output byte. The planes go in groups of G = byte_planes.vector_bytes:
//
//   - each plane of a group is read in vectors of G bytes, the last one overlapping the one before where the
//     plane is not a whole number of them (a maximum may see an element twice), and maxed into one vector;
//   - the group's G vectors are reduced together as they come, as a binary counter: two partial vectors of the
//     same level interleave (bytes, then words, dwords, quadwords, 128-bit lanes) and max into one of the next
//     level, which holds twice as many planes in half as many lanes each. After log2(G) levels one vector holds
//     the maxima of the group's planes in order: 3 (G - 1) operations for G outputs, where a reduction across
//     each plane's own lanes took 2 log2(G) and a store of one byte;
//   - the vector is stored whole where the group is full and the outputs are consecutive bytes, else byte by
//     byte from the stack.
//
// A call's last group may be short: its missing planes read the call's last plane again (a pointer that stops
// advancing), and only the real outputs are stored. Nothing is read outside the call's planes.
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pooljit::jit {
namespace {

class BytePlaneEmitter : public Xbyak::CodeGenerator {
public:
    explicit BytePlaneEmitter(const KernelPlan& plan)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), plan_(plan), width_(plan.byte_planes.vector_bytes),
          elements_(plan.byte_planes.elements), signed_(plan.dtype == DType::s8) {
        const BytePlanes& byte_planes = plan.byte_planes;
        // The loop reads whole vectors chains .. chains * (passes + 1) - 1 of the plane.
        const int chains = byte_planes.chains;
        const bool chains_fit = (chains == 1 || chains == 2 || chains == max_chains_) && chains <= byte_planes.loads() &&
                                byte_planes.loop_passes >= 0 &&
                                (byte_planes.loop_passes == 0 || chains * (byte_planes.loop_passes + 1) <= byte_planes.whole_vectors());
        if (plan.strategy != Strategy::ncx_width || (plan.dtype != DType::u8 && plan.dtype != DType::s8) ||
            plan.has_indices || (width_ != 16 && width_ != 32 && width_ != 64) || width_ > plan.vector_bytes || elements_ < width_ ||
            elements_ >= (std::int64_t{1} << 31) || !chains_fit)
            throw Error("jit: byte planes need u8/s8 planes without indices, of at least one vector of 16, 32 or "
                        "64 bytes (at most the ISA's vector) and less than 2^31 bytes, and 1, 2 or 4 chains over the loads");
        generate();
        ready();
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Xmm = Xbyak::Xmm;
    using Label = Xbyak::Label;

    // General-purpose registers: rdi carries the KernelArgs pointer, then the count of a byte-by-byte store.
    const Reg64 args_ = rdi, count_ = rdi;
    const Reg64 src_ = rsi, dst_ = rdx, planes_ = r8, src_step_ = r9, dst_step_ = r10, plane_ = rax, next_ = r11,
                group_src_step_ = rcx, byte_ = rbx;
    // Vector registers 0-15 only (VEX encodings serve 16- and 32-byte vectors on both ISAs), by role: the shared
    // routine's result, the plane's further chains of maxima, the interleave's scratch; the reduction's partial
    // vectors take the rest as they come and go.
    static constexpr int routine_result_ = 0, first_chain_ = 1, max_chains_ = 4;
    static constexpr int interleave_scratch_ = first_chain_ + max_chains_ - 1, first_level_register_ = interleave_scratch_ + 1;
    static constexpr int levels_max_ = 6;

    Xmm vec(int i) const {
        if (width_ == 64) return Xbyak::Zmm(i);
        if (width_ == 32) return Xbyak::Ymm(i);
        return Xmm(i);
    }
    int levels() const {
        int l = 0;
        while ((1 << l) < width_) ++l;
        return l;
    }
    void load(const Xmm& to, const Xbyak::Address& from) {
        if (width_ == 64) vmovdqu64(to, from);
        else vmovdqu(to, from);
    }
    void max(const Xmm& to, const Xmm& a, const Xbyak::Operand& b) {
        if (signed_) vpmaxsb(to, a, b);
        else vpmaxub(to, a, b);
    }
    Xbyak::Address at(const Reg64& base, std::int64_t offset) { return ptr[base + static_cast<std::int32_t>(offset)]; }

    // to <- a vector whose lanes' maximum is the maximum of the plane at plane_: its whole vectors, then the last
    // vector's bytes as the plane's last width_ bytes, in the plan's chains and loop.
    void plane_maximum(const Xmm& to) {
        const BytePlanes& byte_planes = plan_.byte_planes;
        const std::int64_t whole = byte_planes.whole_vectors(), loads = byte_planes.loads();
        const int chains = byte_planes.chains;
        const Xmm chain[max_chains_] = {to, vec(first_chain_), vec(first_chain_ + 1), vec(first_chain_ + 2)};
        // Load i reads the plane's i-th whole vector, or (the last) its last width_ bytes.
        const auto offset = [&](std::int64_t i) { return i < whole ? i * width_ : elements_ - width_; };
        for (int c = 0; c < chains; ++c) load(chain[c], at(plane_, offset(c)));
        std::int64_t i = chains;
        if (byte_planes.loop_passes > 0) {
            // Passes of `chains` whole vectors, then the loads left over.
            Label pass;
            lea(next_, at(plane_, chains * width_));
            mov(count_, byte_planes.loop_passes);
            L(pass);
            for (int c = 0; c < chains; ++c) max(chain[c], chain[c], at(next_, c * width_));
            add(next_, static_cast<std::int32_t>(chains * width_));
            dec(count_);
            jnz(pass, T_NEAR);
            i += byte_planes.loop_passes * chains;
        }
        for (; i < loads; ++i) max(chain[i % chains], chain[i % chains], at(plane_, offset(i)));
        for (int c = 1; c < chains; ++c) max(to, to, chain[c]);
    }

    // Partial vectors a, b of level `level` (a's planes before b's) -> a: one vector of the next level.
    void combine(int level, const Xmm& a, const Xmm& b) {
        const Xmm t = vec(interleave_scratch_);
        switch (level) {
            case 0: vpunpcklbw(t, a, b); vpunpckhbw(a, a, b); break;
            case 1: vpunpcklwd(t, a, b); vpunpckhwd(a, a, b); break;
            case 2: vpunpckldq(t, a, b); vpunpckhdq(a, a, b); break;
            case 3: vpunpcklqdq(t, a, b); vpunpckhqdq(a, a, b); break;
            default:
                if (width_ == 32) {
                    // 128-bit lanes: [a.lo, b.lo] and [a.hi, b.hi].
                    const Xbyak::Ymm ty(t.getIdx()), ay(a.getIdx()), by(b.getIdx());
                    vperm2i128(ty, ay, by, 0x20);
                    vperm2i128(ay, ay, by, 0x31);
                } else {
                    // 128-bit lanes of zmm: [a0, a2, b0, b2] and [a1, a3, b1, b3].
                    const Xbyak::Zmm tz(t.getIdx()), az(a.getIdx()), bz(b.getIdx());
                    vshufi64x2(tz, az, bz, 0x88);
                    vshufi64x2(az, az, bz, 0xDD);
                }
        }
        max(a, a, t);
    }

    // One group of width_ planes: their maxima, in order, in the returned register. Each plane's vector enters
    // the reduction at level 0 and, as a binary counter carries, merges with the partial vector pending at each
    // level until it finds an empty one.
    int emit_group(Label& plane_routine) {
        std::optional<int> pending[levels_max_ + 1];
        std::vector<int> free_registers;
        for (int r = 15; r >= first_level_register_; --r) free_registers.push_back(r);
        const auto take = [&] {
            const int r = free_registers.back();
            free_registers.pop_back();
            return r;
        };
        // The plane's vector in register v (a free register, or the routine's result) enters the reduction.
        const auto enter = [&](int v) {
            int level = 0;
            for (; pending[level]; ++level) {
                combine(level, vec(*pending[level]), vec(v));
                if (v != routine_result_) free_registers.push_back(v);
                v = *pending[level];
                pending[level].reset();
            }
            if (v == routine_result_) {  // pending vectors stay out of the routine's way
                v = take();
                if (width_ == 64) vmovdqa64(vec(v), vec(routine_result_));
                else vmovdqa(vec(v), vec(routine_result_));
            }
            pending[level] = v;
        };
        mov(plane_, src_);
        for (int j = 0; j < width_; ++j) {
            if (j > 0) {
                // The next plane, where the call has one: a short last group reads its last plane again.
                lea(next_, ptr[plane_ + src_step_]);
                cmp(planes_, j);
                cmova(plane_, next_);
            }
            if (plan_.byte_planes.shared_routine) {
                call(plane_routine);
                enter(routine_result_);
            } else {
                const int v = take();
                plane_maximum(vec(v));
                enter(v);
            }
        }
        return *pending[levels()];
    }

    void generate() {
        push(rbx);
        sub(rsp, 64);  // a group's outputs, for a byte-by-byte store
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        imul(group_src_step_, src_step_, width_);
        Label group, byte_by_byte, stored, done, plane_routine;
        test(planes_, planes_);
        jle(done, T_NEAR);
        L(group);
        const Xmm result = vec(emit_group(plane_routine));
        cmp(planes_, width_);
        jb(byte_by_byte, T_NEAR);
        cmp(dst_step_, 1);
        jne(byte_by_byte, T_NEAR);
        if (width_ == 64) vmovdqu64(ptr[dst_], result);
        else vmovdqu(ptr[dst_], result);
        jmp(stored, T_NEAR);
        L(byte_by_byte);
        if (width_ == 64) vmovdqu64(ptr[rsp], result);
        else vmovdqu(ptr[rsp], result);
        mov(count_, width_);
        cmp(planes_, count_);
        cmovb(count_, planes_);
        mov(plane_, dst_);
        xor_(next_, next_);
        Label byte_loop;
        L(byte_loop);
        movzx(byte_.cvt32(), byte[rsp + next_]);
        mov(ptr[plane_], byte_.cvt8());
        add(plane_, dst_step_);
        inc(next_);
        cmp(next_, count_);
        jb(byte_loop);
        L(stored);
        add(src_, group_src_step_);
        imul(next_, dst_step_, width_);
        add(dst_, next_);
        sub(planes_, width_);
        jg(group, T_NEAR);
        L(done);
        add(rsp, 64);
        pop(rbx);
        vzeroupper();
        ret();
        if (plan_.byte_planes.shared_routine) {
            // The routine's result <- the maximum of the plane at plane_ (clobbers the chains, next_, count_).
            align(16);
            L(plane_routine);
            plane_maximum(vec(routine_result_));
            ret();
        }
    }

    const KernelPlan& plan_;
    const int width_;
    const std::int64_t elements_;
    const bool signed_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_byte_planes(const KernelPlan& plan) {
    return std::make_unique<OneEntryKernel<BytePlaneEmitter>>(plan);
}

}  // namespace pooljit::jit
