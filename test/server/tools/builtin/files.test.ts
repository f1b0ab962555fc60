import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { checkPathPattern } from '../../../../server/security/list-pattern.js';
import { PathGuard, type PathAccess, type PathVerdict } from '../../../../server/security/path-guard.js';
import { createFileDeleteTool } from '../../../../server/tools/builtin/file-delete.js';
import { createFileListTool } from '../../../../server/tools/builtin/file-list.js';
import { createFileReadTool, DEFAULT_READ_BYTES, MAX_READ_BYTES } from '../../../../server/tools/builtin/file-read.js';
import { createFileWriteTool, MAX_WRITE_BYTES } from '../../../../server/tools/builtin/file-write.js';
import { ToolRegistry } from '../../../../server/tools/registry.js';
import type { ToolContext } from '../../../../server/tools/types.js';

/**
 * The file tools' handlers on real temp folders. Attack paths only reach a write or delete handler in the tests
 * that prove the handler refuses them; each such test then checks the outside file is untouched.
 */

let base: string;
let root: string;
let out: string;
let data: string;
let guard: PathGuard;

const ctx = (): ToolContext => ({ signal: new AbortController().signal, callId: 'test', client: 'test' });

function put(file: string, content: string | Buffer): string {
  const full = join(base, file);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  return full;
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-files-')));
  root = join(base, 'root');
  out = join(base, 'outside');
  data = join(root, '.pincer');
  mkdirSync(root);
  mkdirSync(out);
  put('outside/secret.txt', 'OUTSIDE-SECRET');
  put('root/.pincer/token', 'GATEWAY-TOKEN');
  guard = PathGuard.create({ roots: [root], protectedDirs: [data] });
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const read = (args: Record<string, unknown>) => createFileReadTool(guard).handler(args as never, ctx());
const write = (args: Record<string, unknown>) => createFileWriteTool(guard).handler(args as never, ctx());
const list = (args: Record<string, unknown>) => createFileListTool(guard).handler(args as never, ctx());
const remove = (args: Record<string, unknown>) => createFileDeleteTool(guard).handler(args as never, ctx());

async function refusal(promise: unknown): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('the call succeeded instead of being refused');
}

function expectOutsideUntouched(): void {
  expect(readdirSync(out)).toEqual(['secret.txt']);
  expect(readFileSync(join(out, 'secret.txt'), 'utf8')).toBe('OUTSIDE-SECRET');
}

/** A guard whose check runs `between` after judging, before the handler acts: a race won by the attacker. */
function racingGuard(between: () => void): PathGuard {
  const raced = PathGuard.create({ roots: [root], protectedDirs: [data] });
  const check = raced.check.bind(raced);
  let fired = false;
  raced.check = async (path: unknown, access: PathAccess): Promise<PathVerdict> => {
    const verdict = await check(path, access);
    if (!fired) {
      fired = true;
      between();
    }
    return verdict;
  };
  return raced;
}

