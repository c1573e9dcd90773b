// Argument checks shared by the CPU kernels (kernels.cpp, reduce_many.cpp):
// every misuse throws std::invalid_argument naming the function and the bad
// value. Internal to kernels/cpu; the public contract is kernels/cpu/kernels.h.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/cpu/kernels.h"

namespace microddp::kernel_impl {

// ---------------------------------------------------------------------------
// 1. Names and checks
// ---------------------------------------------------------------------------

inline const char* dtype_name_or_null(DType t) {
  switch (t) {
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return nullptr;
}

inline const char* op_name_or_null(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
  }
  return nullptr;
}

// "int32", or "<invalid dtype 9>" for a value outside the enum.
inline std::string dtype_label(DType t) {
  if (const char* n = dtype_name_or_null(t)) return n;
  return "<invalid dtype " + std::to_string(static_cast<unsigned>(t)) + ">";
}

inline void check_dtype(const char* fn, DType t) {
  if (!dtype_name_or_null(t)) {
    throw std::invalid_argument(std::string(fn) + ": invalid dtype value " +
                                std::to_string(static_cast<unsigned>(t)));
  }
}

inline void check_op(const char* fn, ReduceOp op) {
  if (!op_name_or_null(op)) {
    throw std::invalid_argument(std::string(fn) + ": invalid reduce op value " +
                                std::to_string(static_cast<unsigned>(op)));
  }
}

// n must be >= 0 and n * 8 bytes must not overflow; non-empty arrays need
// non-null pointers.
inline void check_count(const char* fn, int64_t n) {
  if (n < 0) {
    throw std::invalid_argument(std::string(fn) + ": element count " + std::to_string(n) +
                                " is negative");
  }
  if (n > std::numeric_limits<int64_t>::max() / 8) {
    throw std::invalid_argument(std::string(fn) + ": element count " + std::to_string(n) +
                                " is too large");
  }
}

inline void check_ptr(const char* fn, const char* what, const void* p, int64_t n) {
  if (n > 0 && p == nullptr) {
    throw std::invalid_argument(std::string(fn) + ": " + what + " is null with " +
                                std::to_string(n) + " elements");
  }
}

// dst and src may be equal but must not otherwise overlap.
inline void check_no_partial_overlap(const char* fn, const void* dst, const void* src, int64_t bytes) {
  if (dst == src || bytes == 0) return;
  const auto d = reinterpret_cast<uintptr_t>(dst);
  const auto s = reinterpret_cast<uintptr_t>(src);
  const auto b = static_cast<uintptr_t>(bytes);
  if (d < s + b && s < d + b) {
    throw std::invalid_argument(std::string(fn) +
                                ": dst and src overlap without being the same array");
  }
}

inline void check_world_size(const char* fn, int world_size) {
  if (world_size < 1) {
    throw std::invalid_argument(std::string(fn) + ": world_size " + std::to_string(world_size) +
                                " must be at least 1");
  }
}

// After a reduction into dst (n elements): the test_corrupt_reduce fault
// (kernels.h), counted once per reduce() or reduce_many() call.
void after_reduce(DType t, void* dst, int64_t n);

}  // namespace microddp::kernel_impl
