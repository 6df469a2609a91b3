// Writes build-manifest.json beside the bundle: a hash of everything the build reads. A Python test
// (tests/ui/test_bundle.py) recomputes it from web/ and fails when the committed bundle is stale.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const web = new URL("..", import.meta.url).pathname;
const INPUTS = ["openapi.json", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts", "index.html", "bench.html", "src", "public"];

function files(path) {
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => files(join(path, name)));
  return [path];
}

// Generated from openapi.json during the build (git-ignored): openapi.json stands for it.
const GENERATED = new Set(["src/openapi.d.ts"]);
const all = INPUTS.flatMap((input) => files(join(web, input)))
  .map((path) => relative(web, path).split(sep).join("/"))
  .filter((path) => !GENERATED.has(path))
  .sort();
const digest = createHash("sha256");
for (const path of all) {
  digest.update(`${path}\n${createHash("sha256").update(readFileSync(join(web, path))).digest("hex")}\n`);
}
const manifest = { sources_sha256: digest.digest("hex"), files: all.length };
writeFileSync(join(web, "../houndgraph/ui/static/build-manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`build-manifest.json: ${manifest.sources_sha256} over ${manifest.files} files`);
