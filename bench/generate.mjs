// Seeded generators for the benchmarks: realistic coding-agent transcripts (one abstract
// conversation rendered as OpenAI Chat Completions messages, Vercel AI SDK ModelMessages and
// LangChain messages) and a mixed text corpus for token counting (English, code, JSON, logs,
// CJK, emoji, base64). Everything is a pure function of the seed: the same seed gives the same
// bytes on every machine, so BENCHMARKS.md rows are comparable across runs.

/** A small, fast, seeded PRNG (xoshiro128**): numbers in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0 || 0x9e3779b9;
  let b = (seed * 2654435761) >>> 0 || 0x85ebca6b;
  let c = 0xc2b2ae35;
  let d = 0x27d4eb2f;
  const next = () => {
    // xoshiro128** (Blackman & Vigna), written from its definition.
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  const random = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
    /** Log-uniform integer in [lo, hi]: many small values, a long tail of large ones. */
    logUniform: (lo, hi) => Math.round(Math.exp(Math.log(lo) + next() * (Math.log(hi) - Math.log(lo)))),
  };
  return random;
}

function rotl(x, k) {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Vocabularies (written for this file).

const WORDS = (
  "the of and to in is that for it as with was on be by this are or from at an which have not " +
  "but had they you were their one all we can her has there been if more when will would who so " +
  "no about what up out into than them only other new some could time these two may then do " +
  "first any my now such like our over man me even most made after also did many before must " +
  "through back years where much your way well down should because each just those people how " +
  "too little state good very make world still own see men work long get here between both life " +
  "being under never day same another know while last might us great old year off come since " +
  "against go came right used take three himself few house use during without again place " +
  "around however home small found thought went say part once general high upon school every " +
  "does got united left number course war until always away something fact though water less " +
  "public put think almost hand enough far took head yet government system better set told " +
  "nothing night end why called didn eyes find going look asked later knew point next program " +
  "city business give group toward young days let room president side social given present " +
  "several order national possible rather second face per among form important often things " +
  "looked early white case john become large big need four within felt along children saw best " +
  "church ever least power development light thing seemed family interest want members mind " +
  "country area others done turned although open god service certain kind problem began " +
  "different door thus help sense means whole matter perhaps itself york times law human line " +
  "above name example action company hands local show whether five history gave today either " +
  "act feet across taken past quite anything seen having death experience body word half really " +
  "field am car words already themselves information tell together college shall money period " +
  "held keep sure probably free seems political real behind cannot miss question air office " +
  "making brought whose special heard major problems ago became federal moment study available " +
  "known result street economic boy position reason change south board individual job society " +
  "areas west close turn love community true court force full seem am front feel policy " +
  "test build failing function module config deploy database request response error server " +
  "client handler endpoint migration dependency package version release branch commit review " +
  "refactor performance latency cache memory thread queue worker timeout retry schema payload"
).split(" ");

const LONG_WORDS = (
  "configuration asynchronously idempotent serialization infrastructure authentication approximately " +
  "responsibility implementation dependencies compatibility intermittently reproducible deterministic " +
  "nevertheless troubleshooting observability vulnerability acknowledgement notwithstanding " +
  "representative undocumented misconfigured concurrency throughput deprecation interoperability " +
  "prerequisites encapsulation instantiation parallelization synchronization characteristics " +
  "unfortunately straightforward extraordinarily circumstances internationalization recommendation " +
  "backpressure tokenizer debuggability initialisation behaviour colour organisation analyse " +
  "kubernetes postgres webpack typescript rustc clippy serde tokio ingress daemonset"
).split(" ");

const IDENTS = (
  "user users account session token request response handler router config settings client " +
  "server cache store queue worker task job event message payload result error status code " +
  "value item items list map index count total offset limit page size buffer stream reader " +
  "writer parser encoder decoder schema model record field column table query filter sort " +
  "order key id name path file dir url host port timeout retry attempt delay logger metrics"
).split(" ");

const FILES = [
  "src/routes/users.ts", "src/db/pool.ts", "src/lib/cache.rs", "src/main.rs", "app/models/order.py",
  "tests/test_api.py", "packages/web/src/App.tsx", "internal/server/handler.go", "Cargo.toml",
  "package.json", "src/workers/queue.ts", "lib/parser.js", "src/util/retry.ts", "docs/setup.md",
];

const HAN = (
  "我们你他她它这那是的了在有和不人就都一个上也很到说要去会着没看好自己什么时候现在因为所以但是如果已经" +
  "可以知道问题工作系统数据文件代码测试服务用户请求错误配置模块函数版本发布部署性能内存缓存线程队列处理"
).split("");
const ZH_WORDS = [
  "我们", "今天", "问题", "系统", "数据", "文件", "代码", "测试", "服务器", "用户", "请求", "错误",
  "配置", "模块", "函数", "版本", "发布", "部署", "性能", "内存", "缓存", "线程", "队列", "处理",
  "已经", "可以", "知道", "因为", "所以", "但是", "如果", "需要", "修复", "运行", "检查", "更新",
];
const JA_WORDS = [
  "これは", "テスト", "です", "ファイル", "を", "確認", "して", "ください", "エラー", "が", "発生",
  "しました", "サーバー", "の", "設定", "は", "正しい", "ですか", "データベース", "に", "接続",
  "できません", "修正", "します", "ありがとう", "ございます", "ユーザー", "リクエスト", "キャッシュ",
];
const KO_WORDS = [
  "안녕하세요", "테스트", "파일을", "확인해", "주세요", "오류가", "발생했습니다", "서버", "설정",
  "데이터베이스", "연결", "수정", "합니다", "감사합니다", "사용자", "요청",
];
const EMOJI = [
  "😀", "😂", "🙂", "😉", "😍", "🤔", "🙏", "👍", "👎", "👏", "🔥", "✨", "🎉", "🚀", "✅", "❌",
  "⚠️", "❤️", "💡", "📦", "🐛", "🛠️", "📈", "🧪", "👋🏽", "👩‍💻", "🧑🏻‍🔧", "🇺🇸", "🇯🇵", "🏳️‍🌈",
];

// ---------------------------------------------------------------------------------------------
// Text kinds.

const ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "dr", "kl", "sh", "st", "tr", "th"];
const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "y"];
const CODAS = ["", "", "", "n", "r", "l", "s", "x", "ck", "m", "t"];

