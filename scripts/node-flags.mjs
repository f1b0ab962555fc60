// The V8 flags the gateway runs with, written once: in the first line of bin/pincer.js (its shebang), so that
// `pincer serve` has them however it is started. `npm start` (package.json), Electron's main process (--js-flags)
// and the benchmark's gateway take theirs from there; test/scripts/node-flags.test.ts keeps the copies equal.
//
// Why: under load V8's defaults let the young generation grow to 32 MB and old space to four times what is live
// before a full collection, ~175 MB RSS at 32 clients. A 16 MB young generation and old space allowed twice what is
// live keep it near 135 MB for a few per cent of throughput (docs/development.md, "Performance").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SHEBANG = /^#!\/usr\/bin\/env -S node((?: --[\w-]+(?:=\S+)?)*)\s*$/;

/** The flags in `root`/bin/pincer.js's shebang. */
export function gatewayNodeFlags(root) {
  const first = readFileSync(join(root, 'bin', 'pincer.js'), 'utf8').split('\n', 1)[0] ?? '';
  const match = SHEBANG.exec(first);
  if (!match) throw new Error(`bin/pincer.js should start with "#!/usr/bin/env -S node --flag …", not ${JSON.stringify(first)}`);
  return match[1].trim().split(/\s+/).filter(Boolean);
}
