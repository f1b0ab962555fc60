#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=100
// The `pincer` command: runs the compiled CLI (npm install builds it; `npm run build` rebuilds it).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/server/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('pincer: the gateway is not built yet; run "npm run build" in the Pincer folder.\n');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