/** A pronounceable made-up word: names, project and package names, hosts (rare to a tokenizer). */
function pseudoWord(r) {
  let word = "";
  const syllables = r.int(1, 3);
  for (let i = 0; i < syllables; i++) word += r.pick(ONSETS) + r.pick(NUCLEI) + r.pick(CODAS);
  return word;
}

/** Mostly an identifier word, sometimes a made-up one. */
function ident(r) {
  return r.chance(0.12) ? pseudoWord(r) : r.pick(IDENTS);
}

/** A file path with some made-up directory names. */
function filePath(r) {
  if (r.chance(0.5)) return r.pick(FILES);
  const dirs = Array.from({ length: r.int(1, 4) }, () => (r.chance(0.5) ? pseudoWord(r) : ident(r)));
  return `${r.pick(["", "/Users/", "/home/", "./"])}${dirs.join("/")}/${ident(r)}${r.pick([".ts", ".rs", ".py", ".go", ".md", ".json", "-config.yaml"])}`;
}

function sentence(r) {
  const n = r.int(5, 22);
  const words = [];
  for (let i = 0; i < n; i++) {
    const roll = r.next();
    const name = pseudoWord(r);
    words.push(roll < 0.1 ? r.pick(LONG_WORDS) : roll < 0.15 ? name[0].toUpperCase() + name.slice(1) : roll < 0.17 ? filePath(r) : r.pick(WORDS));
  }
  let text = words.join(" ");
  text = text[0].toUpperCase() + text.slice(1);
  if (r.chance(0.15)) text += `, ${r.pick(WORDS)} ${r.pick(WORDS)}`;
  return text + r.pick([".", ".", ".", "?", "!"]);
}

