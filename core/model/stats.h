// Order statistics of measured samples, shared by bench, calibrate and the
// lesson checks (labs), so every figure called "median" is the same one.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace microddp {

// The median of v (taken by value: sorted in place on the copy). An even
// number of samples gives the mean of the two middle ones; an empty vector
// gives 0, which callers report as "no samples" (a time or ratio of 0).
// Any NaN sample gives NaN (sorting NaN is undefined; a NaN figure must
// fail every comparison made with it).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); }))
    return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Median absolute deviation: the typical distance of a sample from the
// median, unmoved by one outlier (one run slowed down by another process).
// Same unit as the samples; 0 for an empty vector.
inline double mad(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - m));
  return median(d);
}

}  // namespace microddp