describe('file tools: definitions', () => {
  it('register with the categories, risks and annotations they declare', () => {
    const registry = new ToolRegistry();
    for (const create of [createFileReadTool, createFileWriteTool, createFileListTool, createFileDeleteTool]) registry.register(create(guard));
    const def = (name: string) => registry.get(name)!.definition;
    expect(def('file_read')).toMatchObject({ category: 'files', risk: 'sensitive', annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(def('file_list')).toMatchObject({ category: 'files', risk: 'sensitive', annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(def('file_write')).toMatchObject({ category: 'files', risk: 'dangerous', annotations: { readOnlyHint: false, destructiveHint: true } });
    expect(def('file_delete')).toMatchObject({ category: 'files', risk: 'dangerous', annotations: { readOnlyHint: false, destructiveHint: true } });
    for (const name of ['file_read', 'file_write', 'file_list', 'file_delete']) expect(def(name).cache).toBeUndefined();
  });
});

describe('file_read', () => {
  it('reads a UTF-8 file whole', async () => {
    put('root/notes/todo.md', 'héllo\nwörld\n');
    expect(await read({ path: 'notes/todo.md' })).toEqual({
      path: 'notes/todo.md',
      root,
      encoding: 'utf8',
      content: 'héllo\nwörld\n',
      size: Buffer.byteLength('héllo\nwörld\n'),
      offset: 0,
      length: Buffer.byteLength('héllo\nwörld\n'),
      truncated: false,
    });
  });

  it('reads a window with offset and length and says where to go on', async () => {
    put('root/abc.txt', 'abcdefghij');
    expect(await read({ path: 'abc.txt', offset: 2, length: 3 })).toMatchObject({
      content: 'cde',
      size: 10,
      offset: 2,
      length: 3,
      truncated: true,
      next_offset: 5,
    });
    expect(await read({ path: 'abc.txt', offset: 8 })).toMatchObject({ content: 'ij', truncated: false });
    expect(await read({ path: 'abc.txt', offset: 50 })).toMatchObject({ content: '', length: 0, truncated: false });
  });

  it('never splits a UTF-8 character at the end of a window', async () => {
    put('root/u.txt', 'a€b'); // € is 3 bytes
    const first = await read({ path: 'u.txt', length: 2 });
    expect(first).toMatchObject({ content: 'a', length: 1, next_offset: 1 });
    expect(await read({ path: 'u.txt', offset: 1, length: 3 })).toMatchObject({ content: '€', next_offset: 4 });
  });

  it(`caps a read at ${DEFAULT_READ_BYTES} bytes by default and ${MAX_READ_BYTES} at most`, async () => {
    put('root/big.txt', 'x'.repeat(MAX_READ_BYTES + 10));
    const byDefault = await read({ path: 'big.txt' });
    expect(byDefault).toMatchObject({ length: DEFAULT_READ_BYTES, truncated: true, size: MAX_READ_BYTES + 10 });
    const most = await read({ path: 'big.txt', length: MAX_READ_BYTES * 4 });
    expect(most).toMatchObject({ length: MAX_READ_BYTES, truncated: true, next_offset: MAX_READ_BYTES });
  });

  it('refuses a binary file as text and suggests base64', async () => {
    put('root/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    const error = await refusal(read({ path: 'image.png' }));
    expect(error.errorName).toBe('FILE_IS_BINARY');
    expect(error.message).toMatch(/base64/);
  });

  it('refuses bytes that are mostly not UTF-8 as binary', async () => {
    put('root/noise.bin', Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 0x40))));
    expect((await refusal(read({ path: 'noise.bin' }))).errorName).toBe('FILE_IS_BINARY');
  });

  it('reads a binary file with encoding base64', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    put('root/blob.bin', bytes);
    expect(await read({ path: 'blob.bin', encoding: 'base64' })).toMatchObject({ content: bytes.toString('base64'), size: 5 });
  });

  it('reads Latin-1 and UTF-16 text with those encodings, and points to utf16le for a UTF-16 file', async () => {
    put('root/latin.txt', Buffer.from('Un café crème, s’il vous plaît.'.replace('’', "'"), 'latin1'));
    expect(await read({ path: 'latin.txt', encoding: 'latin1' })).toMatchObject({ content: "Un café crème, s'il vous plaît." });
    const utf8 = await read({ path: 'latin.txt' });
    expect(utf8).toMatchObject({ content: "Un caf\ufffd cr\ufffdme, s'il vous pla\ufffdt." });
    expect((utf8 as { note?: string }).note).toMatch(/latin1/);
    put('root/wide.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi there', 'utf16le')]));
    expect(await read({ path: 'wide.txt', encoding: 'utf16le' })).toMatchObject({ content: '\ufeffhi there' });
    expect((await refusal(read({ path: 'wide.txt' }))).message).toMatch(/utf16le/);
  });

  it('keeps a real U+FFFD in the file without calling it an error', async () => {
    put('root/replacement.txt', 'ok \ufffd ok');
    const result = await read({ path: 'replacement.txt' });
    expect(result).toMatchObject({ content: 'ok \ufffd ok' });
    expect((result as { note?: string }).note).toBeUndefined();
  });

  it('reports a missing file, a folder and a FIFO clearly (and does not hang on the FIFO)', async () => {
    mkdirSync(join(root, 'folder'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect((await refusal(read({ path: 'nope.txt' }))).errorName).toBe('FILE_NOT_FOUND');
    const folder = await refusal(read({ path: 'folder' }));
    expect(folder.errorName).toBe('NOT_A_FILE');
    expect(folder.message).toMatch(/file_list/);
    expect((await refusal(read({ path: 'pipe' }))).errorName).toBe('NOT_A_FILE');
    expect((await refusal(read({ path: 'nope/deeper.txt' }))).errorName).toBe('FILE_NOT_FOUND');
  });

  it('reads through a symlink that points inside', async () => {
    put('root/real.txt', 'real');
    symlinkSync('real.txt', join(root, 'alias.txt'));
    expect(await read({ path: 'alias.txt' })).toMatchObject({ path: 'real.txt', content: 'real' });
  });

  it.each([
    ['a path outside the root', () => join(out, 'secret.txt'), 'path:outside-roots'],
    ['a .. escape', () => '../outside/secret.txt', 'path:outside-roots'],
    ['a symlink pointing out', () => (symlinkSync(join(out, 'secret.txt'), join(root, 'leak.txt')), 'leak.txt'), 'path:outside-roots'],
    ['the data directory', () => '.pincer/token', 'path:pincer-data'],
    ['a NUL byte', () => 'x\0', 'path:invalid'],
  ])('refuses %s when called directly (PATH_NOT_ALLOWED)', async (_name, makePath, rule) => {
    const error = await refusal(read({ path: makePath() }));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expect(error.details).toEqual({ rule });
    expect(error.message).toContain(rule);
    expect(error.message).not.toContain('OUTSIDE-SECRET');
    expect(error.message).not.toContain('GATEWAY-TOKEN');
  });

  it('runs an approved ask (a secret file) when called after approval', async () => {
    put('root/.env', 'KEY=1');
    expect(await read({ path: '.env' })).toMatchObject({ content: 'KEY=1' });
  });

  it('TOCTOU: a file swapped for a symlink out after the check is not read', async () => {
    put('root/report.txt', 'harmless');
    const raced = racingGuard(() => {
      unlinkSync(join(root, 'report.txt'));
      symlinkSync(join(out, 'secret.txt'), join(root, 'report.txt'));
    });
    const error = await refusal(createFileReadTool(raced).handler({ path: 'report.txt' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expect(JSON.stringify(error.toBody())).not.toContain('OUTSIDE-SECRET');
  });

  it('TOCTOU: a folder swapped for a symlink out after the check is not read through', async () => {
    put('root/docs/secret.txt', 'inside version');
    const raced = racingGuard(() => {
      renameSync(join(root, 'docs'), join(root, 'docs-old'));
      symlinkSync(out, join(root, 'docs'));
    });
    const error = await refusal(createFileReadTool(raced).handler({ path: 'docs/secret.txt' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expect(error.details).toEqual({ rule: 'path:symlink-swap' });
  });
});

describe('file_write', () => {
  it('creates a new file (overwrite is the default mode)', async () => {
    expect(await write({ path: 'new.txt', content: 'hello' })).toEqual({
      path: 'new.txt',
      root,
      mode: 'overwrite',
      created: true,
      bytes_written: 5,
      size: 5,
    });
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('hello');
  });

  it('replaces an existing file, keeps its permissions and leaves no temp file behind', async () => {
    const file = put('root/script.sh', 'old');
    chmodSync(file, 0o751);
    expect(await write({ path: 'script.sh', content: 'new content' })).toMatchObject({ created: false, size: 11 });
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(statSync(file).mode & 0o777).toBe(0o751);
    expect(readdirSync(root).sort()).toEqual(['.pincer', 'script.sh']);
  });

  it('appends to an existing file and creates a missing one', async () => {
    put('root/log.txt', 'one\n');
    expect(await write({ path: 'log.txt', content: 'two\n', mode: 'append' })).toMatchObject({ created: false, bytes_written: 4, size: 8 });
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await write({ path: 'fresh.log', content: 'first', mode: 'append' })).toMatchObject({ created: true, size: 5 });
  });

  it('create mode makes a new file and refuses an existing one without touching it', async () => {
    expect(await write({ path: 'once.txt', content: 'first', mode: 'create' })).toMatchObject({ created: true });
    const error = await refusal(write({ path: 'once.txt', content: 'second', mode: 'create' }));
    expect(error.errorName).toBe('FILE_EXISTS');
    expect(error.message).toMatch(/overwrite/);
    expect(readFileSync(join(root, 'once.txt'), 'utf8')).toBe('first');
  });

  it('needs create_dirs for missing folders', async () => {
    const error = await refusal(write({ path: 'a/b/c.txt', content: 'x' }));
    expect(error.errorName).toBe('FILE_NOT_FOUND');
    expect(error.message).toMatch(/create_dirs/);
    expect(existsSync(join(root, 'a'))).toBe(false);
    expect(await write({ path: 'a/b/c.txt', content: 'x', create_dirs: true })).toMatchObject({ path: 'a/b/c.txt', created: true });
    expect(readFileSync(join(root, 'a/b/c.txt'), 'utf8')).toBe('x');
  });

  it('decodes base64, latin1 and utf16le content', async () => {
    await write({ path: 'b.bin', content: Buffer.from([0, 1, 254, 255]).toString('base64'), encoding: 'base64' });
    expect([...readFileSync(join(root, 'b.bin'))]).toEqual([0, 1, 254, 255]);
    await write({ path: 'l.txt', content: 'café', encoding: 'latin1' });
    expect(readFileSync(join(root, 'l.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await write({ path: 'w.txt', content: 'hi', encoding: 'utf16le' });
    expect(readFileSync(join(root, 'w.txt'))).toEqual(Buffer.from([0x68, 0, 0x69, 0]));
  });

  it('refuses content that does not fit its encoding', async () => {
    expect((await refusal(write({ path: 'x.bin', content: 'not base64!', encoding: 'base64' }))).errorName).toBe('INVALID_CONTENT');
    expect((await refusal(write({ path: 'x.txt', content: 'snow ☃', encoding: 'latin1' }))).errorName).toBe('INVALID_CONTENT');
    expect(existsSync(join(root, 'x.bin'))).toBe(false);
  });

  it(`refuses more than ${MAX_WRITE_BYTES} bytes and writes nothing`, async () => {
    const error = await refusal(write({ path: 'huge.txt', content: 'x'.repeat(MAX_WRITE_BYTES + 1) }));
    expect(error.errorName).toBe('FILE_TOO_LARGE');
    expect(error.message).toMatch(/append/);
    expect(existsSync(join(root, 'huge.txt'))).toBe(false);
  });

  it('refuses a folder as the target and a file as a parent folder', async () => {
    mkdirSync(join(root, 'dir'));
    put('root/plain.txt', 'p');
    expect((await refusal(write({ path: 'dir', content: 'x' }))).errorName).toBe('NOT_A_FILE');
    expect((await refusal(write({ path: 'plain.txt/child.txt', content: 'x', create_dirs: true }))).errorName).toBe('NOT_A_DIRECTORY');
    expect(readFileSync(join(root, 'plain.txt'), 'utf8')).toBe('p');
  });

  it('never writes through a symlink that points out (the outside file is unchanged)', async () => {
    symlinkSync(join(out, 'secret.txt'), join(root, 'link.txt'));
    for (const mode of ['overwrite', 'append', 'create']) {
      const error = await refusal(write({ path: 'link.txt', content: 'PWNED', mode }));
      expect(error.errorName).toBe('PATH_NOT_ALLOWED');
      expect(error.details).toEqual({ rule: 'path:symlink-write' });
    }
    expectOutsideUntouched();
    expect(lstatSync(join(root, 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('never writes through a dangling symlink that points out (no file appears outside)', async () => {
    symlinkSync(join(out, 'planted.txt'), join(root, 'dangling.txt'));
    expect((await refusal(write({ path: 'dangling.txt', content: 'PWNED', mode: 'create' }))).errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });

  it('refuses a symlink even when it points inside', async () => {
    put('root/target.txt', 'kept');
    symlinkSync('target.txt', join(root, 'alias.txt'));
    expect((await refusal(write({ path: 'alias.txt', content: 'changed' }))).details).toEqual({ rule: 'path:symlink-write' });
    expect(readFileSync(join(root, 'target.txt'), 'utf8')).toBe('kept');
  });

  it('writes through a symlinked folder that points inside, to the real folder', async () => {
    mkdirSync(join(root, 'real-dir'));
    symlinkSync('real-dir', join(root, 'dir-alias'));
    expect(await write({ path: 'dir-alias/f.txt', content: 'x' })).toMatchObject({ path: 'real-dir/f.txt' });
    expect(readFileSync(join(root, 'real-dir/f.txt'), 'utf8')).toBe('x');
  });

  it('replacing a hard-linked name leaves the other name (outside) unchanged', async () => {
    linkSync(join(out, 'secret.txt'), join(root, 'hard.txt'));
    await write({ path: 'hard.txt', content: 'new inside' });
    await write({ path: 'hard.txt', content: ' more', mode: 'append' });
    expect(readFileSync(join(root, 'hard.txt'), 'utf8')).toBe('new inside more');
    expectOutsideUntouched();
  });

  it.each([
    ['an absolute path outside', () => join(out, 'new.txt'), 'path:outside-roots'],
    ['a .. escape', () => '../outside/new.txt', 'path:outside-roots'],
    ['a symlinked folder pointing out', () => (symlinkSync(out, join(root, 'exit')), 'exit/new.txt'), 'path:outside-roots'],
    ['the data directory', () => '.pincer/token', 'path:pincer-data'],
    ['a ~ path', () => '~/new.txt', 'path:home-shorthand'],
  ])('refuses %s when called directly (PATH_NOT_ALLOWED)', async (_name, makePath, rule) => {
    const error = await refusal(write({ path: makePath(), content: 'PWNED', create_dirs: true }));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expect(error.details).toEqual({ rule });
    expectOutsideUntouched();
    expect(readFileSync(join(data, 'token'), 'utf8')).toBe('GATEWAY-TOKEN');
  });

  it('TOCTOU: a folder swapped for a symlink between check and write does not let the write land outside', async () => {
    mkdirSync(join(root, 'work'));
    const raced = racingGuard(() => {
      renameSync(join(root, 'work'), join(root, 'work-old'));
      symlinkSync(out, join(root, 'work'));
    });
    const error = await refusal(createFileWriteTool(raced).handler({ path: 'work/new.txt', content: 'PWNED' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });

  it('TOCTOU: a folder swapped for a symlink while create_dirs builds the path is not followed', async () => {
    const raced = racingGuard(() => {
      mkdirSync(join(root, 'made'));
      symlinkSync(out, join(root, 'made', 'sub'));
    });
    const error = await refusal(
      createFileWriteTool(raced).handler({ path: 'made/sub/new.txt', content: 'PWNED', create_dirs: true }, ctx()),
    );
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });

  it('TOCTOU: a file swapped for a symlink between check and write is refused, the outside file unchanged', async () => {
    put('root/target.txt', 'inside');
    const raced = racingGuard(() => {
      unlinkSync(join(root, 'target.txt'));
      symlinkSync(join(out, 'secret.txt'), join(root, 'target.txt'));
    });
    const error = await refusal(createFileWriteTool(raced).handler({ path: 'target.txt', content: 'PWNED', mode: 'append' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });

  it('TOCTOU: the root moved away after the check is noticed', async () => {
    put('root/f.txt', 'x');
    const raced = racingGuard(() => {
      renameSync(root, `${root}-moved`);
      symlinkSync(out, root);
    });
    const error = await refusal(createFileWriteTool(raced).handler({ path: 'f.txt', content: 'PWNED' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });
});

describe('file_list', () => {
  beforeEach(() => {
    put('root/b.txt', 'bb');
    put('root/a.md', 'a');
    put('root/.hidden', 'h');
    put('root/src/index.ts', 'i');
    put('root/src/util/helpers.ts', 'h');
    put('root/src/util/readme.md', 'r');
    put('root/src/deep/er/still/file.ts', 'f');
    symlinkSync(out, join(root, 'outside-link'));
    symlinkSync('src', join(root, 'src-link'));
  });

  it('lists a folder sorted by name, hidden names left out, symlinks shown as symlinks', async () => {
    const result = await list({ path: '.' });
    expect(result.entries.map((e) => [e.name, e.type])).toEqual([
      ['a.md', 'file'],
      ['b.txt', 'file'],
      ['outside-link', 'symlink'],
      ['src', 'dir'],
      ['src-link', 'symlink'],
    ]);
    expect(result).toMatchObject({ path: '.', root, count: 5, truncated: false });
    const b = result.entries.find((e) => e.name === 'b.txt')!;
    expect(b).toEqual({ name: 'b.txt', path: 'b.txt', type: 'file', size: 2, mtime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it('includes hidden names when asked, but never the data directory', async () => {
    const names = (await list({ path: '.', include_hidden: true })).entries.map((e) => e.name);
    expect(names).toContain('.hidden');
    expect(names).not.toContain('.pincer');
    const deep = await list({ path: '.', include_hidden: true, recursive: true });
    expect(deep.entries.some((e) => e.path.startsWith('.pincer'))).toBe(false);
  });

  it('lists recursively, shallow entries first, with paths relative to the root', async () => {
    const result = await list({ path: 'src', recursive: true });
    expect(result.entries.map((e) => e.path)).toEqual([
      'src/deep',
      'src/index.ts',
      'src/util',
      'src/deep/er',
      'src/util/helpers.ts',
      'src/util/readme.md',
      'src/deep/er/still',
      'src/deep/er/still/file.ts',
    ]);
  });

  it('stops at max_depth', async () => {
    const paths = (await list({ path: 'src', recursive: true, max_depth: 2 })).entries.map((e) => e.path);
    expect(paths).toContain('src/util/helpers.ts');
    expect(paths).not.toContain('src/deep/er/still');
    expect((await list({ path: 'src', max_depth: 1 })).entries.map((e) => e.name)).toEqual(['deep', 'index.ts', 'util']);
  });

  it('never follows a symlinked folder, inside or out', async () => {
    const result = await list({ path: '.', recursive: true });
    expect(result.entries.some((e) => e.path.startsWith('outside-link/'))).toBe(false);
    expect(result.entries.some((e) => e.path.startsWith('src-link/'))).toBe(false);
    expect(JSON.stringify(result)).not.toContain('secret.txt');
  });

  it('filters names at any depth with a glob without a slash', async () => {
    const result = await list({ path: '.', recursive: true, pattern: '*.ts' });
    expect(result.entries.map((e) => e.path)).toEqual(['src/index.ts', 'src/util/helpers.ts', 'src/deep/er/still/file.ts']);
  });

  it('matches the path below the listed folder with a glob with a slash, ** and braces', async () => {
    expect((await list({ path: '.', recursive: true, pattern: 'src/**/*.md' })).entries.map((e) => e.path)).toEqual(['src/util/readme.md']);
    expect((await list({ path: 'src', recursive: true, pattern: 'util/*.{ts,md}' })).entries.map((e) => e.path)).toEqual([
      'src/util/helpers.ts',
      'src/util/readme.md',
    ]);
    expect((await list({ path: '.', pattern: '[ab].*' })).entries.map((e) => e.name)).toEqual(['a.md', 'b.txt']);
    expect((await list({ path: '.', pattern: '?.md' })).entries.map((e) => e.name)).toEqual(['a.md']);
  });

  it('matches a hostile glob quickly (no backtracking blow-up)', async () => {
    put(`root/${'a'.repeat(200)}`, 'x');
    const started = performance.now();
    const result = await list({ path: '.', pattern: `${'*a'.repeat(40)}*b` });
    expect(result.count).toBe(0);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses a glob that expands too far', async () => {
    const error = await refusal(list({ path: '.', pattern: '{a,b}'.repeat(10) }));
    expect(error.errorName).toBe('INVALID_PATTERN');
  });

  it('reports truncated when max_entries is reached', async () => {
    const result = await list({ path: '.', recursive: true, max_entries: 3 });
    expect(result).toMatchObject({ count: 3, truncated: true, truncated_reason: expect.stringMatching(/max_entries/) });
  });

  it('reports a file, a missing folder and a path outside', async () => {
    expect((await refusal(list({ path: 'b.txt' }))).errorName).toBe('NOT_A_DIRECTORY');
    expect((await refusal(list({ path: 'missing' }))).errorName).toBe('FILE_NOT_FOUND');
    const outside = await refusal(list({ path: 'outside-link' }));
    expect(outside).toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:outside-roots' } });
    expect((await refusal(list({ path: '.pincer' }))).details).toEqual({ rule: 'path:pincer-data' });
  });
});

describe('file_list: patterns that leave the listed folder are refused by the handler too', () => {
  beforeEach(() => {
    put('root/a.md', 'a');
    put('root/b.txt', 'b');
    put('root/src/x/index.ts', 'i');
  });

  it.each([
    ['../*'],
    ['a/../../*'],
    ['/etc/*'],
    ['~/*'],
    ['C:\\*'],
    ['\\\\server\\share\\*'],
    ['{..,src}/*'],
    ['\uff0e\uff0e/*'],
  ])('refuses %s with rule path:pattern-escape and the policy\'s message, listing nothing', async (pattern) => {
    const error = await refusal(list({ path: '.', recursive: true, pattern }));
    expect(error).toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:pattern-escape' } });
    expect(error.message).toBe(`${checkPathPattern(pattern)!.reason} (rule path:pattern-escape)`);
    expect(error.message).not.toContain('OUTSIDE-SECRET');
  });

  it.each([
    ['*.md', ['a.md']],
    ['src/**/*.ts', ['src/x/index.ts']],
    ['{a,b}.*', ['a.md', 'b.txt']],
  ])('lists with the harmless pattern %s', async (pattern, expected) => {
    expect((await list({ path: '.', recursive: true, pattern })).entries.map((e) => e.path)).toEqual(expected);
  });
});

describe('file tools: look-alike paths are refused at run time (the handlers re-check with the guard)', () => {
  // A real folder named with two fullwidth full stops: "．．/outside" is inside the root here, "../outside" normalised.
  const LOOKALIKE = '\uff0e\uff0e';
  beforeEach(() => {
    put(`root/${LOOKALIKE}/outside/secret.txt`, 'LOOKALIKE-INSIDE');
  });

  it('file_read refuses ．．/outside/secret.txt although it exists inside the root', async () => {
    const error = await refusal(read({ path: `${LOOKALIKE}/outside/secret.txt` }));
    expect(error).toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:lookalike' } });
    expect(error.message).toContain('"../outside/secret.txt"');
    expect(error.message).not.toContain('LOOKALIKE-INSIDE');
  });

  it('file_read refuses ．．／．．／etc/passwd', async () => {
    const error = await refusal(read({ path: '\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc/passwd' }));
    expect(error.details).toEqual({ rule: 'path:lookalike' });
  });

  it('file_write refuses ．．／outside／new.txt and creates nothing anywhere', async () => {
    const error = await refusal(write({ path: `${LOOKALIKE}\uff0foutside\uff0fnew.txt`, content: 'x' }));
    expect(error.details).toEqual({ rule: 'path:lookalike' });
    expectOutsideUntouched();
    expect(readdirSync(root).sort()).toEqual(['.pincer', LOOKALIKE]);
  });

  it('file_delete refuses ．．/outside/secret.txt and leaves it in place', async () => {
    const error = await refusal(remove({ path: `${LOOKALIKE}/outside/secret.txt` }));
    expect(error.details).toEqual({ rule: 'path:lookalike' });
    expect(readFileSync(join(root, LOOKALIKE, 'outside', 'secret.txt'), 'utf8')).toBe('LOOKALIKE-INSIDE');
  });

  it('file_list refuses ．．/outside', async () => {
    expect((await refusal(list({ path: `${LOOKALIKE}/outside` }))).details).toEqual({ rule: 'path:lookalike' });
  });

  it('file_read and file_write still work with a look-alike name that stays inside (ａ．ｂ.txt)', async () => {
    await write({ path: '\uff41\uff0e\uff42.txt', content: 'fine' });
    expect(await read({ path: '\uff41\uff0e\uff42.txt' })).toMatchObject({ content: 'fine' });
  });
});

describe('file_list: every entry returned is inside the listed folder (asserted in code)', () => {
  it('returns only entries whose real path is inside the root', async () => {
    put('root/\uff0e\uff0e/outside/secret.txt', 'x');
    put('root/src/a.ts', 'a');
    symlinkSync(out, join(root, 'out-link'));
    const result = await list({ path: '.', recursive: true, include_hidden: true });
    expect(result.count).toBeGreaterThan(3);
    for (const entry of result.entries) {
      const real = join(realpathSync(join(root, entry.path, '..')), entry.name);
      expect(real.startsWith(`${root}/`), entry.path).toBe(true);
    }
  });

  /** A guard that moves `folder` out of the root when the listing first looks at a name inside `inside`. */
  function movingGuard(folder: string, inside: string): { guard: PathGuard; moved: () => boolean } {
    const raced = PathGuard.create({ roots: [root], protectedDirs: [data] });
    const check = raced.check.bind(raced);
    const isProtected = raced.isProtected.bind(raced);
    let armed = false;
    let moved = false;
    raced.check = async (path: unknown, access: PathAccess) => {
      const verdict = await check(path, access);
      armed = true;
      return verdict;
    };
    raced.isProtected = (real: string) => {
      if (armed && !moved && real.startsWith(`${join(root, inside)}/`)) {
        moved = true;
        renameSync(join(root, folder), join(out, folder));
      }
      return isProtected(real);
    };
    return { guard: raced, moved: () => moved };
  }

  it.runIf(process.platform === 'linux')('refuses the listing when the listed folder is moved out of the root while it is read', async () => {
    put('root/sub/a.txt', 'MOVED-A');
    put('root/sub/b.txt', 'MOVED-B');
    const { guard: raced, moved } = movingGuard('sub', 'sub');
    const error = await refusal(createFileListTool(raced).handler({ path: 'sub' } as never, ctx()));
    expect(moved()).toBe(true);
    expect(error).toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:list-escape' } });
    expect(error.message).not.toContain('a.txt');
    expect(existsSync(join(out, 'sub', 'a.txt'))).toBe(true);
  });

  it.runIf(process.platform === 'linux')('refuses a recursive listing when a subfolder is moved out of the root while it is read', async () => {
    put('root/top.txt', 't');
    put('root/deep/inner/x.txt', 'x');
    const { guard: raced, moved } = movingGuard('deep', 'deep/inner');
    const error = await refusal(createFileListTool(raced).handler({ path: '.', recursive: true } as never, ctx()));
    expect(moved()).toBe(true);
    expect(error.details).toEqual({ rule: 'path:list-escape' });
  });
});

describe('file_delete', () => {
  it('deletes a file', async () => {
    put('root/old.txt', 'x');
    expect(await remove({ path: 'old.txt' })).toEqual({ path: 'old.txt', root, deleted: true, type: 'file', files: 1, dirs: 0 });
    expect(existsSync(join(root, 'old.txt'))).toBe(false);
  });

  it('deletes an empty folder without recursive', async () => {
    mkdirSync(join(root, 'empty'));
    expect(await remove({ path: 'empty' })).toMatchObject({ type: 'dir', dirs: 1 });
    expect(existsSync(join(root, 'empty'))).toBe(false);
  });

  it('refuses a folder that is not empty unless recursive is set', async () => {
    put('root/full/a.txt', 'a');
    put('root/full/sub/b.txt', 'b');
    const error = await refusal(remove({ path: 'full' }));
    expect(error.errorName).toBe('DIRECTORY_NOT_EMPTY');
    expect(error.message).toMatch(/recursive/);
    expect(existsSync(join(root, 'full/sub/b.txt'))).toBe(true);
    expect(await remove({ path: 'full', recursive: true })).toMatchObject({ type: 'dir', files: 2, dirs: 2 });
    expect(existsSync(join(root, 'full'))).toBe(false);
  });

  it('removes a symlink itself, never its target', async () => {
    symlinkSync(join(out, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(out, join(root, 'dir-link'));
    expect(await remove({ path: 'link.txt' })).toMatchObject({ type: 'symlink' });
    expect(await remove({ path: 'dir-link', recursive: true })).toMatchObject({ type: 'symlink' });
    expect(existsSync(join(root, 'link.txt')) || existsSync(join(root, 'dir-link'))).toBe(false);
    expectOutsideUntouched();
  });

  it('a recursive delete removes links inside the tree without following them', async () => {
    put('root/tree/keep-me-not.txt', 'x');
    symlinkSync(out, join(root, 'tree', 'escape'));
    expect(await remove({ path: 'tree', recursive: true })).toMatchObject({ files: 2, dirs: 1 });
    expectOutsideUntouched();
  });

  it('reports a missing path', async () => {
    expect((await refusal(remove({ path: 'ghost.txt' }))).errorName).toBe('FILE_NOT_FOUND');
  });

  it.each([
    ['the root itself', () => '.', 'path:delete-root'],
    ['the root by absolute path', () => root, 'path:delete-root'],
    ['a file outside', () => join(out, 'secret.txt'), 'path:outside-roots'],
    ['a .. escape', () => '../outside', 'path:outside-roots'],
    ['a file through a symlinked folder pointing out', () => (symlinkSync(out, join(root, 'exit')), 'exit/secret.txt'), 'path:outside-roots'],
    ['the data directory', () => '.pincer', 'path:pincer-data'],
  ])('refuses %s when called directly (PATH_NOT_ALLOWED)', async (_name, makePath, rule) => {
    const error = await refusal(remove({ path: makePath(), recursive: true }));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expect(error.details).toEqual({ rule });
    expectOutsideUntouched();
    expect(readFileSync(join(data, 'token'), 'utf8')).toBe('GATEWAY-TOKEN');
    expect(existsSync(root)).toBe(true);
  });

  it('refuses a folder that contains the data directory', async () => {
    const nestedData = join(root, 'var', 'pincer');
    put('root/var/pincer/db', 'DB');
    const g = PathGuard.create({ roots: [root], protectedDirs: [nestedData] });
    const error = await refusal(createFileDeleteTool(g).handler({ path: 'var', recursive: true }, ctx()));
    expect(error.details).toEqual({ rule: 'path:pincer-data' });
    expect(readFileSync(join(nestedData, 'db'), 'utf8')).toBe('DB');
  });

  it('TOCTOU: a folder swapped for a symlink out after the check deletes nothing outside', async () => {
    put('root/victim/secret.txt', 'inside copy');
    const raced = racingGuard(() => {
      renameSync(join(root, 'victim'), join(root, 'victim-old'));
      symlinkSync(out, join(root, 'victim'));
    });
    const error = await refusal(createFileDeleteTool(raced).handler({ path: 'victim/secret.txt' }, ctx()));
    expect(error.errorName).toBe('PATH_NOT_ALLOWED');
    expectOutsideUntouched();
  });

  it('TOCTOU: a recursive delete whose folder becomes a symlink out removes only the link', async () => {
    put('root/tree/a.txt', 'a');
    const raced = racingGuard(() => {
      renameSync(join(root, 'tree'), join(root, 'tree-old'));
      symlinkSync(out, join(root, 'tree'));
    });
    await createFileDeleteTool(raced).handler({ path: 'tree', recursive: true }, ctx());
    expect(existsSync(join(root, 'tree'))).toBe(false);
    expectOutsideUntouched();
  });
});