/** English prose of about `chars` characters, in paragraphs. */
export function prose(r, chars) {
  let out = "";
  while (out.length < chars) {
    out += sentence(r);
    out += r.chance(0.2) ? "\n\n" : " ";
  }
  return out.slice(0, chars).trimEnd() || "ok";
}

function camel(r, parts) {
  let name = ident(r);
  for (let i = 1; i < parts; i++) {
    const word = ident(r);
    name += word[0].toUpperCase() + word.slice(1);
  }
  return name;
}

function snake(r, parts) {
  const words = [];
  for (let i = 0; i < parts; i++) words.push(ident(r));
  return words.join("_");
}

const CODE_LINES = [
  (r, i) => `${i}const ${camel(r, 2)} = await ${camel(r, 2)}(${camel(r, 1)}, { ${r.pick(IDENTS)}: ${r.int(1, 500)} });`,
  (r, i) => `${i}if (${camel(r, 1)}.${r.pick(IDENTS)} === null || ${camel(r, 2)} > ${r.int(0, 99)}) {`,
  (r, i) => `${i}  return ${camel(r, 2)}.${r.pick(["map", "filter", "reduce"])}((${r.pick(IDENTS)}) => ${r.pick(IDENTS)}.${r.pick(IDENTS)});`,
  (r, i) => `${i}}`,
  (r, i) => `${i}// ${sentence(r)}`,
  (r, i) => `${i}let ${snake(r, 2)}: Vec<${r.pick(["String", "u64", "Value", "&str"])}> = ${snake(r, 1)}.iter().map(|x| x.${snake(r, 1)}()).collect();`,
  (r, i) => `${i}fn ${snake(r, 2)}(&self, ${snake(r, 1)}: &${r.pick(["str", "[u8]", "Path"])}) -> Result<${r.pick(["()", "usize", "String"])}> {`,
  (r, i) => `${i}def ${snake(r, 2)}(self, ${snake(r, 1)}=None, **kwargs):`,
  (r, i) => `${i}    ${snake(r, 1)} = self.${snake(r, 2)}.get("${r.pick(IDENTS)}", ${r.int(0, 1000)})`,
  (r, i) => `${i}import { ${camel(r, 2)}, ${camel(r, 1)} } from "${r.pick(["./", "../", "@app/"])}${r.pick(IDENTS)}";`,
  (r, i) => `${i}throw new Error(\`${r.pick(IDENTS)} ${r.pick(["not found", "timed out", "failed"])}: \${${r.pick(IDENTS)}}\`);`,
  (r, i) => `${i}for (let ${r.pick(["i", "j", "k"])} = 0; ${r.pick(["i", "j", "k"])} < ${camel(r, 1)}.length; ${r.pick(["i", "j", "k"])}++) {`,
];

/** Source code (TS / Rust / Python flavoured lines) of about `chars` characters. */
export function code(r, chars) {
  let out = "";
  let depth = 0;
  while (out.length < chars) {
    const indent = "  ".repeat(depth);
    const line = r.pick(CODE_LINES)(r, indent);
    out += `${line}\n`;
    if (line.endsWith("{") || line.endsWith(":")) depth = Math.min(depth + 1, 5);
    else if (line.trim() === "}" && depth > 0) depth -= 1;
  }
  return out.slice(0, chars);
}

