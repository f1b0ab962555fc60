// The Electron main process entry (package.json "main"): everything it does is in app.ts.
import { startDesktop } from './app.js';

await startDesktop();
