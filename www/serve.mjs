// Serves the demo page on 127.0.0.1: www/ at /, and the built package (pkg/, made by
// `npm run build`) at /pkg/, so the page imports the browser build as a user's page would.
// Nothing leaves the machine: no CDN, no external request.
//   node www/serve.mjs [--port 8080]      (PORT also works; 0 picks a free port)
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** The file a URL path maps to, or null when it is outside the served folders. */
export function resolveFile(urlPath, { pkgDir = path.join(root, "pkg"), wwwDir = here } = {}) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath.split("?")[0]);
  } catch {
    return null;
  }
  const [base, rest] = decoded === "/pkg" || decoded.startsWith("/pkg/") ? [pkgDir, decoded.slice(4)] : [wwwDir, decoded];
  const file = path.resolve(base, `.${rest.endsWith("/") || rest === "" ? `${rest}/index.html` : rest}`);
  return file === base || file.startsWith(base + path.sep) ? file : null;
}

function send(response, status, body, type = "text/plain; charset=utf-8") {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" });
  response.end(body);
}

/**
 * Starts the server. Resolves with `{ server, url }` once it listens.
 * @param {{ port?: number, host?: string, quiet?: boolean }} [options]
 */
export function startServer({ port = 8080, host = "127.0.0.1", quiet = false } = {}) {
  const server = http.createServer((request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      send(response, 405, "method not allowed\n");
      return;
    }
    const file = resolveFile(request.url ?? "/");
    if (file === null) {
      send(response, 403, "forbidden\n");
      return;
    }
    fs.stat(file, (error, stats) => {
      if (error || !stats.isFile()) {
        const hint = request.url?.startsWith("/pkg/") ? " (pkg/ is built by `npm run build`)" : "";
        if (!quiet) console.error(`404 ${request.url}${hint}`);
        send(response, 404, `not found: ${request.url}${hint}\n`);
        return;
      }
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      response.writeHead(200, { "content-type": type, "content-length": stats.size, "cache-control": "no-store", "x-content-type-options": "nosniff" });
      if (request.method === "HEAD") response.end();
      else fs.createReadStream(file).pipe(response);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve({ server, url: `http://${host}:${address.port}/` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf("--port");
  const port = Number(flag > 0 ? process.argv[flag + 1] : process.env.PORT ?? 8080);
  if (!fs.existsSync(path.join(root, "pkg", "web", "tiered_compaction_bg.wasm"))) {
    console.error("pkg/web/ is missing: build the package first (npm run build), or use `npm run www`, which builds it.");
    process.exit(1);
  }
  startServer({ port }).then(
    ({ url }) => console.log(`tiered-compaction demo: ${url}  (Ctrl-C stops it)`),
    (error) => {
      console.error(error.code === "EADDRINUSE" ? `port ${port} is in use: pass --port N (or PORT=N)` : error.message);
      process.exit(1);
    },
  );
}
