// Glyphs that the last frame drew only in part: a glyph's quad reaching
// past the clip rectangle of the draw command that drew it (the GPU cuts
// it there: a line of text cut at a panel's edge). ImGui leaves out a
// glyph wholly outside the rectangle, so a cut line shows as its one glyph
// that straddles the edge. Read back from ImGui's draw data as
// text_sizes.h reads glyph sizes; for layout tests, no GL.
#pragma once
#include <fmt/format.h>
#include <imgui.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace microddp::viz::test {

// In draw lists whose owner name contains `list_part`: "'C' at x 1262-1281,
// clip right 1270 in microddp-viz/lesson_1A2B3C4D" for each glyph cut at the
// clip's right edge (and at its bottom when `bottom`).
inline std::vector<std::string> cut_glyphs(const std::string& list_part, bool bottom = false) {
  std::vector<std::string> out;
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd) return out;
  std::map<std::pair<float, float>, const ImFontGlyph*> by_uv;
  for (const ImFont* f : ImGui::GetIO().Fonts->Fonts)
    for (const ImFontGlyph& g : f->Glyphs)
      if (g.Visible && g.Y1 > g.Y0) by_uv[{g.U0, g.V0}] = &g;
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList* dl = dd->CmdLists[l];
    const std::string name = dl->_OwnerName ? dl->_OwnerName : "";
    if (name.find(list_part) == std::string::npos) continue;
    const ImDrawVert* v = dl->VtxBuffer.Data;
    std::vector<ImVec4> clip(static_cast<size_t>(dl->VtxBuffer.Size), ImVec4(-1e9f, -1e9f, 1e9f, 1e9f));
    for (const ImDrawCmd& c : dl->CmdBuffer)
      for (unsigned k = 0; k < c.ElemCount; ++k) {
        const unsigned vi = c.VtxOffset + dl->IdxBuffer[static_cast<int>(c.IdxOffset + k)];
        if (vi < clip.size()) clip[vi] = c.ClipRect;
      }
    for (int i = 0; i + 3 < dl->VtxBuffer.Size; ++i) {
      const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
      if (it == by_uv.end()) continue;
      const ImFontGlyph& g = *it->second;
      if (v[i + 1].uv.x != g.U1 || v[i + 2].uv.y != g.V1 || v[i + 3].uv.x != g.U0) continue;
      const ImVec4 cr = clip[static_cast<size_t>(i)];
      const float x0 = v[i].pos.x, x1 = v[i + 1].pos.x, y0 = v[i].pos.y, y1 = v[i + 2].pos.y;
      const bool seen = y1 > cr.y && y0 < cr.w && x1 > cr.x && x0 < cr.z;  // not wholly clipped away
      const bool cut_right = x1 > cr.z + 0.5f, cut_bottom = bottom && y1 > cr.w + 0.5f;
      if (seen && (cut_right || cut_bottom))
        out.push_back(fmt::format("'{}' at x {:.0f}-{:.0f} y {:.0f}-{:.0f}, clip right {:.0f} bottom {:.0f} in {}",
                                  g.Codepoint < 128 ? char(g.Codepoint) : '?', x0, x1, y0, y1, cr.z, cr.w, name));
      i += 3;
    }
  }
  return out;
}

}  // namespace microddp::viz::test
