#!/usr/bin/env node
// `npm start`: the desktop shell is not part of this build yet, so the gateway runs headless.
process.stdout.write('Pincer: the desktop app is not available in this build; running the headless gateway.\n');
const { main } = await import(new URL('../dist/server/cli.js', import.meta.url).href);
process.exitCode = await main(['serve', ...process.argv.slice(2)]);
