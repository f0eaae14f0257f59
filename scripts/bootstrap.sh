#!/usr/bin/env bash
# Installs what building and testing need, and does nothing where it is already done:
#   - the Rust target wasm32-unknown-unknown (rustup);
#   - wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in Cargo.lock, into the
#     git-ignored .tools/ (a mismatched CLI produces glue that does not load);
#   - wasm-pack at a pinned version, into .tools/ too (the build and the wasm tests run through it,
#     always with `--mode no-install`, so it finds the tools above and never downloads);
#   - the npm devDependencies (binaryen's wasm-opt, typescript, deno, bun, workerd, ...);
#   - Chromium and chromedriver from apt, for the browser tests, when missing and apt is usable.
# Prints one line per step. Safe to run any number of times.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '[bootstrap] %s\n' "$*"; }

command -v cargo >/dev/null || { echo "cargo is required: install Rust from https://rustup.rs" >&2; exit 1; }
command -v node >/dev/null || { echo "node (>= 20) is required" >&2; exit 1; }

# 1. Rust target.
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  step "rust target wasm32-unknown-unknown: present"
else
  step "rust target wasm32-unknown-unknown: installing"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli, pinned to the crate version in Cargo.lock. No --locked: the CLI's own
#    lockfile pins a webpki-roots version the registry index this project is built against lacks.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(.tools/bin/wasm-bindgen --version 2>/dev/null || true)
if [ "$have" = "wasm-bindgen $want" ]; then
  step "wasm-bindgen-cli $want: present"
else
  step "wasm-bindgen-cli $want: installing into .tools/ (about 2 minutes, once)"
  cargo install --root .tools wasm-bindgen-cli --version "$want"
fi

# 3. wasm-pack, pinned. --locked works for it here (its lockfile resolves against this registry
#    index, unlike wasm-bindgen-cli's); about 100 s once on an idle two-core machine.
wasm_pack_version=0.15.1
if [ "$(.tools/bin/wasm-pack --version 2>/dev/null || true)" = "wasm-pack $wasm_pack_version" ]; then
  step "wasm-pack $wasm_pack_version: present"
else
  step "wasm-pack $wasm_pack_version: installing into .tools/ (about 100 s, once)"
  cargo install --locked --root .tools wasm-pack --version "$wasm_pack_version"
fi

# 4. npm packages: reinstall when package.json or package-lock.json is newer than the install.
marker=node_modules/.package-lock.json
if [ -f "$marker" ] && [ "$marker" -nt package.json ] && { [ ! -f package-lock.json ] || [ "$marker" -nt package-lock.json ]; }; then
  step "npm packages: up to date"
elif [ -f package-lock.json ]; then
  step "npm packages: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
else
  step "npm packages: npm install"
  npm install --no-audit --no-fund --loglevel=error
fi

# 5. Chromium + chromedriver for the wasm-bindgen browser tests (`wasm-pack test --chrome` is given
#    /usr/bin/chromedriver; it would otherwise download one). Skipped (and said so) where apt
#    cannot be used; the test runner then reports the browser tests as not run.
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  step "chromium + chromedriver: present"
elif command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }; then
  step "chromium + chromedriver: installing with apt (about a minute, once)"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo -n"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
else
  step "chromium + chromedriver: missing and apt is not usable here; browser tests will be skipped"
fi
