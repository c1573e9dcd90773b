// Relative comparison for the model's tests. doctest::Approx's default
// tolerance is epsilon × (1 + max(|a|, |b|)): about 1e-5 ABSOLUTE for
// values far below 1, so two times of a few µs or ns in seconds always
// compare equal. rel(v) shrinks the 1 to 1e-300: a relative tolerance of
// about 1.2e-5 at any magnitude (and 0 still equals 0).
#pragma once
#include <doctest/doctest.h>

inline doctest::Approx rel(double v) { return doctest::Approx(v).scale(1e-300); }
