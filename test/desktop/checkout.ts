import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../helpers/gateway.js';

/** Bytes standing in for a compiled addon that registers itself for `abi` (the symbol is what the checks read). */
export function fakeAddon(abi: string | undefined): Buffer {
  const symbol = abi === undefined ? 'napi_register_module_v1' : `node_register_module_v${abi}`;
  return Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(64), Buffer.from(`_init\0${symbol}\0sqlite3_open\0`)]);
}

export interface FakeCheckout {
  root: string;
  write(path: string, content: string | Buffer): void;
}

/**
 * A checkout with just what the desktop checks read: package.json, node_modules/electron (its version and
 * abi_version, no binary) and node_modules/better-sqlite3's package.json.
 */
export function fakeCheckout(options: { electron?: boolean; abi?: string } = {}): FakeCheckout {
  const root = tempDir('pincer-checkout-');
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  write('package.json', JSON.stringify({ name: 'checkout', private: true, type: 'module' }));
  if (options.electron !== false) {
    write('node_modules/electron/package.json', JSON.stringify({ name: 'electron', version: '45.5.0' }));
    write('node_modules/electron/abi_version', options.abi ?? '150');
  }
  write('node_modules/better-sqlite3/package.json', JSON.stringify({ name: 'better-sqlite3', version: '12.11.1' }));
  return { root, write };
}

/** native/electron as `npm start` leaves it after a good build on this machine. */
export function builtNative(checkout: FakeCheckout, stamp: Record<string, string> = {}): void {
  checkout.write('native/electron/better_sqlite3.node', fakeAddon('150'));
  checkout.write(
    'native/electron/build.json',
    JSON.stringify({ electron: '45.5.0', abi: '150', betterSqlite3: '12.11.1', platform: process.platform, arch: process.arch, ...stamp }),
  );
}
