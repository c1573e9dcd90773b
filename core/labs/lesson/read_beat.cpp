// The parts of a beat every beat kind reads alike (read_beat.h): view and
// compare, at, highlight, minutes and optional, question.
#include "core/labs/lesson/read_beat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/algorithms/registry.h"
#include "core/model/lab_record.h"
#include "core/model/nccl_tests.h"
#include "core/model/nccl_tuner.h"

namespace microddp::lesson {

using namespace yaml;

// The beat's `view:` (one of `allowed`) and, with `view: compare`, its
// `compare:` map: algorithms of `collective` and the sweep's sizes. The
// largest size is the window's slider's (256M; a model's 4G); sizes are bytes with K / M / G.
void read_view(const Ctx& c, const YAML::Node& bn, BeatView& v, const std::vector<std::string>& allowed,
               Collective collective) {
  if (bn["view"]) {
    const std::string k = one_of(c, bn["view"], "view", allowed);
    v.kind = k == "compare" ? BeatView::Kind::compare
             : k == "ddp"   ? BeatView::Kind::ddp
             : k == "topology" ? BeatView::Kind::topology
                               : BeatView::Kind::steps;
  }
  if (!bn["compare"]) return;
  const YAML::Node n = bn["compare"];
  if (v.kind != BeatView::Kind::compare) c.fail(n, "'compare' (algorithms, sizes) needs 'view: compare' in the same beat");
  only_keys(c, n, "compare", {"algorithms", "sizes", "source", "file", "system", "ranks", "protocols"});
  if (n["source"]) v.source = one_of(c, n["source"], "source", {"shm", "lab", "recorded", "model", "published"});
  if (n["system"]) {
    if (v.source != "model" && v.source != "published") c.fail(n["system"], "'system' goes with 'source: model' or 'source: published'");
    v.system = str(c, n["system"], "system");
    try {
      nccl::system_preset(v.system);
    } catch (const UsageError& e) {
      c.fail(n["system"], e.what());
    }
  }
  if (n["protocols"]) {
    if (v.source != "model") c.fail(n["protocols"], "'protocols' goes with 'source: model'");
    v.protocols = boolean(c, n["protocols"], "protocols");
  }
  if (n["ranks"]) {
    if (v.source != "model") c.fail(n["ranks"], "'ranks' goes with 'source: model' (the ranks the model prices)");
    v.ranks = static_cast<int>(integer(c, n["ranks"], "ranks", 2, nccl::kMaxTunerRanks));
  }
  if (n["file"]) {
    if (v.source != "recorded" && v.source != "published") c.fail(n["file"], "'file' goes with 'source: recorded' or 'source: published'");
    v.file = data_file(c, n["file"], str(c, n["file"], "file"));
    try {  // read now, so that a bad file fails at its line when the lesson loads
      if (v.source == "recorded") load_lab_record(v.file);
      else load_nccl_tests(v.file);
    } catch (const UsageError& e) {
      c.fail(n["file"], e.what());
    }
  }
  if (n["algorithms"]) {
    const auto& known = algorithms_for(collective);
    for (const auto& e : seq(c, n["algorithms"], "algorithms")) {
      const std::string a = str(c, e, "algorithms");
      if (std::find(known.begin(), known.end(), a) == known.end())
        c.fail(e, fmt::format("'{}' is not an algorithm of {} (expected one of: {})", a, name(collective), join(known)));
      if (std::find(v.algorithms.begin(), v.algorithms.end(), a) != v.algorithms.end())
        c.fail(e, fmt::format("'{}' is listed twice in 'algorithms' (each algorithm once)", a));
      v.algorithms.push_back(a);
    }
    if (v.algorithms.empty()) c.fail(n["algorithms"], "'algorithms' needs at least one algorithm");
  }
  if (n["sizes"]) {
    const YAML::Node z = n["sizes"];
    only_keys(c, z, "sizes", {"min", "max"});
    // (A model runs nothing: its sizes go up to 4G, lesson 12 beat 3's 1 GiB.)
    const bool model = v.source == "model";
    const int64_t kMax = model ? int64_t{4} << 30 : int64_t{256} << 20;
    for (const char* key : {"min", "max"}) {
      if (!z[key]) continue;
      const int64_t b = bytes_with_unit(str(c, z[key], key));
      if (b < 1 || b > kMax)
        c.fail(z[key], fmt::format("'{}' must be a size from 1 to {} bytes ({} = powers of 1024); got '{}'", key,
                                   model ? "4G" : "256M", model ? "K, M, G" : "K, M", z[key].Scalar()));
      (std::string(key) == "min" ? v.min_bytes : v.max_bytes) = b;
    }
    if (v.min_bytes > v.max_bytes)
      c.fail(z, fmt::format("'min' ({} bytes) is above 'max' ({} bytes)", v.min_bytes, v.max_bytes));
  }
}

Target read_target(const Ctx& c, const YAML::Node& n) {
  Target t;
  if (n.IsMap()) {
    only_keys(c, n, "at", {"phase"});
    if (!n["phase"]) c.fail(n, "'at' as a mapping needs 'phase: NAME'");
    t.kind = Target::Kind::phase;
    t.phase = str(c, n["phase"], "phase");
    return t;
  }
  const std::string s = str(c, n, "at");
  if (s == "start") t.kind = Target::Kind::start;
  else if (s == "end") t.kind = Target::Kind::end;
  else {
    t.kind = Target::Kind::step;
    size_t used = 0;
    try {
      t.step = std::stoi(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || t.step < 0)
      c.fail(n, fmt::format("'at' must be a step number (0, 1, ...), start, end or {{phase: NAME}}; got '{}'", s));
  }
  return t;
}

Highlights read_highlights(const Ctx& c, const YAML::Node& n) {
  only_keys(c, n, "highlight", {"ranks", "chunks", "buffers", "links"});
  Highlights h;
  if (n["ranks"])
    for (const auto& e : seq(c, n["ranks"], "ranks")) h.ranks.push_back(static_cast<int>(integer(c, e, "ranks", 0, 63)));
  if (n["chunks"])
    for (const auto& e : seq(c, n["chunks"], "chunks"))
      h.chunks.push_back(static_cast<int>(integer(c, e, "chunks", 0, 1 << 20)));
  if (n["buffers"])
    for (const auto& e : seq(c, n["buffers"], "buffers")) h.buffers.push_back(one_of(c, e, "buffers", kBufNames));
  if (n["links"])
    for (const auto& e : seq(c, n["links"], "links")) {
      const std::string s = str(c, e, "links");
      int a = -1, b = -1;
      char tail = 0;
      if (std::sscanf(s.c_str(), "%d->%d%c", &a, &b, &tail) != 2 || a < 0 || b < 0)
        c.fail(e, fmt::format("a link is written 'FROM->TO' (e.g. '2->0'), got '{}'", s));
      h.links.emplace_back(a, b);
    }
  return h;
}

// A beat's `minutes:` (the lecture plan): a number of minutes in
// kMinBeatMinutes..kMaxBeatMinutes, or the default when absent; and its
// `optional:` (true or false: a short lecture may skip it).
void read_minutes(const Ctx& c, const YAML::Node& bn, Beat& b) {
  if (!bn.IsMap()) return;
  if (bn["optional"]) b.optional = boolean(c, bn["optional"], "optional");
  if (!bn["minutes"]) return;
  if (bn["minutes"].IsNull())  // "minutes:" alone: at its own line, not the next one
    c.fail(key_node(bn, "minutes"), "'minutes' must be a number (the minutes planned for this beat), got nothing");
  const double m = number(c, bn["minutes"], "minutes");
  if (!(m >= kMinBeatMinutes && m <= kMaxBeatMinutes))
    c.fail(bn["minutes"], fmt::format("'minutes' is the time planned for this beat, {:g}..{:g} minutes; got '{}'",
                                      kMinBeatMinutes, kMaxBeatMinutes, bn["minutes"].Scalar()));
  b.minutes = m;
  b.minutes_given = true;
}

Question read_question(const Ctx& c, const YAML::Node& n) {
  only_keys(c, n, "question", {"ask", "choices", "answer", "tolerance", "explain"});
  Question q;
  if (!n["ask"]) c.fail(n, "a question needs 'ask'");
  if (!n["answer"]) c.fail(n, "a question needs 'answer' (a choice number, or the value to type)");
  q.ask = str(c, n["ask"], "ask");
  if (n["explain"]) q.explain = str(c, n["explain"], "explain");
  if (n["choices"]) {
    for (const auto& e : seq(c, n["choices"], "choices")) q.choices.push_back(str(c, e, "choices"));
    if (q.choices.size() < 2) c.fail(n["choices"], "'choices' needs at least two entries");
    q.answer = static_cast<int>(integer(c, n["answer"], "answer", 1, static_cast<int64_t>(q.choices.size())));
    if (n["tolerance"]) c.fail(n["tolerance"], "'tolerance' is for typed values, not for choices");
  } else {
    q.value = number(c, n["answer"], "answer");
    if (n["tolerance"]) {
      q.tolerance = number(c, n["tolerance"], "tolerance");
      if (q.tolerance < 0)  // a negative tolerance would make every answer wrong
        c.fail(n["tolerance"], fmt::format("'tolerance' must be 0 or more, got '{}'", n["tolerance"].Scalar()));
    }
  }
  return q;
}

}  // namespace microddp::lesson
