// Order statistics of measured samples, shared by bench, calibrate and the
// lesson checks (labs), so every figure called "median" is the same one.
#pragma once
#include <algorithm>
#include <vector>

namespace microddp {

// The median of v (taken by value: sorted in place on the copy). An even
// number of samples gives the mean of the two middle ones; an empty vector
// gives 0, which callers report as "no samples" (a time or ratio of 0).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace microddp