function jsonValue(r, depth) {
  const kind = depth > 3 ? r.int(0, 3) : r.int(0, 6);
  switch (kind) {
    case 0:
      return r.int(-1000, 100000);
    case 1:
      return r.chance(0.5) ? `${r.pick(WORDS)} ${r.pick(WORDS)}` : `${r.pick(IDENTS)}_${r.int(1, 9999)}`;
    case 2:
      return r.chance(0.5);
    case 3:
      return r.chance(0.3) ? null : Math.round(r.next() * 100000) / 100;
    case 4:
    case 5: {
      const object = {};
      const n = r.int(1, 7);
      for (let i = 0; i < n; i++) object[r.chance(0.5) ? r.pick(IDENTS) : camel(r, 2)] = jsonValue(r, depth + 1);
      return object;
    }
    default: {
      const n = r.int(1, 5);
      return Array.from({ length: n }, () => jsonValue(r, depth + 1));
    }
  }
}

/** A JSON document (an API response: an array of records) of about `chars` characters. */
export function json(r, chars, pretty = r.chance(0.6)) {
  const records = [];
  let size = 0;
  while (size < chars) {
    const id = r.chance(0.3) ? uuid(r) : `${r.pick(IDENTS)}_${r.int(1000, 999999)}`;
    const value = jsonValue(r, 2);
    const record = value !== null && typeof value === "object" && !Array.isArray(value) ? { id, ...value } : { id, value };
    records.push(record);
    size += JSON.stringify(record).length * (pretty ? 1.6 : 1);
  }
  const doc = { data: records, total: records.length, next: r.chance(0.5) ? null : `cursor_${r.int(1, 1e6)}` };
  return JSON.stringify(doc, null, pretty ? 2 : undefined);
}

