import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Comments point at documents in this repository: the contracts the code relies on are written down in docs/, so a
 * reader never needs a file the project does not ship, and a page a comment names exists.
 */
const ROOT = join(import.meta.dirname, '../..');
const SOURCES = ['server', 'electron', 'renderer/src', 'bench', 'scripts', 'bin', 'plugins', 'test'];
const SOURCE_FILE = /\.(ts|mts|mjs|js|cjs|svelte|py)$/;
/** Documents outside the repository that once guided the work. */
const OUTSIDE = /\bSPEC\b(\.md|\s*(§|section))|\bSTYLE\.md\b|\bTOOLCHAIN(\.md)?\b/;
const DOC_LINK = /\bdocs\/[\w./-]+\.md\b/g;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (SOURCE_FILE.test(name)) out.push(path);
  }
  return out;
}

const sources = SOURCES.flatMap((dir) => files(join(ROOT, dir)));

describe('references in the source', () => {
  it('name no document outside the repository', () => {
    const self = relative(ROOT, import.meta.filename);
    const found = sources
      .filter((file) => relative(ROOT, file) !== self)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (OUTSIDE.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
  });

  it('name only pages of docs/ that exist (tests excepted: their paths are data)', () => {
    const missing = sources.filter((file) => !relative(ROOT, file).startsWith('test')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(DOC_LINK)]
        .map((match) => match[0])
        .filter((doc) => !existsSync(join(ROOT, doc)))
        .map((doc) => `${relative(ROOT, file)}: ${doc}`),
    );
    expect(missing).toEqual([]);
  });
});
