#include "core/record/data.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace microddp {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}
std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\n\r"), b = s.find_last_not_of(" \t\n\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}
// A parsed value: integers are kept exactly (int64 has more digits than a
// double), everything else as a double; `text` is what the user typed, for
// messages.
struct Value {
  double d = 0;
  bool is_int = false;
  int64_t i = 0;
  std::string text;
};

// "123", "-0", "+7", "9007199254740993.0", "12.000": an integer written in
// decimal, possibly with a zero fraction. Its exact value when it fits int64,
// else nullopt with *too_big set when it is an integer that does not fit.
std::optional<int64_t> exact_integer(const std::string& tok, bool* too_big) {
  *too_big = false;
  size_t k = 0;
  const bool neg = !tok.empty() && tok[0] == '-';
  if (!tok.empty() && (tok[0] == '-' || tok[0] == '+')) k = 1;
  const size_t digits_from = k;
  while (k < tok.size() && tok[k] >= '0' && tok[k] <= '9') ++k;
  const size_t digits_to = k;
  if (digits_to == digits_from) return std::nullopt;
  if (k < tok.size()) {
    if (tok[k] != '.') return std::nullopt;
    for (++k; k < tok.size(); ++k)
      if (tok[k] != '0') return std::nullopt;
  }
  // Accumulate as a negative number: INT64_MIN has no positive twin.
  int64_t v = 0;
  for (size_t j = digits_from; j < digits_to; ++j) {
    const int dgt = tok[j] - '0';
    if (v < (INT64_MIN + dgt) / 10) {
      *too_big = true;
      return std::nullopt;
    }
    v = v * 10 - dgt;
  }
  if (!neg) {
    if (v == INT64_MIN) {
      *too_big = true;
      return std::nullopt;
    }
    v = -v;
  }
  return v;
}

Value parse_number(const std::string& tok, int r, size_t i) {
  if (tok == "nan" || tok == "NaN" || tok == "+nan") return {std::numeric_limits<double>::quiet_NaN(), false, 0, tok};
  // A NaN's sign bit travels with it (and min/max keep it): "-nan" is a NaN
  // with the sign set, as printf prints one.
  if (tok == "-nan" || tok == "-NaN") return {-std::numeric_limits<double>::quiet_NaN(), false, 0, tok};
  if (tok == "inf" || tok == "+inf") return {std::numeric_limits<double>::infinity(), false, 0, tok};
  if (tok == "-inf") return {-std::numeric_limits<double>::infinity(), false, 0, tok};
  if (tok.empty() || tok.find_first_not_of("+-0123456789.eE") != std::string::npos)
    throw UsageError(fmt::format("rank {} value {}: '{}' is not a number", r, i, tok));
  // strtod rounds correctly and keeps the sign of zero; an overflow gives
  // HUGE_VAL with ERANGE (an underflow rounds toward zero, as the dtype will).
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(tok.c_str(), &end);
  if (end != tok.c_str() + tok.size())
    throw UsageError(fmt::format("rank {} value {}: '{}' is not a number", r, i, tok));
  if (errno == ERANGE && std::isinf(d))
    throw UsageError(fmt::format("rank {} value {}: '{}' is too large for any dtype", r, i, tok));
  bool too_big = false;
  if (const auto v = exact_integer(tok, &too_big)) return {d, true, *v, tok};
  if (too_big && tok.find('.') == std::string::npos)
    throw UsageError(fmt::format("rank {} value {}: '{}' does not fit int64", r, i, tok));
  return {d, false, 0, tok};
}

