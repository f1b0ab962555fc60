import { createHash } from 'node:crypto';

const MAX_NAME = 64;

/**
 * The registry names of one server's tools: `<server>__<tool>` within 64 characters (with `prefix` false, the tool's
 * own name: a name another tool holds is then refused when it registers, never shadowed). A name with characters
 * outside `[A-Za-z0-9_-]` (made `_`) or too long gets a short hash of the tool's own name at its end, so two tools
 * never share one (`a.b` and `a_b` stay apart) and the same tools always get the same names, whatever order they
 * come in.
 */
export function importedNames(server: string, tools: readonly string[], prefix = true): Map<string, string> {
  const names = new Map<string, string>();
  for (const tool of tools) {
    const plain = prefix ? `${server}__${tool}` : tool;
    const clean = plain.replace(/[^A-Za-z0-9_-]/g, '_');
    // A name that needs no cleaning and fits is unique as it is (no two tools of a server share a name).
    if (clean === plain && plain.length <= MAX_NAME) {
      names.set(tool, plain);
      continue;
    }
    const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
    names.set(tool, `${clean.slice(0, MAX_NAME - hash.length - 1)}_${hash}`);
  }
  return names;
}
