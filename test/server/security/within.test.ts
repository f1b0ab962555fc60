import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithin } from '../../../server/security/within.js';

/** Containment by path segments: each case is one way a string comparison would get it wrong. */
describe('isWithin', () => {
  it('holds for the folder itself', () => {
    expect(isWithin('/srv/root', '/srv/root')).toBe(true);
  });

  it('holds for a file directly inside and for one deep below', () => {
    expect(isWithin('/srv/root/notes.md', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root/a/b/c/d.txt', '/srv/root')).toBe(true);
  });

  it('blocks a sibling folder with the root as prefix', () => {
    expect(isWithin('/srv/root-evil', '/srv/root')).toBe(false);
    expect(isWithin('/srv/root-evil/x', '/srv/root')).toBe(false);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
  });

  it('blocks the parent and other folders', () => {
    expect(isWithin('/srv', '/srv/root')).toBe(false);
    expect(isWithin('/etc/passwd', '/srv/root')).toBe(false);
  });

  it('ignores trailing slashes on either side', () => {
    expect(isWithin('/srv/root/', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root', '/srv/root/')).toBe(true);
    expect(isWithin('/srv/root/x', '/srv/root/')).toBe(true);
    expect(isWithin('/srv/root-evil/', '/srv/root/')).toBe(false);
  });

  it('blocks a path that climbs out with ..', () => {
    expect(isWithin('/srv/root/../etc/passwd', '/srv/root')).toBe(false);
    expect(isWithin('/srv/root/a/../../root-evil', '/srv/root')).toBe(false);
    expect(isWithin('/srv/root/..', '/srv/root')).toBe(false);
  });

  it('holds for a .. that stays inside, and for a folder given with ..', () => {
    expect(isWithin('/srv/root/a/../b', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root/a/..', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root/x', '/srv/other/../root')).toBe(true);
  });

  it('holds for a name that only starts with two dots', () => {
    expect(isWithin('/srv/root/..cache', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root/...', '/srv/root')).toBe(true);
  });

  it('reads repeated separators and . segments as one separator', () => {
    expect(isWithin('/srv//root/./x', '/srv/root')).toBe(true);
    expect(isWithin('/srv/root//x', '/srv/./root')).toBe(true);
  });

  it('holds everything absolute under the root folder /', () => {
    expect(isWithin('/', '/')).toBe(true);
    expect(isWithin('/etc/passwd', '/')).toBe(true);
    expect(isWithin('/', '/etc')).toBe(false);
  });

  it('compares case as written unless told the disk ignores case', () => {
    expect(isWithin('/Users/Me/.Pincer/token', '/users/me/.pincer')).toBe(false);
    expect(isWithin('/Users/Me/.Pincer/token', '/users/me/.pincer', true)).toBe(true);
    expect(isWithin('/USERS/ME/.PINCER-EVIL', '/users/me/.pincer', true)).toBe(false);
  });

  it('takes relative paths from the working directory', () => {
    expect(isWithin('notes/todo.md', process.cwd())).toBe(true);
    expect(isWithin('../elsewhere', process.cwd())).toBe(false);
  });
});

describe('isWithin and symbolic links', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-within-')));
    root = join(base, 'root');
    outside = join(base, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    symlinkSync(outside, join(root, 'link-out'));
  });

  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  it('does not follow links: the link path is inside, its real target is not', () => {
    const viaLink = join(root, 'link-out', 'secret.txt');
    expect(isWithin(viaLink, root)).toBe(true);
    expect(isWithin(realpathSync(join(root, 'link-out')), root)).toBe(false);
  });
});
