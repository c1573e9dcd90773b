// Gradient buckets as PyTorch DDP assigns them (see ddp.h).
#include <fmt/format.h>

#include "core/ir/types.h"
#include "core/labs/ddp/ddp.h"

namespace microddp::ddp {

// ---- buckets ---------------------------------------------------------------

std::vector<Bucket> assign_buckets(const std::vector<int64_t>& param_elements, int elem_bytes,
                                   double cap_mb) {
  if (!(cap_mb > 0)) throw UsageError(fmt::format("bucket cap {} MB: must be > 0", cap_mb));
  if (elem_bytes < 1) throw UsageError(fmt::format("element size {} bytes: must be >= 1", elem_bytes));
  const double cap_bytes = cap_mb * 1024.0 * 1024.0;
  std::vector<Bucket> out;
  Bucket open;
  for (int p = static_cast<int>(param_elements.size()) - 1; p >= 0; --p) {
    open.params.push_back(p);
    open.offsets.push_back(open.elements);
    open.elements += param_elements[p];
    open.bytes = open.elements * elem_bytes;
    if (static_cast<double>(open.bytes) >= cap_bytes) {
      out.push_back(std::move(open));
      open = Bucket{};
    }
  }
  if (!open.params.empty()) out.push_back(std::move(open));  // the last, partial bucket
  return out;
}

}  // namespace microddp::ddp