void store_row(const CollectiveSpec& s, int r, const std::vector<Value>& vals, RankData& out) {
  const int64_t want = s.input_count(r);
  if (static_cast<int64_t>(vals.size()) != want)
    throw UsageError(fmt::format("rank {} has {} values but {} with these sizes needs {} on rank {}", r, vals.size(),
                                 name(s.collective), want, r));
  out[r].resize(want * dtype_size(s.dtype));
  for (size_t i = 0; i < vals.size(); ++i) {
    Value v = vals[i];
    if (!v.is_int && !is_floating(s.dtype) && std::isfinite(v.d) && v.d == std::trunc(v.d) &&
        std::fabs(v.d) <= 9007199254740992.0) {  // "1e3": an integer, exact in a double
      v.is_int = true;
      v.i = static_cast<int64_t>(v.d);
    }
    const std::string shown = v.text.empty() ? format_value(v.d) : v.text;
    if (v.is_int && s.dtype == DType::int64) {
      std::memcpy(out[r].data() + i * 8, &v.i, 8);  // exact, beyond 2^53 too
      continue;
    }
    if (v.is_int && s.dtype == DType::int32) {
      if (v.i < INT32_MIN || v.i > INT32_MAX)
        throw UsageError(fmt::format("rank {} value {}: '{}' does not fit int32", r, i, shown));
      const auto x = static_cast<int32_t>(v.i);
      std::memcpy(out[r].data() + i * 4, &x, 4);
      continue;
    }
    if (!is_floating(s.dtype)) {
      // A fraction, nan/inf, or an integer beyond what a double holds exactly.
      const bool integral = std::isfinite(v.d) && v.d == std::trunc(v.d);
      throw UsageError(integral ? fmt::format("rank {} value {}: '{}' does not fit {} exactly (write it as an integer)",
                                              r, i, shown, name(s.dtype))
                                : fmt::format("rank {} value {}: '{}' is not an integer ({} holds integers)", r, i,
                                              shown, name(s.dtype)));
    }
    try {
      kernels::store_double(s.dtype, out[r].data(), static_cast<int64_t>(i), v.d);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("rank {} value {}: '{}' is too large for {} (largest finite {})", r, i,
                                   v.text.empty() ? format_value(v.d) : v.text, name(s.dtype),
                                   s.dtype == DType::float16 ? "65504" : s.dtype == DType::bfloat16 ? "3.39e38" : "3.40e38"));
    }
  }
}
}  // namespace

RankData parse_data(const CollectiveSpec& s, const std::string& text) {
  const auto rows = split(text, ';');
  if (static_cast<int>(rows.size()) != s.world_size)
    throw UsageError(fmt::format("--data has {} rows (separated by ';') but there are {} ranks", rows.size(),
                                 s.world_size));
  RankData out(s.world_size);
  for (int r = 0; r < s.world_size; ++r) {
    std::vector<Value> vals;
    const std::string row = trim(rows[r]);
    if (!row.empty()) {
      const auto toks = split(row, ',');
      for (size_t i = 0; i < toks.size(); ++i) vals.push_back(parse_number(trim(toks[i]), r, i));
    }
    store_row(s, r, vals, out);
  }
  return out;
}

int64_t count_from_rows(const CollectiveSpec& s, const std::string& text) {
  const auto rows = split(text, ';');
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string row = trim(rows[r]);
    if (row.empty()) continue;
    const int64_t len = static_cast<int64_t>(split(row, ',').size());
    const int n = std::max(1, s.world_size);
    switch (s.collective) {
      case Collective::reduce_scatter:
      case Collective::all_to_all:
      case Collective::scatter: return len / n;
      default: return len;
    }
  }
  return 0;
}

int64_t count_from_json(const CollectiveSpec& s, const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("inputs") || !j["inputs"].is_array()) return -1;
  std::string rows;
  for (size_t r = 0; r < j["inputs"].size(); ++r) {
    const auto& row = j["inputs"][r];
    if (r) rows += ";";
    if (!row.is_array()) return -1;
    for (size_t i = 0; i < row.size(); ++i) rows += i ? ",0" : "0";
  }
  return count_from_rows(s, rows);
}

int64_t infer_count(const CollectiveSpec& s, const std::string& data, const std::string& input_json,
                    int64_t fallback) {
  if (!data.empty()) return count_from_rows(s, data);
  if (!input_json.empty()) return std::max<int64_t>(0, count_from_json(s, input_json));
  return fallback;
}

RankData make_inputs(const CollectiveSpec& s, const std::string& data, const std::optional<std::string>& input_json,
                     const std::string& fill) {
  if (!data.empty()) return parse_data(s, data);
  if (input_json) return parse_input_json(s, *input_json);
  return fill_data(s, fill.empty() ? "iota" : fill);
}

