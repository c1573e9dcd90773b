// The window's font (app/viz/platform.h): every character the UI's string
// literals and the shipped lessons' texts use is in the glyph ranges that
// add_fonts loads, so none is drawn as ImGui's fallback "?".
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/platform.h"

using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The code points of UTF-8 text (an invalid byte is returned as itself,
// which no range covers above 0x7F, so the test names it).
std::vector<char32_t> code_points(const std::string& s) {
  std::vector<char32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out.push_back(b);
      ++i;
      continue;
    }
    char32_t c = len == 1 ? b : b & (0x7F >> len);
    for (int k = 1; k < len; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(c);
    i += len;
  }
  return out;
}

// The text inside the double-quoted string literals of C++ source, with
// comments skipped (character literals too, so '"' opens nothing). No
// raw string literals: app/viz has none.
std::string string_literals(const std::string& src) {
  std::string out;
  enum { code, str, chr, line_comment, block_comment } st = code;
  for (size_t i = 0; i < src.size(); ++i) {
    const char c = src[i], n = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (st) {
      case code:
        if (c == '/' && n == '/') st = line_comment, ++i;
        else if (c == '/' && n == '*') st = block_comment, ++i;
        else if (c == '"') st = str;
        else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(src[i - 1]))))
          st = chr;  // (after a digit it separates digits: 20'000)
        break;
      case str:
      case chr:
        if (c == '\\') {
          if (st == str) out += n;
          ++i;
        } else if ((st == str && c == '"') || (st == chr && c == '\'')) {
          st = code;
          if (c == '"') out += '\n';
        } else if (st == str) {
          out += c;
        }
        break;
      case line_comment:
        if (c == '\n') st = code;
        break;
      case block_comment:
        if (c == '*' && n == '/') st = code, ++i;
        break;
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("font") {
  TEST_CASE("the UI font's ranges hold the ellipsis and the other marks the UI uses, and no more") {
    for (const char32_t c : {U' ', U'~', U'µ', U'·', U'×', U'α', U'β', U'–', U'—', U'…', U'→', U'−', U'≈', U'≤', U'≥',
                             U'✓', U'✗'})
      CHECK_MESSAGE(ui_font_covers(c), fmt::format("U+{:04X}", uint32_t(c)));
    for (const char32_t c : {U'\x1F', U'\u0100', U'\u2025', U'\u2027', U'\u2603', U'\u2714'})
      CHECK_FALSE_MESSAGE(ui_font_covers(c), fmt::format("U+{:04X}", uint32_t(c)));
  }

  TEST_CASE("every character of the UI's string literals and the shipped lessons is in the font's ranges") {
    const fs::path root = MICRODDP_SOURCE_DIR;
    std::map<char32_t, std::string> missing;  // code point -> the first file using it
    int files = 0, non_ascii = 0;
    const auto scan = [&](const fs::path& p, const std::string& text) {
      ++files;
      for (const char32_t c : code_points(text)) {
        if (c == '\n' || c == '\t' || c == '\r') continue;
        non_ascii += c > 0x7F;
        if (!ui_font_covers(c)) missing.emplace(c, p.filename().string());
      }
    };
    for (const auto& e : fs::directory_iterator(root / "app" / "viz")) scan(e.path(), string_literals(read_all(e.path())));
    for (const auto& e : fs::directory_iterator(root / "lessons"))
      if (e.path().extension() == ".yaml") scan(e.path(), read_all(e.path()));
    CHECK(files > 40);
    CHECK(non_ascii > 100);  // the lessons' µ, ×, α, β, ≈ at least: the scan sees them
    for (const auto& [c, where] : missing) FAIL_CHECK(fmt::format("U+{:04X} in {} is not in the font's ranges", uint32_t(c), where));
  }

  TEST_CASE("DejaVu Sans, as add_fonts loads it, has the ellipsis and the micro sign of \"µs\"") {
    const char* dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (!fs::exists(dejavu)) {
      MESSAGE("DejaVu Sans is not installed: ImGui's default font (ASCII) is used instead; not checked");
      return;
    }
    test::Headless h;
    add_fonts(18);
    ImGuiIO& io = ImGui::GetIO();
    unsigned char* px = nullptr;
    int w = 0, ht = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &ht);
    REQUIRE(io.Fonts->Fonts.Size == 1);
    const ImFont* font = io.Fonts->Fonts[0];
    for (const char32_t c : {U'…', U'α', U'✓', U'µ'}) {
      INFO(fmt::format("U+{:04X}", uint32_t(c)));
      const ImFontGlyph* g = font->FindGlyphNoFallback(static_cast<ImWchar>(c));
      REQUIRE(g != nullptr);
      CHECK(g->Visible);  // an outline, not an empty box
    }
    CHECK(font->FindGlyphNoFallback(static_cast<ImWchar>(U'\u2603')) == nullptr);  // outside the ranges
  }
}
