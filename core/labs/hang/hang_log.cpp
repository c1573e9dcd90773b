// The hang lab's MICRODDP_DEBUG logging (levels, subsystems, the sink) and
// its flight recorder (see core/labs/hang/hang.h).
#include "core/labs/hang/hang.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace microddp::hang {

// ---- logging -----------------------------------------------------------------

namespace {
std::mutex g_log_m;
std::function<void(const std::string&)> g_sink;
// The calling thread's ThreadLog, while it holds a ThreadLog::Scope.
thread_local ThreadLog* t_log = nullptr;
}  // namespace

std::string_view name(LogLevel l) {
  switch (l) {
    case LogLevel::warn: return "WARN";
    case LogLevel::info: return "INFO";
    case LogLevel::trace: return "TRACE";
    default: return "NONE";
  }
}

ThreadLog::ThreadLog(LogLevel level, std::chrono::steady_clock::time_point t0) : level_(level), t0_(t0) {}

std::vector<LogEntry> ThreadLog::entries() const {
  std::lock_guard<std::mutex> lk(m_);
  return entries_;
}

void ThreadLog::add(int rank, LogLevel level, std::string text) {
  std::lock_guard<std::mutex> lk(m_);  // the time stamp under the mutex: t_s follows the entries' order
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  entries_.push_back({rank, level, std::move(text), t});
}

ThreadLog::Scope::Scope(ThreadLog& log) : previous_(t_log) { t_log = &log; }
ThreadLog::Scope::~Scope() { t_log = previous_; }

LogLevel parse_log_level(std::string_view s) {
  std::string u(s);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u.empty()) return LogLevel::none;
  if (u == "WARN") return LogLevel::warn;
  if (u == "INFO") return LogLevel::info;
  if (u == "TRACE") return LogLevel::trace;
  return LogLevel::warn;
}

LogLevel log_level_from_env() {
  const char* v = std::getenv("MICRODDP_DEBUG");
  return v ? parse_log_level(v) : LogLevel::none;
}

namespace {
// NCCL_DEBUG_SUBSYS names microddp has no lines for (NCCL 2.18 src/debug.cc
// ncclDebugInit; 2.2x adds the last few): they select kNcclOnly, so a list
// of them alone still lets WARN lines through, as in NCCL.
bool is_nccl_only_subsys(const std::string& u) {
  for (const char* n : {"SHM", "NET", "GRAPH", "ENV", "ALLOC", "ALLOC_HOST", "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG",
                        "PROFILE", "RAS", "DESTROY"})
    if (u == n) return true;
  return false;
}
}  // namespace

uint32_t parse_subsys(std::string_view s) {
  if (s.empty()) return kAllSubsys;
  // NCCL's rule: one '^' in front inverts the whole list.
  const bool invert = s.front() == '^';
  if (invert) s.remove_prefix(1);
  uint32_t mask = 0;
  while (true) {
    const size_t comma = s.find(',');
    std::string u(s.substr(0, comma));
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u == "INIT") mask |= kInit;
    else if (u == "COLL") mask |= kColl;
    else if (u == "P2P") mask |= kP2P;
    else if (u == "TUNING") mask |= kTuning;
    else if (u == "ALL") mask |= kAllSubsys;
    else if (is_nccl_only_subsys(u)) mask |= kNcclOnly;
    // any other name adds nothing: ignored, as NCCL ignores it
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return invert ? ~mask : mask;
}

uint32_t subsys_from_env() {
  const char* v = std::getenv("MICRODDP_DEBUG_SUBSYS");
  return v ? parse_subsys(v) : kAllSubsys;
}

void check_debug_env() {
  if (const char* v = std::getenv("MICRODDP_DEBUG"); v && *v) {
    std::string u(v);
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u != "WARN" && u != "INFO" && u != "TRACE")
      throw UsageError(fmt::format("MICRODDP_DEBUG '{}' is not a log level (expected WARN, INFO or TRACE, any case; "
                                   "unset or empty: no log)",
                                   v));
  }
  // MICRODDP_DEBUG_SUBSYS is not checked: as in NCCL, an unknown name is
  // ignored (README "Debug logging"; parse_subsys).
}

bool log_enabled(LogLevel level, uint32_t subsys) {
  if (t_log) return level != LogLevel::none && level <= t_log->level();
  if (level == LogLevel::none || level > log_level_from_env()) return false;
  const uint32_t enabled = subsys_from_env();
  return level == LogLevel::warn ? enabled != 0 : (enabled & subsys) != 0;
}

void set_log_sink(std::function<void(const std::string&)> sink) {
  std::lock_guard<std::mutex> lk(g_log_m);
  g_sink = std::move(sink);
}

void log_line(LogLevel level, int rank, const std::string& text, uint32_t subsys) {
  if (!log_enabled(level, subsys)) return;
  if (t_log) {
    t_log->add(rank, level, text);
    return;
  }
  const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000;
  std::string line = fmt::format("microddp:{}:{} [{}] MICRODDP {} {}", static_cast<long>(::getpid()), tid, rank,
                                 name(level), text);
  std::lock_guard<std::mutex> lk(g_log_m);
  if (g_sink)
    g_sink(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

// ---- flight recorder -----------------------------------------------------------

std::string_view name(CallRecord::State s) {
  switch (s) {
    case CallRecord::State::started: return "started";
    case CallRecord::State::completed: return "completed";
    case CallRecord::State::failed: return "failed";
  }
  return "?";
}

void FlightRecorder::start(CallRecord r) {
  last_started = r.seq;
  calls.push_back(std::move(r));
  while (calls.size() > capacity) calls.pop_front();
}

void FlightRecorder::finish(bool ok, const std::string& error, double end_s) {
  if (calls.empty()) return;
  auto& c = calls.back();
  c.state = ok ? CallRecord::State::completed : CallRecord::State::failed;
  c.error = error;
  c.end_s = end_s;
  if (ok) last_completed = c.seq;
}

}  // namespace microddp::hang