/** A v4-style UUID from the seeded generator. */
function uuid(r) {
  const hex = (n) => Array.from({ length: n }, () => "0123456789abcdef"[r.int(0, 15)]).join("");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[r.int(0, 3)]}${hex(3)}-${hex(12)}`;
}

const LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
const LOG_LINES = [
  (r) => `GET /api/${r.pick(IDENTS)}/${r.int(1, 99999)} ${r.pick([200, 200, 201, 304, 404, 500])} ${r.int(1, 900)}ms`,
  (r) => `${r.pick(["Compiling", "Checking", "Downloaded", "Building"])} ${r.pick(IDENTS)}-${r.pick(IDENTS)} v${r.int(0, 3)}.${r.int(0, 30)}.${r.int(0, 20)}`,
  (r) => `test ${snake(r, 3)} ... ${r.pick(["ok", "ok", "ok", "FAILED", "ignored"])}`,
  (r) => `  at ${camel(r, 2)} (${filePath(r)}:${r.int(1, 900)}:${r.int(1, 80)})`,
  (r) => `${r.pick(IDENTS)} ${r.pick(["connected", "disconnected", "retrying", "timed out"])} after ${r.int(1, 30)} attempts (pid ${r.int(100, 65000)})`,
  (r) => `request_id=${uuid(r)} ${r.pick(IDENTS)}=${r.pick(WORDS)} duration_ms=${r.int(1, 4000)}`,
  (r) => sentence(r),
];

/** Build / server / test logs of about `chars` characters. */
export function logs(r, chars) {
  let out = "";
  let t = Date.UTC(2025, 5, 1, 12, 0, 0) + r.int(0, 1e7);
  while (out.length < chars) {
    t += r.int(1, 5000);
    out += `${new Date(t).toISOString()} ${r.pick(LEVELS).padEnd(5)} ${r.pick(LOG_LINES)(r)}\n`;
  }
  return out.slice(0, chars);
}

/** A file listing, `ls -la`-style. */
function listing(r, chars) {
  let out = "";
  while (out.length < chars) {
    out += `-rw-r--r--  1 dev staff ${String(r.int(10, 999999)).padStart(7)} Jun ${r.int(1, 30)} ${r.int(10, 23)}:${r.int(10, 59)} ${r.pick(FILES)}\n`;
  }
  return out.slice(0, chars);
}

/** grep output: `path:line: code`. */
function grep(r, chars) {
  let out = "";
  while (out.length < chars) out += `${filePath(r)}:${r.int(1, 2000)}:${r.pick(CODE_LINES)(r, "  ")}\n`;
  return out.slice(0, chars);
}

/** Chinese, Japanese or Korean text of about `chars` characters. */
export function cjk(r, chars) {
  const lang = r.int(0, 2);
  let out = "";
  while (out.length < chars) {
    if (lang === 0) {
      const n = r.int(4, 14);
      for (let i = 0; i < n; i++) out += r.chance(0.8) ? r.pick(ZH_WORDS) : r.pick(HAN);
      out += r.pick(["，", "。", "。", "？", "！"]);
    } else if (lang === 1) {
      const n = r.int(3, 10);
      for (let i = 0; i < n; i++) out += r.pick(JA_WORDS);
      out += r.pick(["、", "。", "。"]);
    } else {
      const n = r.int(3, 8);
      out += Array.from({ length: n }, () => r.pick(KO_WORDS)).join(" ") + r.pick([". ", "? ", ". "]);
    }
    if (r.chance(0.1)) out += r.chance(0.5) ? ` ${r.pick(IDENTS)} ` : "\n";
  }
  return out.slice(0, chars) || "問題";
}

/** Chat text with emoji (ZWJ sequences, skin tones, flags) of about `chars` UTF-16 units. */
export function emoji(r, chars) {
  let out = "";
  while (out.length < chars) {
    const words = r.int(0, 8);
    for (let i = 0; i < words; i++) out += `${r.pick(WORDS)} `;
    const n = r.int(1, 4);
    for (let i = 0; i < n; i++) out += r.pick(EMOJI);
    out += r.pick([" ", " ", "\n", "! "]);
  }
  return out.slice(0, chars).replace(/[\uD800-\uDBFF]$/, "") || "👍";
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Base64 of `bytes` pseudo-random bytes behind a PNG signature (a screenshot stand-in). */
export function base64Png(r, bytes) {
  let out = "iVBORw0KGgoAAAANSUhEUgAA";
  const n = Math.ceil((bytes * 4) / 3);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(B64[Math.floor(r.next() * 64)]);
  out += parts.join("");
  out = out.slice(0, out.length - (out.length % 4));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Token-counting corpus.

/** Corpus slices: name → generator of one sample of about `chars` characters. */
export const SLICES = {
  english: prose,
  code,
  json: (r, chars) => json(r, chars).slice(0, chars),
  logs,
  cjk,
  emoji,
  base64: (r, chars) => base64Png(r, Math.ceil((chars * 3) / 4)).slice(0, chars),
};

/** `perSlice` samples per slice, lengths log-uniform in [minChars, maxChars]. */
export function tokenCorpus(seed, { perSlice = 60, minChars = 40, maxChars = 6000, slices = Object.keys(SLICES) } = {}) {
  const r = rng(seed);
  const corpus = [];
  for (const slice of slices) {
    for (let i = 0; i < perSlice; i++) {
      corpus.push({ slice, text: SLICES[slice](r, r.logUniform(minChars, maxChars)) });
    }
  }
  return corpus;
}

// ---------------------------------------------------------------------------------------------
// Agent transcripts.

const TOOLS = [
  { name: "bash", weight: 5, args: (r) => ({ command: r.pick(["npm test", "cargo build", "pytest -x", "git status", `grep -rn ${r.pick(IDENTS)} src`, "ls -la", "docker compose logs api"]) }), output: (r, n) => logs(r, n) },
  { name: "read_file", weight: 4, args: (r) => ({ path: r.pick(FILES) }), output: (r, n) => code(r, n) },
  { name: "http_get", weight: 2, args: (r) => ({ url: `https://api.internal.example/v1/${r.pick(IDENTS)}?limit=${r.int(10, 500)}` }), output: (r, n) => json(r, n) },
  { name: "grep", weight: 2, args: (r) => ({ pattern: camel(r, 2), path: "src/" }), output: (r, n) => grep(r, n) },
  { name: "list_dir", weight: 1, args: (r) => ({ path: r.pick(["src", "tests", "."]) }), output: (r, n) => listing(r, n) },
  { name: "edit_file", weight: 2, args: (r) => ({ path: r.pick(FILES), old: code(r, 60), new: code(r, 80) }), output: (r) => r.pick(["ok", "Applied 1 edit.", `Error: old text not found in ${r.pick(FILES)}`]) },
];
const TOOL_BAG = TOOLS.flatMap((tool) => Array(tool.weight).fill(tool));

