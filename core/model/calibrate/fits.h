// Calibration fits (core/model/calibrate/fits.cpp): the weighted line
// t = α + m·β through ping-pong times, split in two at the best break, and
// the profile's message lines from it. Part of calibrate.h (the method).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/protocol.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"

namespace microddp {

struct FitPoint {
  int64_t bytes = 0;
  double seconds = 0;
};

struct LineFit {
  double alpha = 0, beta = 0;   // s, s/byte
  double rms_rel = 0;           // root-mean-square of (fit - t) / t
  double max_rel = 0;           // largest |fit - t| / t
  int64_t worst_bytes = 0;      // where max_rel occurs
  // The free line's intercept was below zero (no latency is negative), so
  // this is the line through zero instead: alpha = 0, and beta, rms_rel,
  // max_rel are that line's (the one the profile keeps).
  bool through_zero = false;
};

// Weighted least squares (weights 1/t²) of t = α + m·β. When the intercept
// comes out below zero the fit is made again with α = 0 (the best line with
// α >= 0: β = Σ(m/t) / Σ(m²/t²)) and through_zero is set. Needs >= 2
// points with distinct sizes; throws std::invalid_argument otherwise.
LineFit fit_line(const std::vector<FitPoint>& pts);

struct CalibrationFit {
  LineFit one;                 // a single line through every point
  int64_t break_bytes = 0;     // 0 = one line fits; else first size of the large-message line
  LineFit small, large;        // valid when break_bytes > 0
};
// One line, or two split at the best break (>= 3 points each side) when the
// single line's max relative residual exceeds 15%.
CalibrationFit fit_message_times(const std::vector<FitPoint>& pts);

// The profile's message lines from the ping-pong's fit: α and β from the
// large-message line (the single line when there is no break), the small
// line's α and β below break_bytes. When the large line is fitted through
// zero (its free intercept fell below 0: the time per byte grows across a
// cache edge among its sizes, so the line resolves no latency), its α is
// the small line's: a message's fixed cost (posting it, the receiver
// seeing it) does not shrink because the message is large, and with α = 0
// the messages just above the break lost about 0.7 µs each (measured on
// the Zen 5 guest, 2026-12-02: with one profile, bench's naive and tree
// all-reduce on 2 ranks came out 21-39% under at 32-256 KiB; with the
// same profile and this α, 5-17% under, two runs minutes apart). β is
// not fitted again with that α: the kept line, α_small + m·β, lies α above
// the through-zero line calibrate prints (about 0.7 µs; at the split about
// 20% of a message's time, under 1% from 1 MiB). No value below 0 is kept.
void set_message_lines(CostParams& p, const CalibrationFit& fit);

// One line describing a fit for calibrate's output (no newline), prefixed
// by `what`. A free line: "α = .. µs, bandwidth = .. GB/s, n½ = α/β = .. B,
// residuals ...". A line through zero (through_zero) gets no α or n½:
// "bandwidth only, through zero: .. GB/s, residuals ...; the free line's
// intercept was below zero, ..."; its residuals are the stored line's.
std::string fit_line_text(const std::string& what, const LineFit& f);

}  // namespace microddp
