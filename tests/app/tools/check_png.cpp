// check_png IMAGE PROBES WIDTH HEIGHT [MIN_PROBES]: the screenshot test's
// checker. Checks the size, that the image is not blank, that PROBES holds
// at least MIN_PROBES probes (default 10) and that every probe pixel written
// by `microddp-viz --probes` has the colour the scene gave it (within 6 per
// channel). Exit 0 ok, 1 with a message otherwise.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#define STBI_ONLY_PNG
#include <stb_image.h>  // implementation lives in libstb

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: check_png IMAGE PROBES WIDTH HEIGHT [MIN_PROBES]\n");
    return 2;
  }
  int w = 0, h = 0, ch = 0;
  unsigned char* px = stbi_load(argv[1], &w, &h, &ch, 4);
  if (!px) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  int fails = 0;
  if (w != std::atoi(argv[3]) || h != std::atoi(argv[4])) {
    std::fprintf(stderr, "size %dx%d, expected %sx%s\n", w, h, argv[3], argv[4]);
    ++fails;
  }
  std::set<unsigned> colours;
  for (int i = 0; i < w * h; i += 7) colours.insert(px[4 * i] << 16 | px[4 * i + 1] << 8 | px[4 * i + 2]);
  if (colours.size() < 20) {
    std::fprintf(stderr, "image looks blank: %zu distinct colours\n", colours.size());
    ++fails;
  }
  std::ifstream f(argv[2]);
  std::string line;
  int probes = 0;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    int x, y, r, g, b;
    if (line.rfind("size", 0) == 0) continue;
    if (!(ss >> x >> y >> r >> g >> b)) continue;
    std::string what;
    std::getline(ss, what);
    ++probes;
    if (x < 0 || y < 0 || x >= w || y >= h) {
      std::fprintf(stderr, "probe outside the image:%s\n", what.c_str());
      ++fails;
      continue;
    }
    const unsigned char* p = px + 4 * (static_cast<size_t>(y) * w + x);
    if (std::abs(p[0] - r) > 6 || std::abs(p[1] - g) > 6 || std::abs(p[2] - b) > 6) {
      std::fprintf(stderr, "probe (%d,%d)%s: got %d,%d,%d expected %d,%d,%d\n", x, y, what.c_str(), p[0], p[1], p[2], r, g, b);
      ++fails;
    }
  }
  const int min_probes = argc == 6 ? std::atoi(argv[5]) : 10;
  if (probes < min_probes) {
    std::fprintf(stderr, "only %d probes\n", probes);
    ++fails;
  }
  stbi_image_free(px);
  if (fails) return 1;
  std::printf("ok: %dx%d, %zu colours sampled, %d probes match\n", w, h, colours.size(), probes);
  return 0;
}