const SYSTEM_PROMPT = (r) =>
  "You are a senior software engineer working as an autonomous coding agent in the user's repository.\n" +
  "Follow the user's instructions exactly. Prefer small, reviewed changes. Run the tests after every edit.\n\n" +
  "## Tools\n" +
  TOOLS.map((tool) => `- ${tool.name}: ${sentence(r)}`).join("\n") +
  "\n\n## Rules\n" +
  Array.from({ length: 12 }, (_, i) => `${i + 1}. ${sentence(r)}`).join("\n") +
  "\n\n" +
  prose(r, 1500);

/**
 * One abstract agent conversation of about `targetBytes` bytes (measured as OpenAI JSON):
 * `[{ kind: "system" | "user" | "assistant" | "tool", ... }]`. Tool outputs range from 50 bytes
 * to 200 KB (log-uniform, capped at a fifth of the target so small transcripts still have many
 * turns); a few user turns carry a base64 screenshot; assistant steps make 1-4 parallel calls.
 * Options: `turns` stops after that many user turns (the latest one included) whatever the size
 * (`targetBytes` may then be `Infinity`: no screenshots), `minOutput`/`maxOutput` bound the
 * tool outputs.
 */
export function conversation(seed, targetBytes, { turns: maxTurns = Infinity, minOutput = 50, maxOutput: outputCap = 200_000 } = {}) {
  const r = rng(seed);
  const events = [{ kind: "system", text: SYSTEM_PROMPT(r) }];
  let size = events[0].text.length + 100;
  const maxOutput = Math.max(400, Math.min(outputCap, Math.floor(targetBytes / 5)));
  const screenshots = Number.isFinite(targetBytes) ? Math.max(1, Math.round(targetBytes / 2_500_000)) : 0;
  const screenshotEvery = screenshots ? Math.max(1, Math.floor(targetBytes / screenshots)) : Infinity;
  let nextScreenshot = Math.floor(screenshotEvery / 2);
  let call = 0;
  let turn = 0;
  while (size < targetBytes && turn < maxTurns - 1) {
    turn += 1;
    const user = { kind: "user", text: turn === 1 ? `${sentence(r)} ${prose(r, r.int(100, 600))}` : prose(r, r.logUniform(20, 400)) };
    if (size >= nextScreenshot && size + 20_000 < targetBytes) {
      const bytes = Math.min(r.int(15_000, 110_000), Math.floor(targetBytes / 6));
      user.image = base64Png(r, bytes);
      user.text = `Here is a screenshot of what I see. ${user.text}`;
      nextScreenshot += screenshotEvery;
    }
    events.push(user);
    size += user.text.length + (user.image?.length ?? 0) + 60;
    const steps = r.int(1, 6);
    for (let step = 0; step < steps && size < targetBytes; step++) {
      const calls = [];
      const parallel = r.chance(0.35) ? r.int(2, 4) : 1;
      for (let i = 0; i < parallel; i++) {
        const tool = r.pick(TOOL_BAG);
        call += 1;
        calls.push({ id: `call_${seed.toString(36)}_${call.toString(36).padStart(5, "0")}`, name: tool.name, args: tool.args(r), tool });
      }
      const thought = r.chance(0.6) ? prose(r, r.logUniform(30, 600)) : "";
      events.push({ kind: "assistant", text: thought, calls: calls.map(({ id, name, args }) => ({ id, name, args })) });
      size += thought.length + calls.reduce((n, c) => n + JSON.stringify(c.args).length + 120, 60);
      for (const c of calls) {
        const output = c.tool.output(r, r.logUniform(minOutput, maxOutput));
        events.push({ kind: "tool", id: c.id, name: c.name, text: output });
        size += output.length + 80;
      }
    }
    if (r.chance(0.7)) {
      const answer = prose(r, r.logUniform(40, 900));
      events.push({ kind: "assistant", text: answer, calls: [] });
      size += answer.length + 40;
    }
  }
  // The latest turn: the user's newest message and the agent's work on it so far.
  events.push({ kind: "user", text: prose(r, r.int(30, 200)) });
  call += 1;
  const last = { id: `call_${seed.toString(36)}_${call.toString(36).padStart(5, "0")}`, name: "bash", args: { command: "npm test" } };
  events.push({ kind: "assistant", text: "", calls: [last] });
  events.push({ kind: "tool", id: last.id, name: last.name, text: logs(r, 3000) });
  return { events, turns: turn + 1 };
}

