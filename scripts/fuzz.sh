#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time, one after the other, each checking the
# invariants of docs/design.md (fuzz/src/checks.rs), and prints executions and crashes per target.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]
#
# Default 60 s per target; `scripts/fuzz.sh 5` is the smoke run (a few seconds per target). The
# corpus (fuzz/corpus/<target>, git-ignored) is seeded from generated sample transcripts
# (scripts/samples.mjs, when Node is available) and a few built-in inputs; libFuzzer keeps what
# it finds there for the next run. A crash leaves its input in fuzz/artifacts/<target>/ and makes
# the script exit 1 after the other targets ran; replay it with
#   cargo +nightly fuzz run <target> fuzz/artifacts/<target>/crash-...
# Needs the nightly toolchain; installs cargo-fuzz from crates.io when it is missing.
# FUZZ_TARGET_DIR overrides the build directory (default fuzz/target); FUZZ_CORPUS_DIR the corpus
# root (default fuzz/corpus: it grows from run to run, and libFuzzer replays all of it first, so a
# smoke run in a test command is best given a fresh one: FUZZ_CORPUS_DIR="$(mktemp -d)"). FUZZ_SANITIZER picks the
# sanitizer (default none: the core forbids unsafe code, and AddressSanitizer made the structured
# target about 4x slower here; `FUZZ_SANITIZER=address` turns it back on).
set -euo pipefail

seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"
all_targets=(structured messages_json body text cut state)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is required (rustup toolchain install nightly)" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz (about a minute, once)" >&2
  cargo install cargo-fuzz >&2
fi
corpus_root="${FUZZ_CORPUS_DIR:-$root/fuzz/corpus}"
target_dir=(--target-dir "${FUZZ_TARGET_DIR:-$root/fuzz/target}" --sanitizer "${FUZZ_SANITIZER:-none}")

# --- seed corpus -----------------------------------------------------------------------------
seed() { # seed <target> <name> : content from stdin
  mkdir -p "$corpus_root/$1"
  cat >"$corpus_root/$1/seed-$2"
}
printf '```tool_result name=bash\n%s\n```\n\n[age:12] very old block\n%s\n\n[age:1] fresh block\nkept content here' \
  "$(printf 'C%.0s' $(seq 900))" "$(printf 'stale content %.0s' $(seq 20))" | seed text seed-example
printf 'a\r\n```tool_result\r\n```\r\nnested\r\n```\r\n\r\n  [age:9] indented\r\nx' | seed text crlf-nested
printf '![shot](data:image/png;base64,iVBORw0KGgo=)\n```data:image/png;base64,iVBORw0KGgo\n```\n' | seed text media
printf '\x40👩‍👩‍👧‍👦 🇯🇵 e\xcc\x81 日本語 a\r\nb' | seed cut hard
printf '[{"role":"system","content":"s"},{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"%s"},{"role":"user","content":"next"}]' \
  "$(printf 'log %.0s' $(seq 100))" | seed messages_json openai-small
printf '[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{"cmd":"ls"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"%s"}]},{"role":"user","content":"next"}]' \
  "$(printf 'out %.0s' $(seq 100))" | seed messages_json anthropic-small
z16=0000000000000000
printf '{"version":1,"session":"%s","history":{"messages":5,"digest":"%s%s"},"output":{"messages":5,"digest":"%s%s"},"microSteps":1,"staleSteps":0,"replaced":[[{"start":1,"end":3,"kind":"run","text":"[digest]"}]],"check":"%s"}' \
  "$z16" "$z16" "$z16" "$z16" "$z16" "$z16" | seed state shape
printf '{}' | seed state empty
for i in 0 1 2 3 4; do # structured: any bytes decode to a conversation
  head -c 2048 /dev/urandom | seed structured "random-$i"
done
if command -v node >/dev/null 2>&1 && [ -f "$root/scripts/samples.mjs" ]; then
  node --input-type=module - "$corpus_root" "$root/scripts/samples.mjs" <<'JS' || echo "fuzz: sample seeds skipped" >&2
import { mkdirSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [corpus, samplesPath] = process.argv.slice(2);
const samples = await import(pathToFileURL(samplesPath).href);
const put = (target, name, content) => {
  mkdirSync(`${corpus}/${target}`, { recursive: true });
  writeFileSync(`${corpus}/${target}/seed-${name}`, content);
};
for (const [index, sample] of samples.samples().entries()) {
  if (sample.text !== undefined) {
    const lines = sample.text.split("\n");
    put("text", "sample", sample.text);
    put("text", "sample-head", lines.slice(0, 40).join("\n"));
    continue;
  }
  for (const count of [4, 8, sample.messages.length]) {
    const messages = sample.messages.slice(0, count);
    put("messages_json", `sample-${index}-${count}`, JSON.stringify(messages));
    for (const [tier, byte] of [["micro", 1], ["auto", 3], ["session", 4]]) {
      const body = JSON.stringify({ model: "m", messages, temperature: 0.2 });
      put("body", `sample-${index}-${count}-${tier}`, Buffer.concat([Buffer.from([byte]), Buffer.from(body)]));
    }
  }
}
const anthropic = samples.anthropicRequestBody?.();
if (anthropic) {
  for (const byte of [1, 2, 3, 4]) put("body", `anthropic-${byte}`, Buffer.concat([Buffer.from([byte]), Buffer.from(anthropic)]));
}
JS
fi

# --- run -------------------------------------------------------------------------------------
max_len() {
  case "$1" in
    structured | cut) echo 4096 ;;
    *) echo 65536 ;;
  esac
}
cargo +nightly fuzz build "${target_dir[@]}" 2>&1 | grep -vE '^\s+(Compiling|Finished|Running|Building)' >&2 || true
failed=()
summary=()
for target in "${targets[@]}"; do
  mkdir -p "artifacts/$target"
  log="artifacts/$target.log"
  start=$(date +%s)
  if cargo +nightly fuzz run "${target_dir[@]}" "$target" "$corpus_root/$target" -- \
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    status=ok
  else
    status=CRASH
    failed+=("$target")
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  if [ -z "$runs" ]; then
    runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  fi
  corpus=$(find "$corpus_root/$target" -type f | wc -l)
  summary+=("$(printf '%-14s %-6s %10s execs %5ss  corpus %5s' "$target" "$status" "${runs:-?}" "$(($(date +%s) - start))" "$corpus")")
  if [ "$status" = CRASH ]; then
    grep -E 'panicked at|Test unit written to|ERROR: libFuzzer' "$log" | head -5 | sed 's/^/    /' >&2
  fi
done
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]} (inputs in fuzz/artifacts/, logs in fuzz/artifacts/<target>.log)" >&2
  exit 1
fi
