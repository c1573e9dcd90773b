// The byte format in which ranks send rank 0 their share of a result
// (outputs, events, step records). Plain C++, no MPI: the encoding is
// tested without mpirun.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/ir/trace.h"

namespace microddp::wire {

// ---- (de)serialisation of one rank's share of the result ----
class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    buf.insert(buf.end(), b, b + n);
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    put<int64_t>(static_cast<int64_t>(v.size()));
    bytes(v.data(), v.size() * sizeof(T));
  }
  std::vector<std::byte> buf;
};
class Reader {
 public:
  explicit Reader(const std::vector<std::byte>& b) : b_(b) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <typename T>
  std::vector<T> vec() {
    const auto n = static_cast<size_t>(get<int64_t>());
    std::vector<T> v(n);
    std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return v;
  }

 private:
  const std::vector<std::byte>& b_;
  size_t pos_ = 0;
};

void put_record(Writer& w, const RankStepRecord& r);
RankStepRecord get_record(Reader& rd);

}  // namespace microddp::wire
