// Names and small value types shared by every part of microddp.
// The enums DType and ReduceOp live in kernels/cpu/kernels.h (the kernels
// need them and may not depend on core/); this header re-exports them.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/kernels.h"

namespace microddp {

enum class Collective : uint8_t {
  broadcast, reduce, gather, scatter, barrier, all_reduce, all_gather, reduce_scatter, all_to_all
};

// Thrown for every user-facing mistake (bad option, bad spec, bad data).
// The CLI turns it into "error: <what>" and exit code 2.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string_view name(Collective c);
std::string_view name(DType t);
std::string_view name(ReduceOp op);

// Parse a name; throw UsageError listing the accepted names.
Collective parse_collective(std::string_view s);
DType parse_dtype(std::string_view s);
ReduceOp parse_op(std::string_view s);

const std::vector<Collective>& all_collectives();
const std::vector<DType>& all_dtypes();
const std::vector<ReduceOp>& all_ops();

// True for the collectives that reduce (reduce, all_reduce, reduce_scatter).
bool is_reducing(Collective c);

}  // namespace microddp
