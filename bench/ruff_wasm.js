// Lints files with ruff's WebAssembly build (npm @astral-sh/ruff-wasm-nodejs), default rules: the
// closest thing to running ruff that needs nothing but Node. usage: node ruff_wasm.js RUFF_DIR FILE...
const [ruffDir, ...files] = process.argv.slice(2);
const ruff = require(ruffDir);
const fs = require("fs");
const ws = new ruff.Workspace(ruff.Workspace.defaultSettings(), ruff.PositionEncoding.Utf16);
let findings = 0;
for (const f of files) findings += ws.check(fs.readFileSync(f, "utf8")).length;
console.log(`${files.length} files, ${findings} findings`);
