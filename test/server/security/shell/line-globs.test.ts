import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellAnalyzer } from '../../../../server/security/shell/analyzer.js';
import { LineGlobs } from '../../../../server/security/shell/operand-places.js';

/**
 * A glob is expanded against the disk, each folder it lists read whole: `ls` of a pattern matching nothing in each of
 * 200 folders of 2,000 files read 400,000 names on the gateway's thread, and one line could hold hundreds of such words.
 * A line's globs read a bounded number of names in all; past it the command asks. On a real disk, with a small bound.
 */

let base: string;
let root: string;
let data: string;
const FOLDERS = 20;
const FILES = 50; // 1,000 names in all, under a bound of 300 below

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-line-globs-')));
  root = join(base, 'root');
  data = join(base, 'data');
  mkdirSync(data);
  for (let d = 0; d < FOLDERS; d++) {
    mkdirSync(join(root, `p${d}`), { recursive: true });
    for (let f = 0; f < FILES; f++) writeFileSync(join(root, `p${d}`, `f${f}.js`), '');
  }
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('LineGlobs', () => {
  it('expands a glob against the disk, existing names only', () => {
    const globs = new LineGlobs(10_000);
    expect(globs.expand(`${root}/p1/f1?.js`)).toHaveLength(10);
    expect(globs.expand(`${root}/p*/f0.js`)).toHaveLength(FOLDERS);
    expect(globs.expand(`${root}/p*/nothing*`)).toEqual([]);
    expect(globs.exhausted).toBe(false);
  });

  it('stops once the names read pass its bound, and says so', () => {
    const globs = new LineGlobs(300);
    expect(globs.expand(`${root}/p1/*.js`)).toHaveLength(FILES);
    expect(globs.expand(`${root}/p*/zz*`)).toBe('too-many');
    expect(globs.exhausted).toBe(true);
  });

  it('reads a glob written twice once', () => {
    const globs = new LineGlobs(FILES * 2 + FOLDERS);
    for (let n = 0; n < 10; n++) expect(globs.expand(`${root}/p1/*.js`)).toHaveLength(FILES);
    expect(globs.exhausted).toBe(false);
  });
});

describe('a command whose globs list too many names', () => {
  const shell = () => new ShellAnalyzer({ protectedPaths: [data], roots: [root], home: join(base, 'home'), globNamesLimit: 300 });

  it('asks, for one word listing every folder', async () => {
    expect(await shell().analyze('ls */zz*', root)).toMatchObject({ decision: 'ask', rule: 'shell:too-complex' });
  });

  it('asks, for many small words that each stay under the bound', async () => {
    const words = Array.from({ length: 10 }, (_, n) => `p${n}/q*`).join(' ');
    expect(await shell().analyze(`ls ${words}`, root)).toMatchObject({ decision: 'ask', rule: 'shell:too-complex' });
  });

  it('asks when a glob judged past the bound would have been checked only there (a recursive read of it)', async () => {
    const words = Array.from({ length: 10 }, (_, n) => `p${n}/q*`).join(' ');
    expect(await shell().analyze(`ls ${words}; grep -r x p1*`, root)).toMatchObject({ decision: 'ask', rule: 'shell:too-complex' });
  });

  it('stays allowed under the bound', async () => {
    expect(await shell().analyze('ls p1/*.js p2/f1*', root)).toMatchObject({ decision: 'allow' });
    expect(await shell().analyze('cat p*/f0.js', root)).toMatchObject({ decision: 'allow' });
  });

  it('by default reads enough for a large project', async () => {
    const big = new ShellAnalyzer({ protectedPaths: [data], roots: [root], home: join(base, 'home') });
    expect(await big.analyze('ls */zz* */f1*.js', root)).toMatchObject({ decision: 'allow' });
  });
});
