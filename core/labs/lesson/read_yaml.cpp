#include "core/labs/lesson/read_yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

namespace microddp::lesson {

std::string Mark::str() const { return fmt::format("{}:{}:{}", file, line, column); }

namespace yaml {

Mark Ctx::mark(const YAML::Node& n) const {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

void Ctx::fail(const YAML::Node& n, const std::string& msg) const { throw LessonError(mark(n).str() + ": " + msg); }

namespace {
// The mark of the last quoted scalar (tag "!": yaml-cpp's non-plain scalar).
class LastQuoted : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> at;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t, const std::string&) override {
    if (tag == "!") at = m;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where the quoted string that runs to the end of `text` opens: the last
// quoted scalar of `text` read with a final line break (which yaml-cpp
// accepts), or nullopt.
constexpr int kMaxDocuments = 16;

std::optional<YAML::Mark> open_quote_at(const std::string& text) {
  try {
    std::istringstream in(text + "\n");
    YAML::Parser p(in);
    LastQuoted h;
    // A lesson is one document; yaml-cpp 0.7 can report "another document"
    // forever on some garbage (found by fuzz_lesson), so a few at most.
    for (int docs = 0; docs < kMaxDocuments && p.HandleNextDocument(h); ++docs) {
    }
    return h.at;
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}
}  // namespace

void open_quote_error(const std::string& text, const std::string& file, const YAML::Exception& e) {
  const YAML::Mark m = open_quote_at(text).value_or(e.mark);
  throw LessonError(fmt::format("{}:{}:{}: not valid YAML: {} (the quoted string that starts here is never closed)",
                                file, m.line + 1, m.column + 1, e.msg));
}

void no_open_quote(const std::string& text, const std::string& file) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  if (end == text.size()) return;  // no final break: YAML::Load has raised it already
  try {
    std::istringstream in(text.substr(0, end));
    YAML::Parser p(in);
    LastQuoted h;
    // A lesson is one document; yaml-cpp 0.7 can report "another document"
    // forever on some garbage (found by fuzz_lesson), so a few at most.
    for (int docs = 0; docs < kMaxDocuments && p.HandleNextDocument(h); ++docs) {
    }
  } catch (const YAML::Exception& e) {
    if (e.msg == YAML::ErrorMsg::EOF_IN_SCALAR) open_quote_error(text.substr(0, end), file, e);
  }
}

namespace {
class DuplicateKeys : public YAML::EventHandler {
 public:
  explicit DuplicateKeys(std::string file) : file_(std::move(file)) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { item(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { item(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string& value) override {
    item(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    item(m, nullptr);
    frames_.push_back(Frame{false, true, {}});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    item(m, nullptr);
    frames_.push_back(Frame{true, true, {}});
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool is_map;
    bool expect_key = true;  // a mapping's items alternate: key, value
    std::map<std::string, int> first_line;
  };
  // One item of the enclosing collection (a collection is one item, its
  // own items go to its frame). `key`: the text of a scalar item.
  void item(const YAML::Mark& m, const std::string* text) {
    if (frames_.empty() || !frames_.back().is_map) return;
    Frame& f = frames_.back();
    const bool is_key = f.expect_key;
    f.expect_key = !f.expect_key;
    if (!is_key || !text) return;
    const auto [it, fresh] = f.first_line.emplace(*text, m.line + 1);
    if (!fresh)
      throw LessonError(fmt::format("{}:{}:{}: duplicate key '{}' in this mapping (first at line {})", file_,
                                    m.line + 1, m.column + 1, *text, it->second));
  }
  std::string file_;
  std::vector<Frame> frames_;
};
}  // namespace

void no_duplicate_keys(const std::string& text, const std::string& file) {
  std::stringstream in(text);
  YAML::Parser parser(in);
  DuplicateKeys h(file);
  // The first document only, the one YAML::Load reads (a lesson is one
  // document). Looping over documents never ended on some malformed inputs
  // (yaml-cpp 0.7 kept reporting a next document; found by the fuzzer).
  parser.HandleNextDocument(h);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

void only_keys(const Ctx& c, const YAML::Node& n, const std::string& where, const std::vector<std::string>& allowed,
               const std::vector<std::string>& also) {
  if (!n.IsMap()) c.fail(n, fmt::format("{} must be a mapping (key: value lines)", where));
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar()) c.fail(it->first, fmt::format("{}: keys must be plain words", where));
    const std::string k = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end() &&
        std::find(also.begin(), also.end(), k) == also.end())
      c.fail(it->first, fmt::format("unknown key '{}' in {} (expected one of: {}){}", k, where, join(allowed),
                                    also.empty() ? std::string() : fmt::format("; also: {}", join(also))));
  }
}

std::string str(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) c.fail(n, fmt::format("'{}' must be a single value (text)", key));
  return n.Scalar();
}

int64_t integer(const Ctx& c, const YAML::Node& n, const std::string& key, int64_t lo, int64_t hi) {
  const std::string s = str(c, n, key);
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) c.fail(n, fmt::format("'{}' must be an integer, got '{}'", key, s));
  if (v < lo || v > hi) c.fail(n, fmt::format("'{}' must be between {} and {}, got {}", key, lo, hi, v));
  return v;
}

YAML::Node key_node(const YAML::Node& map, const std::string& key) {
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  return map;
}

double number(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (n.IsNull()) c.fail(n, fmt::format("'{}' must be a number, got nothing", key));
  const std::string s = str(c, n, key);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v))
    c.fail(n, fmt::format("'{}' must be a number, got '{}'", key, s));
  return v;
}

bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key) {
  const std::string s = str(c, n, key);
  if (s == "true") return true;
  if (s == "false") return false;
  c.fail(n, fmt::format("'{}' must be true or false, got '{}'", key, s));
}

YAML::Node seq(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsSequence()) c.fail(n, fmt::format("'{}' must be a list ([a, b] or '- ' lines)", key));
  return n;
}

std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, const std::vector<std::string>& ok) {
  const std::string s = str(c, n, key);
  if (std::find(ok.begin(), ok.end(), s) == ok.end())
    c.fail(n, fmt::format("'{}' must be one of: {}; got '{}'", key, join(ok), s));
  return s;
}

const std::vector<std::string> kBufNames = {"input", "output", "send_buff", "recv_buff", "accum", "scratch"};


int64_t bytes_with_unit(std::string t) {
  int64_t scale = 1;
  if (!t.empty() && (t.back() == 'K' || t.back() == 'M' || t.back() == 'G')) {
    scale = t.back() == 'K' ? 1024 : t.back() == 'M' ? 1024 * 1024 : 1024 * 1024 * 1024;
    t.pop_back();
  }
  int64_t b = -1;
  try {
    size_t used = 0;
    b = std::stoll(t, &used);
    if (used != t.size()) b = -1;
  } catch (const std::exception&) {
    b = -1;
  }
  if (b < 1 || b > (int64_t{1} << 40) / scale) return -1;
  return b * scale;
}

}  // namespace yaml

}  // namespace microddp::lesson
