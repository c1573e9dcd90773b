// The buffers panel's avg line (buffer_notes.h: avg_note) and the integer
// average's pending division in words (avg_words.h).
#include <fmt/format.h>

#include <algorithm>

#include "app/viz/avg_words.h"
#include "app/viz/buffer_notes.h"
#include "app/viz/scene.h"
#include "core/exec/rank_program.h"
#include "kernels/cpu/kernels.h"

namespace microddp::viz {

namespace {

// "[5, 9]": up to 6 values of a typed row, then "…".
std::string row_text(DType t, const std::vector<std::byte>& bytes) {
  const auto n = static_cast<int64_t>(bytes.size() / dtype_size(t));
  std::string s;
  for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i)
    s += (i ? ", " : "") + format_value(kernels::load_double(t, bytes.data(), i));
  return "[" + s + (n > 6 ? ", …]" : "]");
}

std::string values_text(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < std::min<size_t>(v.size(), 6); ++i) s += (i ? ", " : "") + format_value(v[i]);
  return "[" + s + (v.size() > 6 ? ", …]" : "]");
}

// The first rank with an output (reduce: the root).
int first_output_rank(const RankData& outputs) {
  for (size_t r = 0; r < outputs.size(); ++r)
    if (!outputs[r].empty()) return static_cast<int>(r);
  return -1;
}

}  // namespace

std::string avg_pending_words(const Session& ses, int position) {
  if (!ses.configured() || !needs_finish_avg(ses.schedule().spec) || position < ses.num_steps()) return "";
  return fmt::format("sum, ÷ {} next", ses.schedule().spec.world_size);
}

std::string avg_note(const Session& ses, int position) {
  if (!ses.configured()) return "";
  const CollectiveSpec& sp = ses.schedule().spec;
  const int n = sp.world_size;
  const std::string dt(name(sp.dtype));
  if (needs_finish_avg(sp)) {
    if (position < ses.num_steps())
      return fmt::format("{} avg: the buffers hold sums; each output is divided by {} after the last step", dt, n);
    // The last step's snapshot holds the sums; the run's outputs, the quotients.
    const int r = first_output_rank(ses.outputs());
    const Trace& tr = ses.trace();
    std::string sums;
    if (r >= 0 && tr.snapshots && !tr.steps.empty() && ses.steps_run() >= ses.num_steps())
      for (const BufferSnapshot& b : tr.steps.back()[static_cast<size_t>(r)].buffers)
        if (b.buf == Buf::output) sums = values_text(b.values);
    if (r < 0 || sums.empty())
      return fmt::format("{} avg: the outputs hold the sums; ÷ {} next, after the last step (toward zero)", dt, n);
    return fmt::format("{} avg: the outputs hold the sums; ÷ {} next, after the last step (toward zero): R{} {} → {}", dt,
                       n, r, sums, row_text(sp.dtype, ses.outputs()[static_cast<size_t>(r)]));
  }
  if (needs_premul(sp)) {
    // The inputs were scaled before step 0: the sums are the averages.
    const RankData& in = ses.inputs();
    const Trace& tr = ses.trace();
    std::string example;
    if (!in.empty() && !in[0].empty() && tr.snapshots && !tr.initial.empty())
      for (const BufferSnapshot& b : tr.initial[0].buffers)
        if (b.buf == Buf::input) example = fmt::format(" (R0 {} → {})", row_text(sp.dtype, in[0]), values_text(b.values));
    return fmt::format("{} avg: each input × 1/{} before step 0{}, so the sums are the averages", dt, n, example);
  }
  return "";
}

}  // namespace microddp::viz
