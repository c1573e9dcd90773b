// A beat's text for the lesson panel (lesson_view.h): text runs
// (*emphasis*, `code`, paragraphs, indented lines), wrapping at spaces only,
// and the checks' lines (lesson_text.h lays a beat's runs out in lines).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "app/viz/lesson_text.h"
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

namespace {

// A word wider than `width` in parts that fit, broken after its '_' or '/'
// ("MICRODDP_VIZ_" "SKIP_CHECKS": the checks' skip line at 28 px was cut
// at the column's edge); the word whole where it has no such place.
std::vector<std::string> split_long_word(const std::string& word, float width,
                                         const std::function<float(std::string_view)>& measure) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t i = 0; i < word.size(); ++i)
    if ((word[i] == '_' || word[i] == '/') && i + 1 < word.size()) parts.push_back(word.substr(from, i + 1 - from)), from = i + 1;
  parts.push_back(word.substr(from));
  std::vector<std::string> out;
  for (const std::string& p : parts) {
    if (!out.empty() && measure(out.back() + p) <= width) out.back() += p;
    else out.push_back(p);
  }
  return out;
}

}  // namespace

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
    if (measure(joined) <= width) {
      line = joined;
      continue;
    }
    if (measure(word) > width) {  // too wide for any line: its parts (split_long_word), from a line of their own
      if (!line.empty()) lines.push_back(line);
      std::vector<std::string> parts = split_long_word(word, width, measure);
      line = parts.back();
      parts.pop_back();
      for (std::string& p : parts) lines.push_back(std::move(p));
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line = word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::vector<RunLine> wrap_runs(const std::vector<TextRun>& runs, float width, float space,
                               const std::function<float(std::string_view)>& measure) {
  // Words with their run and whether a space comes before; `start`: a new
  // line before it (the run's newline flag, or after an indented line).
  struct Word {
    RunPiece piece;
    bool start = false, paragraph = false;
  };
  std::vector<RunLine> lines;
  std::vector<Word> words;
  bool gap = false, start = true;
  const auto flush = [&] {
    // Groups of touching words, placed greedily.
    float x = 0;
    bool open = false;  // the last line takes more words
    for (size_t i = 0; i < words.size();) {
      size_t j = i + 1;
      float w = measure(words[i].piece.text);
      while (j < words.size() && !words[j].piece.gap && !words[j].start) w += measure(words[j].piece.text), ++j;
      const bool whole = w <= width;  // else its words one by one
      for (size_t k = i; k < (whole ? j : i + 1); ++k) {
        const Word& wd = words[k];
        const float ww = whole && k > i ? 0 : whole ? w : measure(wd.piece.text);
        const float lead = wd.piece.gap ? space : 0;
        if (wd.start || !open || (k == i && x + lead + ww > width)) {
          lines.push_back(RunLine{{}, wd.paragraph});
          RunPiece p = wd.piece;
          p.gap = false;
          lines.back().pieces.push_back(std::move(p));
          x = ww, open = true;
        } else {
          lines.back().pieces.push_back(wd.piece);
          x += lead + ww;
        }
      }
      i = whole ? j : i + 1;
    }
    words.clear();
  };
  for (size_t r = 0; r < runs.size(); ++r) {
    const TextRun& run = runs[r];
    if (run.newline || run.paragraph) start = true, gap = false;
    if (run.pre) {  // an indented line: as is, or broken at spaces, the rest indented further
      flush();
      const size_t ind = run.text.find_first_not_of(" \t");
      const std::string indent = run.text.substr(0, ind == std::string::npos ? run.text.size() : ind);
      std::vector<std::string> ls{run.text};
      if (measure(run.text) > width && ind != std::string::npos) {
        const std::string lead = indent + "    ";
        ls = wrap_words(run.text.substr(ind), width - measure(lead), measure);
        for (size_t k = 0; k < ls.size(); ++k) ls[k] = (k == 0 ? indent : lead) + ls[k];
      }
      for (size_t k = 0; k < ls.size(); ++k) lines.push_back(RunLine{{RunPiece{ls[k], r, false}}, k == 0 && run.paragraph});
      start = true, gap = false;
      continue;
    }
    bool first = true;
    for (size_t i = 0; i < run.text.size();) {
      if (run.text[i] == ' ') {
        gap = true;
        ++i;
        continue;
      }
      const size_t e = std::min(run.text.find(' ', i), run.text.size());
      words.push_back(Word{RunPiece{run.text.substr(i, e - i), r, gap && !start}, start, start && first && run.paragraph});
      i = e;
      gap = start = first = false;
    }
  }
  flush();
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
