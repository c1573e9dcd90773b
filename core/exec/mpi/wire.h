// The byte format in which ranks send rank 0 their share of a result
// (outputs, clock entry, events, step records). Plain C++, no MPI: it is
// compiled in every build and tested without mpirun
// (tests/core/exec/test_wire.cpp).
//
// Layout of one share (all values in the sender's native byte order; ranks
// of one job run the same binary):
//   int64 end_ns | ClockEntry | vec<byte> outputs
//   [record only] vec<Event> events | RankStepRecord x num_steps | RankStepRecord initial
// vec<T>: int64 count, then count * sizeof(T) bytes.
// RankStepRecord: int64 begin_ns, int64 end_ns, int64 buffer count, then per
// buffer: Buf (1 byte), int32 storage, vec<double> values.
//
// Reading never goes past the end of the buffer, and every count or length
// read is checked against what the schedule says the sender holds before
// anything is allocated or indexed with it: a short, long or corrupted
// share throws WireError naming the sender, the field and the sizes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/ir/schedule.h"
#include "core/ir/trace.h"

namespace microddp::wire {

// A buffer that does not hold what was being decoded. what(): "<source>:
// <field> needs <n> bytes at offset <pos> but the buffer has <size>" or
// "<source>: <field> is <value>, expected <what is allowed>".
struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

// Reads what a Writer wrote. `source` names the buffer in errors ("rank 2's
// results"); `what` names the field being read.
class Reader {
 public:
  Reader(const std::vector<std::byte>& b, std::string source) : b_(b), source_(std::move(source)) {}
  template <typename T>
  T get(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  // An int64 count that must lie in [lo, hi].
  int64_t count(const char* what, int64_t lo, int64_t hi) {
    const auto n = get<int64_t>(what);
    if (n < lo || n > hi) fail(what, n, lo == hi ? fmt::format("{}", lo) : fmt::format("{}..{}", lo, hi));
    return n;
  }
  // A vec<T> whose count must be exactly `expected`; the bytes must be there.
  template <typename T>
  std::vector<T> vec(const char* what, int64_t expected) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto n = static_cast<size_t>(count(what, expected, expected));
    need(n * sizeof(T), what);
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return v;
  }
  // Throws when bytes are left over (the sender wrote more than was read).
  void finish() const {
    if (pos_ != b_.size())
      throw WireError(fmt::format("{}: {} bytes left over after offset {} (the buffer has {})", source_,
                                  b_.size() - pos_, pos_, b_.size()));
  }
  [[noreturn]] void fail(const char* what, int64_t value, const std::string& expected) const {
    throw WireError(fmt::format("{}: {} is {}, expected {}", source_, what, value, expected));
  }
  size_t position() const { return pos_; }
  const std::string& source() const { return source_; }

 private:
  void need(size_t n, const char* what) const {
    if (n > b_.size() - pos_)
      throw WireError(fmt::format("{}: {} needs {} bytes at offset {} but the buffer has {}", source_, what, n, pos_,
                                  b_.size()));
  }
  const std::vector<std::byte>& b_;
  std::string source_;
  size_t pos_ = 0;
};

void put_record(Writer& w, const RankStepRecord& r);
// A record of a rank with `layout`: either no buffers (snapshots off) or
// one per non-empty view, in Buf order, each with the view's size.
RankStepRecord get_record(Reader& rd, const RankLayout& layout);

// One rank's clock alignment, as the rank measured it (run_mpi, step 2).
struct ClockEntry {
  int64_t offset = 0, error = 0;                    // applied
  int64_t measured_offset = 0, measured_error = 0;  // the ping-pong estimate
  int64_t same_clock = 1;
};

// What a rank sends rank 0 after a run_mpi.
struct RankShare {
  int64_t end_ns = 0;
  ClockEntry clock;
  std::vector<std::byte> outputs;
  // With record only:
  std::vector<Event> events;
  std::vector<RankStepRecord> steps;  // [step]
  RankStepRecord initial;
};

// The share of rank `rank` of a run of `s`; `trace` (record on) supplies
// events[rank], steps[*][rank] and initial[rank], nullptr leaves them out.
std::vector<std::byte> encode_share(const Schedule& s, int rank, int64_t end_ns, const ClockEntry& clock,
                                    const std::vector<std::byte>& outputs, const Trace* trace);
// Decodes what encode_share wrote for `rank`, checking it against what the
// schedule says that rank holds: outputs of exactly its output view's size,
// one event per op of its program with that op's step, index, kind and peer,
// records as get_record. Throws WireError (naming "rank <rank>'s results").
RankShare decode_share(const std::vector<std::byte>& blob, const Schedule& s, int rank, bool record);
// An upper bound on the size of encode_share's result for `rank`, which
// rank 0 checks the announced size against before it allocates.
int64_t max_share_bytes(const Schedule& s, int rank, bool record);

}  // namespace microddp::wire
