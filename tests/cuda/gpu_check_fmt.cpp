// The compiled part of {fmt} for MICRODDP_GPU_CHECK_ONLY builds (tests/cuda/
// gpu_check.cmake), so that the other translation units need not include
// fmt's implementation (FMT_HEADER_ONLY costs ~15 s of compile per file).
// This is what fmt 9.1's src/format.cc does, against the carried headers
// (.gpu-deps/include/fmt from Debian 12's libfmt-dev 9.1.0); gpu_check.cmake
// only uses this file when the carried fmt is 9.1.x, and falls back to
// FMT_HEADER_ONLY otherwise.
#include <fmt/format-inl.h>

#if FMT_VERSION / 100 != 901
#error "gpu_check_fmt.cpp matches fmt 9.1 only (gpu_check.cmake should have used FMT_HEADER_ONLY)"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#endif
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);
}  // namespace detail
FMT_END_NAMESPACE
