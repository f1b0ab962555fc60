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
