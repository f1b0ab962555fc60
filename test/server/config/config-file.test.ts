import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../server/config/config-file.js';

/** A fresh folder per test, with an empty data directory in it. */
let root: string;
let dataDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pincer-config-file-'));
  dataDir = join(root, 'data');
  mkdirSync(dataDir);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writeConfig(config: unknown): void {
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config));
}

describe('writeConfigFile', () => {
  it('writes the object as JSON with mode 0600 and leaves no temporary file', () => {
    const file = join(dataDir, 'config.json');
    writeConfigFile(file, { approval_timeout_s: 30 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ approval_timeout_s: 30 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual(['config.json']);
  });

  it('replaces an existing file whole', () => {
    const file = join(dataDir, 'config.json');
    writeConfig({ port: 7001, roots: ['/x'] });
    writeConfigFile(file, { port: 7001 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ port: 7001 });
  });

  it('writes through a config.json that is a symlink, keeping the link', () => {
    const real = join(root, 'dotfiles-config.json');
    writeFileSync(real, '{}');
    const file = join(dataDir, 'config.json');
    symlinkSync(real, file);
    writeConfigFile(file, { port: 7002 });
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ port: 7002 });
  });

  it('leaves what was there and no temporary file behind when the rename fails', () => {
    const file = join(dataDir, 'config.json');
    // A folder in the way (non-empty) makes the final rename fail after the temporary file was written.
    mkdirSync(file);
    writeFileSync(join(file, 'keep.txt'), 'kept');
    expect(() => writeConfigFile(file, { port: 7001 })).toThrow();
    expect(readFileSync(join(file, 'keep.txt'), 'utf8')).toBe('kept');
    expect(readdirSync(dataDir)).toEqual(['config.json']);
  });
});
