// A beat's text for the lesson panel (lesson_view.h): text runs
// (*emphasis*, `code`, paragraphs, indented lines), wrapping at spaces only,
// and the checks' lines. Moved from lesson_view.cpp, unchanged.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "app/viz/lesson_view.h"
#include "core/labs/lesson/checks.h"

namespace microddp::viz {

using namespace microddp::lesson;

std::vector<TextRun> text_runs(const std::string& text) {
  // Blocks: paragraphs (lines joined with spaces) and indented lines.
  struct Block {
    std::string text;
    bool pre = false, gap = false;
  };
  std::vector<Block> blocks;
  bool gap = false, open = false;
  size_t i = 0;
  while (i < text.size()) {
    const size_t e = std::min(text.find('\n', i), text.size());
    const std::string line = text.substr(i, e - i);
    i = e + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      gap = !blocks.empty();
      open = false;
    } else if (line[0] == ' ' || line[0] == '\t') {
      blocks.push_back(Block{line, true, gap});
      gap = open = false;
    } else if (open) {
      blocks.back().text += " " + line;
    } else {
      blocks.push_back(Block{line, false, gap});
      gap = false;
      open = true;
    }
  }
  std::vector<TextRun> out;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block& bl = blocks[k];
    if (bl.pre) {
      out.push_back(TextRun{bl.text, false, bl.gap, k > 0, true});
      continue;
    }
    bool emph = false, code = false, first = true;
    std::string run;
    auto flush = [&] {
      if (!run.empty()) out.push_back(TextRun{run, emph, first && bl.gap, first && k > 0, false, code}), first = false;
      run.clear();
    };
    for (char c : bl.text) {
      if (c == '`') {  // a code span: its text as is ('*' inside is literal)
        flush();
        code = !code;
      } else if (c == '*' && !code) {
        flush();
        emph = !emph;
      } else {
        run += c;
      }
    }
    flush();
  }
  return out;
}

std::vector<std::string> wrap_words(const std::string& text, float width,
                                    const std::function<float(std::string_view)>& measure) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const size_t e = std::min(text.find(' ', i), text.size());
    const std::string word = text.substr(i, e - i);
    i = e;
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && measure(joined) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string check_line(const CheckResult& r) {
  if (r.skipped || r.pass) return fmt::format("{}: {}", r.what, r.actual);
  return fmt::format("{}: expected {}, got {}", r.what, r.expected, r.actual);
}

std::string checks_summary(const std::vector<CheckResult>& rs) {
  int run = 0, pass = 0;
  for (const CheckResult& r : rs)
    if (!r.skipped) ++run, pass += r.pass ? 1 : 0;
  return fmt::format("{} of {} check{} pass{}", pass, run, run == 1 ? "" : "s", run == 1 ? "es" : "");
}

PresentCheckFolds present_check_folds(const std::vector<CheckResult>& rs) {
  int pass = 0, lab = 0, not_shown = 0, failed = 0;
  for (const CheckResult& r : rs) {
    if (r.skipped) ++(r.not_shown ? not_shown : lab);
    else if (r.pass) ++pass;
    else ++failed;
  }
  PresentCheckFolds f;
  if (pass > 0)
    f.pass = fmt::format("\u2713 {}{} check{} pass{}", pass, failed ? " other" : "", pass == 1 ? "" : "s",
                         pass == 1 ? "es" : "");
  if (not_shown > 0) f.not_shown = fmt::format("\u2013 {} not shown on this run (the runs did not decide)", not_shown);
  if (lab > 0) f.lab = fmt::format("\u2013 {} lab check{} not run here", lab, lab == 1 ? "" : "s");
  return f;
}

std::string checks_heading(const Beat& b) {
  bool real = false, recorded = false, published = false, model = false;
  if (b.kind == Beat::Kind::lab && b.view.source == "recorded") recorded = true;
  for (const Check& c : b.checks) {
    if (b.kind == Beat::Kind::lab && b.view.source == "recorded") break;  // every lab check reads the record
    std::visit(
        [&](const auto& k) {
          using K = std::decay_t<decltype(k)>;
          if constexpr (std::is_same_v<K, check::RecordedFaster> || std::is_same_v<K, check::RecordedRatio>)
            recorded = true;
          else if constexpr (std::is_same_v<K, check::PublishedTime> || std::is_same_v<K, check::PublishedError>)
            published = true;
          else if constexpr (std::is_same_v<K, check::Predicted> || std::is_same_v<K, check::Ratio> ||
                             std::is_same_v<K, check::Faster> || std::is_same_v<K, check::NcclChoice>)
            model = true;
          else
            real = true;
        },
        c.claim);
  }
  std::vector<std::string> parts;
  if (real) parts.push_back("real run");
  if (recorded) parts.push_back("recorded run");
  if (published) parts.push_back("published table");
  if (model) parts.push_back("model");
  if (parts.empty()) parts.push_back("real run");
  return fmt::format("Checks ({})", fmt::join(parts, ", "));
}

}  // namespace microddp::viz
