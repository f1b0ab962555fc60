import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Pids of live processes whose command line or working folder contains `needle` (Linux /proc; empty elsewhere).
 * Tests use it to prove a timeout or a kill left nothing running.
 */
export function processesMatching(needle: string): number[] {
  if (!existsSync('/proc')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmdline.includes(needle) || cwd.includes(needle)) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Polls `check` every 25 ms until it holds or `ms` pass; answers whether it held. */
export async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}
