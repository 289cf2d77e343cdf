// The tensors every timed library reads and writes: allocated as inference engines allocate theirs (ONNX Runtime's,
// oneDNN's and OpenVINO's allocators align tensors to 64 bytes), optionally shifted from that boundary by a
// chosen number of bytes (--buffer-offset) to show what a misaligned caller gets. A plain std::vector of a few
// hundred KiB comes from mmap 16 bytes past a page: every 64-byte channel block of a channels-last pixel then
// straddles two cache lines.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace pooljit_bench {

inline constexpr std::size_t tensor_alignment = 64;

class TensorBuffer {
public:
    // `size` bytes (at least 1) starting `offset` bytes past a 64-byte boundary, zero-filled.
    TensorBuffer(std::size_t size, std::size_t offset)
        : storage_(new std::uint8_t[std::max<std::size_t>(size, 1) + offset + tensor_alignment]()), size_(size) {
        const auto base = reinterpret_cast<std::uintptr_t>(storage_.get());
        const std::uintptr_t aligned = (base + tensor_alignment - 1) / tensor_alignment * tensor_alignment;
        data_ = storage_.get() + (aligned - base) + offset;
    }
    // A copy of `bytes` bytes at `from`.
    TensorBuffer(const void* from, std::size_t bytes, std::size_t offset) : TensorBuffer(bytes, offset) {
        if (bytes > 0) std::memcpy(data_, from, bytes);
    }

    std::uint8_t* data() { return data_; }
    const std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    std::unique_ptr<std::uint8_t[]> storage_;
    std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace pooljit_bench
