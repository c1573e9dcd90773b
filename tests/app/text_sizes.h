// The sizes at which the last frame really drew its text, read back from
// ImGui's draw data: every glyph is a textured quad whose top-left UV is the
// glyph's in the font atlas, and whose height is the glyph's height
// (ImFontGlyph Y1 - Y0, at the font's baked size) times size / FontSize.
// So each quad that starts at a glyph's UV gives the text size it was drawn
// at, whichever path drew it (ImGui::Text, AddText with a size,
// SetWindowFontScale). Glyphs that ImGui clipped on the CPU (UVs moved) are
// not counted; nor are quads outside the display (scrolled out of a child).
#pragma once
#include <imgui.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace microddp::viz::test {

struct DrawnGlyph {
  float px = 0;            // the text size it was drawn at (pixels)
  float x = 0, y = 0;      // top-left of its quad (screen pixels)
  float x1 = 0;            // right edge of its quad (screen pixels)
  float line_top = 0;      // the top of the line of text it is in (the quad's top less the glyph's offset)
  unsigned codepoint = 0;  // the character
  std::string list;        // ImDrawList owner name (the window or child)
};

inline std::vector<DrawnGlyph> drawn_glyphs() {
  std::vector<DrawnGlyph> out;
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd) return out;
  std::map<std::pair<float, float>, std::pair<const ImFont*, const ImFontGlyph*>> by_uv;
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  for (const ImFont* f : atlas->Fonts)
    for (const ImFontGlyph& g : f->Glyphs)
      if (g.Visible && g.Y1 > g.Y0) by_uv[{g.U0, g.V0}] = {f, &g};
  const ImVec2 disp = ImGui::GetIO().DisplaySize;
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList* dl = dd->CmdLists[l];
    const ImDrawVert* v = dl->VtxBuffer.Data;
    // Each vertex's clip rectangle, from the command whose indices use it.
    std::vector<ImVec4> clip(static_cast<size_t>(dl->VtxBuffer.Size), ImVec4(0, 0, disp.x, disp.y));
    for (const ImDrawCmd& c : dl->CmdBuffer)
      for (unsigned k = 0; k < c.ElemCount; ++k) {
        const unsigned vi = c.VtxOffset + dl->IdxBuffer[static_cast<int>(c.IdxOffset + k)];
        if (vi < clip.size()) clip[vi] = c.ClipRect;
      }
    // Glyph quads: PrimReserve(6, 4), vertices top-left, top-right,
    // bottom-right, bottom-left (ImFont::RenderText).
    for (int i = 0; i + 3 < dl->VtxBuffer.Size; ++i) {
      const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
      if (it == by_uv.end()) continue;
      const ImFontGlyph& g = *it->second.second;
      if (v[i + 1].uv.x != g.U1 || v[i + 2].uv.y != g.V1 || v[i + 3].uv.x != g.U0) continue;
      const float h = v[i + 2].pos.y - v[i].pos.y;
      if (h <= 0) continue;
      const ImVec4 cr = clip[static_cast<size_t>(i)];
      const float x0 = std::max({v[i].pos.x, cr.x, 0.f}), x1 = std::min({v[i + 1].pos.x, cr.z, disp.x});
      const float y0 = std::max({v[i].pos.y, cr.y, 0.f}), y1 = std::min({v[i + 2].pos.y, cr.w, disp.y});
      if (x1 <= x0 || y1 <= y0) continue;  // clipped away: not seen
      DrawnGlyph d;
      d.px = it->second.first->FontSize * h / (g.Y1 - g.Y0);
      d.x = v[i].pos.x, d.y = v[i].pos.y, d.x1 = v[i + 1].pos.x;
      d.line_top = v[i].pos.y - g.Y0 * d.px / it->second.first->FontSize;
      d.codepoint = g.Codepoint;
      d.list = dl->_OwnerName ? dl->_OwnerName : "";
      out.push_back(d);
      i += 3;
    }
  }
  return out;
}

}  // namespace microddp::viz::test