RankData parse_input_json(const CollectiveSpec& s, const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("the input file is not valid JSON: {}", e.what()));
  }
  if (!j.is_object() || !j.contains("inputs") || !j["inputs"].is_array())
    throw UsageError("the input file must be a JSON object {\"inputs\": [[...], ...]} with one array per rank");
  const auto& rows = j["inputs"];
  if (static_cast<int>(rows.size()) != s.world_size)
    throw UsageError(fmt::format("the input file has {} rows but there are {} ranks", rows.size(), s.world_size));
  RankData out(s.world_size);
  for (int r = 0; r < s.world_size; ++r) {
    if (!rows[r].is_array()) throw UsageError(fmt::format("inputs[{}] is not an array", r));
    std::vector<Value> vals;
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const auto& v = rows[r][i];
      if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
          throw UsageError(fmt::format("inputs[{}][{}] = {} does not fit int64", r, i, v.dump()));
        // (nlohmann reads the integer -0 as 0: write -0.0 to keep the sign)
        vals.push_back({v.get<double>(), true, v.get<int64_t>(), v.dump()});
      } else if (v.is_number()) vals.push_back({v.get<double>(), false, 0, v.dump()});
      else if (v.is_string()) vals.push_back(parse_number(v.get<std::string>(), r, i));
      else throw UsageError(fmt::format("inputs[{}][{}] = {} is not a number", r, i, v.dump()));
    }
    store_row(s, r, vals, out);
  }
  return out;
}

RankData fill_data(const CollectiveSpec& s, const std::string& pattern) {
  RankData out(s.world_size);
  std::mt19937_64 rng;
  bool random = false;
  if (pattern.rfind("random:", 0) == 0) {
    const std::string seed = pattern.substr(7);
    try {
      size_t used = 0;
      // stoull would accept "-1" (and wrap it): digits only.
      if (seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("x");
      rng.seed(std::stoull(seed, &used));
      if (used != seed.size()) throw std::invalid_argument("x");
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--fill random:SEED needs a non-negative integer seed below 2^64, got '{}'", seed));
    }
    random = true;
  } else if (pattern != "iota" && pattern != "rank") {
    throw UsageError(fmt::format("unknown fill '{}' (expected one of: iota, rank, random:SEED)", pattern));
  }
  // iota stays below 2^11 so every value is exact in float16 (and bfloat16
  // up to 256: larger values are rounded to the dtype first).
  for (int r = 0; r < s.world_size; ++r) {
    const int64_t n = s.input_count(r);
    std::vector<Value> vals(n);
    for (int64_t i = 0; i < n; ++i) {
      double v;
      if (random) v = static_cast<double>(static_cast<int64_t>(rng() % 17) - 8);
      else if (pattern == "rank") v = r + 1;
      else v = static_cast<double>((r * n + i) % 1000 + 1);
      if (s.dtype == DType::bfloat16) v = kernels::bf16_to_float(kernels::float_to_bf16(static_cast<float>(v)));
      vals[i] = {v, false, 0, {}};
    }
    store_row(s, r, vals, out);
  }
  return out;
}

int64_t parse_count_text(const std::string& option, const std::string& text) {
  const std::string t = trim(text);
  if (t.empty() || t.find_first_not_of("+-0123456789") != std::string::npos)
    throw UsageError(fmt::format("{} '{}' is not an integer", option, text));
  bool too_big = false;
  const auto v = exact_integer(t, &too_big);
  if (!v && too_big) throw UsageError(fmt::format("{} '{}' is too large (at most 9223372036854775807)", option, text));
  if (!v) throw UsageError(fmt::format("{} '{}' is not an integer", option, text));
  if (*v < 0) throw UsageError(fmt::format("{} '{}' must be >= 0", option, text));
  return *v;
}

std::vector<int64_t> parse_counts_text(const std::string& option, const std::string& text) {
  std::vector<int64_t> out;
  int64_t sum = 0;
  const auto toks = split(text, ',');
  for (size_t i = 0; i < toks.size(); ++i) {
    if (trim(toks[i]).empty())
      throw UsageError(fmt::format("{} '{}': entry {} is empty", option, text, i + 1));
    const int64_t v = parse_count_text(option + " entry", toks[i]);
    if (v > INT64_MAX - sum)
      throw UsageError(fmt::format("{} '{}': the counts add up to more than 9223372036854775807", option, text));
    sum += v;
    out.push_back(v);
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return fmt::format("{}", v);
}

}  // namespace microddp
