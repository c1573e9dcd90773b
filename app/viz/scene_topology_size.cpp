// The ranks' circles at the text size (build_topology calls these;
// scene_topology_parts.h declares them): the least radius that holds a
// label, and the radius of a layout's circles before any layout shrinks it.
#include <algorithm>
#include <cmath>

#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"
#include "core/record/printer.h"

namespace microddp::viz {

namespace {
constexpr float kPi = 3.14159265358979f;
}  // namespace

// The least radius whose circle holds every rank's label at px: the
// corners of its glyphs' band (its width, 0.8 of its height) 1 px inside.
float label_radius(const Schedule& s, const TopologyText& tx, float px) {
  float wmax = 0;
  for (int e = 0; e < s.spec.world_size; ++e) wmax = std::max(wmax, tx.measure(endpoint_name(s, e), px));
  return std::hypot(wmax / 2, 0.4f * px) + 1;
}

RankSize size_ranks(const Schedule& s, TopologyKind kind, float w, float h, const TopologyText& tx) {
  const int n = s.spec.world_size;
  const auto need_r = [&](float px) { return label_radius(s, tx, px); };
  // Node radius: room for a label, shrinking with the world size; grown to
  // hold its label at the text size with a margin, up to where neighbours
  // on a circle filling the canvas keep room for an arrow and its head
  // between them. Where even the least text size does not fit, the labels
  // go beside the circles: the circle of ranks shrinks to leave them room.
  float radius = std::clamp(std::min(w, h) * 0.42f * std::sin(kPi / std::max(n, 2)) * 0.55f, 7.f,
                            std::min(w, h) * 0.085f);
  float label_reach = 0;  // the room of the labels beside their circles
  {
    const bool round = kind == TopologyKind::ring || kind == TopologyKind::circle ||
                       kind == TopologyKind::full_mesh || kind == TopologyKind::star ||
                       kind == TopologyKind::switch_star;
    const float m = std::min(w, h), sn = std::sin(kPi / float(std::max(n, 2)));
    const auto fit_in = [&](float mm) {
      return std::min(((mm / 2 - 10) * 2 * sn - 10) / (2.9f + 2 * sn), mm * 0.2f);
    };
    float fit = fit_in(m);
    if (round && n > 1 && need_r(tx.min_px) > fit) {
      const float out_px = std::min(tx.font_px, std::max(tx.min_px, 0.75f * tx.font_px));
      float wmax = 0;
      for (int e = 0; e < n; ++e) wmax = std::max(wmax, tx.measure(endpoint_name(s, e), out_px));
      const float fit2 = std::max(fit_in(m - 2 * (wmax + 4)), 5.f);
      // The labels around the ranks' circle need a chord of their width.
      const float R2 = m / 2 - fit2 - 10 - (wmax + 4);
      if (2 * (R2 + fit2 + 3 + out_px / 2) * sn >= wmax + 4) {
        label_reach = wmax + 4;
        fit = fit2;
      } else {
        // A canvas too small for either (a compare column beside the
        // controls): the circles as large as they fit 4 px apart, their
        // labels at the least size on plates over them (place_labels).
        fit = std::max(((m / 2 - 10) * sn - 2) / (1 + sn), 7.f);
      }
    }
    radius = std::max(7.f, std::min(fit, std::max(radius, need_r(tx.font_px) * 1.2f)));
  }
  return RankSize{radius, label_reach, label_reach > 0};
}

}  // namespace microddp::viz
