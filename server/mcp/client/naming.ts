import { createHash } from 'node:crypto';

const MAX_NAME = 64;

/**
 * The registry names of one server's tools: `<server>__<tool>`, with characters outside `[A-Za-z0-9_-]` made `_`,
 * within 64 characters. A name that is too long, or that two tools would share once cleaned, gets a short hash of
 * the tool's own name instead of its end: the same tools always get the same names, whatever order they come in.
 */
export function importedNames(server: string, tools: readonly string[]): Map<string, string> {
  const clean = (tool: string) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(clean(tool), (counts.get(clean(tool)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const tool of tools) {
    const plain = clean(tool);
    const unique = counts.get(plain) === 1 && plain === `${server}__${tool}`;
    if (unique && plain.length <= MAX_NAME) {
      names.set(tool, plain);
      continue;
    }
    const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
    names.set(tool, `${plain.slice(0, MAX_NAME - hash.length - 1)}_${hash}`);
  }
  return names;
}
