// apps-bundle.mjs OUTDIR: builds the browser side of TestMCPAppInBrowser
// (apps_test.go) with rolldown: apps/host.js (the TypeScript client and
// ext-apps' AppBridge) as OUTDIR/host.js, apps/view.js (ext-apps' App) as
// OUTDIR/view.js, each one self-contained IIFE for a <script> element.
import { build } from "rolldown";

const out = process.argv[2];
if (!out) {
  console.error("usage: node apps-bundle.mjs OUTDIR");
  process.exit(2);
}
for (const name of ["host", "view"]) {
  await build({
    input: `apps/${name}.js`,
    platform: "browser",
    logLevel: "warn",
    output: { file: `${out}/${name}.js`, format: "iife", minify: true },
  });
}
console.log(JSON.stringify({ ok: true }));
