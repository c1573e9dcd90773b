#!/usr/bin/env bash
# Installs the Debian packages microddp needs, only those that are missing.
# Idempotent: a second run installs nothing and needs no network.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config
  doctest-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  libfmt-dev libspdlog-dev libeigen3-dev libstb-dev
  libimgui-dev libglfw3-dev libgl-dev libcairo2-dev
  libopenmpi-dev openmpi-bin
  iproute2
  xvfb xauth clang
  ccache
  ffmpeg
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