/**
 * A single-prompt agent run (issue 21's common shape): the system prompt, one user task, then
 * `steps` assistant steps of one tool call each, every result `minOutput`-`maxOutput` bytes
 * (uniform) of the tools' usual kinds (logs, code, JSON, grep, listings).
 */
export function agentRun(seed, steps, { minOutput = 1000, maxOutput = 5000 } = {}) {
  const r = rng(seed);
  const events = [{ kind: "system", text: SYSTEM_PROMPT(r) }, { kind: "user", text: `${sentence(r)} ${prose(r, r.int(200, 800))}` }];
  const outputs = TOOLS.filter((tool) => tool.name !== "edit_file");
  for (let step = 1; step <= steps; step++) {
    const tool = r.pick(outputs);
    const id = `call_${seed.toString(36)}_${step.toString(36).padStart(4, "0")}`;
    const thought = r.chance(0.5) ? prose(r, r.logUniform(30, 300)) : "";
    events.push({ kind: "assistant", text: thought, calls: [{ id, name: tool.name, args: tool.args(r) }] });
    events.push({ kind: "tool", id, name: tool.name, text: tool.output(r, r.int(minOutput, maxOutput)) });
  }
  return { events, turns: 1, steps };
}

/**
 * The texts a context holds in generated agent sessions: every message text, tool output and
 * tool call's arguments (as JSON) of 40+ characters, of three single-prompt runs of 60 steps
 * (seeds 1-3) and two 200 KB conversations (seeds 4-5). Their exact o200k counts are the fixture
 * of tests/js/counting.test.mjs (`node bench/calibrate.mjs --fixture` writes it).
 */
export function agentPieces() {
  const texts = [];
  const take = (events) => {
    for (const event of events) {
      texts.push(event.text ?? "");
      for (const call of event.calls ?? []) texts.push(JSON.stringify(call.args));
    }
  };
  for (const seed of [1, 2, 3]) take(agentRun(seed, 60).events);
  for (const seed of [4, 5]) take(conversation(seed, 200_000).events);
  return texts.filter((text) => text.length >= 40);
}

/** OpenAI Chat Completions messages. */
export function toOpenAI(events) {
  return events.map((event) => {
    switch (event.kind) {
      case "system":
        return { role: "system", content: event.text };
      case "user":
        return event.image
          ? {
              role: "user",
              content: [
                { type: "text", text: event.text },
                { type: "image_url", image_url: { url: `data:image/png;base64,${event.image}`, detail: "auto" } },
              ],
            }
          : { role: "user", content: event.text };
      case "assistant":
        return event.calls.length === 0
          ? { role: "assistant", content: event.text }
          : {
              role: "assistant",
              content: event.text || null,
              tool_calls: event.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
            };
      default:
        return { role: "tool", tool_call_id: event.id, content: event.text };
    }
  });
}

/** Vercel AI SDK (v5+) ModelMessages. */
export function toAiSdk(events) {
  return events.map((event) => {
    switch (event.kind) {
      case "system":
        return { role: "system", content: event.text };
      case "user":
        return event.image
          ? { role: "user", content: [{ type: "text", text: event.text }, { type: "image", image: event.image, mediaType: "image/png" }] }
          : { role: "user", content: event.text };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(event.text ? [{ type: "text", text: event.text }] : []),
            ...event.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args })),
          ],
        };
      default:
        return { role: "tool", content: [{ type: "tool-result", toolCallId: event.id, toolName: event.name, output: { type: "text", value: event.text } }] };
    }
  });
}

/**
 * OpenAI Responses API input items, as Codex stores them: the system prompt as a developer
 * message, and before each model call an encrypted reasoning item (opaque, about 1 KB), then the
 * model's message and its `function_call`s; each tool result a `function_call_output`.
 */
export function toResponses(events) {
  const items = [];
  events.forEach((event, index) => {
    switch (event.kind) {
      case "system":
        items.push({ role: "developer", content: event.text });
        break;
      case "user":
        items.push(
          event.image
            ? { role: "user", content: [{ type: "input_text", text: event.text }, { type: "input_image", image_url: `data:image/png;base64,${event.image}`, detail: "auto" }] }
            : { role: "user", content: event.text },
        );
        break;
      case "assistant":
        items.push({ type: "reasoning", id: `rs_${index}`, summary: [], encrypted_content: `gAAAAB${index.toString(36)}${"k9Qz".repeat(250)}` });
        if (event.text) {
          items.push({ type: "message", id: `msg_${index}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: event.text, annotations: [] }] });
        }
        for (const c of event.calls) {
          items.push({ type: "function_call", id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" });
        }
        break;
      default:
        items.push({ type: "function_call_output", call_id: event.id, output: event.text });
    }
  });
  return items;
}

/**
 * Gemini contents (the system prompt goes to `systemInstruction`, see `geminiSystem`): a model
 * content per model call (its text and `functionCall`s, the first carrying a thought signature),
 * the responses of a call in the user content after it (`{ result }`, as Google's ADK writes
 * them), and a run of one side merged into one content, as Gemini needs them.
 */
export function toGemini(events) {
  const contents = [];
  const push = (role, parts) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const event of events) {
    switch (event.kind) {
      case "system":
        break;
      case "user":
        push("user", event.image ? [{ text: event.text }, { inlineData: { mimeType: "image/png", data: event.image } }] : [{ text: event.text }]);
        break;
      case "assistant":
        push("model", [
          ...(event.text ? [{ text: event.text }] : []),
          ...event.calls.map((c, i) => ({ functionCall: { name: c.name, args: c.args }, ...(i === 0 ? { thoughtSignature: `sig-${c.id}` } : {}) })),
        ]);
        break;
      default:
        push("user", [{ functionResponse: { name: event.name, response: { result: event.text } } }]);
    }
  }
  return contents;
}

/** The system prompt of `events` as a Gemini `systemInstruction`. */
export function geminiSystem(events) {
  return { parts: [{ text: events.find((event) => event.kind === "system")?.text ?? "" }] };
}

/** LangChain messages (the classes come from the caller's `@langchain/core/messages`). */
export function toLangChain(events, { SystemMessage, HumanMessage, AIMessage, ToolMessage }) {
  return events.map((event) => {
    switch (event.kind) {
      case "system":
        return new SystemMessage(event.text);
      case "user":
        return new HumanMessage(
          event.image
            ? { content: [{ type: "text", text: event.text }, { type: "image_url", image_url: { url: `data:image/png;base64,${event.image}` } }] }
            : event.text,
        );
      case "assistant":
        return new AIMessage({ content: event.text, tool_calls: event.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" })) });
      default:
        return new ToolMessage({ content: event.text, tool_call_id: event.id, name: event.name });
    }
  });
}
