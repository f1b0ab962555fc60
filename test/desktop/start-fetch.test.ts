import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronBinary, electronPackage } from '../../scripts/desktop/electron.mjs';
import { fetchElectron } from '../../scripts/desktop/fetch.mjs';
import { freePort, leftovers, startHeadless, type Served } from '../helpers/cli.js';

const ELECTRON_VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '../../node_modules/electron/package.json'), 'utf8')) as { version: string }).version;

/**
 * `npm start` with a display but without Electron's binary tries once to fetch it with Electron's own installer,
 * which honours ELECTRON_MIRROR: here a mirror on loopback. A zip that is not Electron's fails the installer's
 * checksum (nothing is unpacked), as a refused connection fails it; either way the failure is remembered in the data
 * folder and the gateway runs headless, saying why.
 */
describe('npm start fetches a missing Electron once', () => {
  const { dir, servers, keep } = leftovers('pincer-fetch-');
  let served: Served | undefined;

  /** A mirror that answers every path with four bytes of a zip header, and lists what it was asked for. */
  async function fakeMirror(): Promise<{ url: string; asked: string[] }> {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': 4 });
      res.end(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, asked };
  }

  /** What a start with a display and no binary needs: an empty dist, a cache of its own, the mirror. */
  const environment = (home: string, mirror: string) => ({
    PINCER_HOME: home,
    ELECTRON_OVERRIDE_DIST_PATH: dir(),
    electron_config_cache: dir(),
    ELECTRON_MIRROR: mirror,
    DISPLAY: ':99',
    WAYLAND_DISPLAY: undefined,
  });

  it('asks the mirror, says so, remembers the failure and serves headless; the next start does not ask again', async () => {
    const home = dir();
    const mirror = await fakeMirror();
    served = keep(await startHeadless(['--port', String(await freePort())], environment(home, mirror.url)));
    const lines = served.output().split('\n');
    expect(lines[0]).toBe(`Pincer: fetching Electron ${ELECTRON_VERSION}'s binary from ${mirror.url}, once (up to 120 s)…`);
    expect(mirror.asked).toEqual([`/v${ELECTRON_VERSION}/electron-v${ELECTRON_VERSION}-${process.platform}-${process.arch}.zip`]);
    expect(lines[1]).toMatch(/^Pincer: could not fetch Electron's binary: .*checksum.*\. The next start will not try again/);
    expect(lines[2]).toMatch(/^Pincer: the desktop app cannot start here: Electron's binary is not downloaded and fetching it failed \(.*checksum.*\)\. Running the headless gateway instead\.$/);
    expect(lines[3]).toMatch(/^Pincer \S+ listening on http:\/\/127\.0\.0\.1:\d+$/);
    const marker = JSON.parse(readFileSync(join(home, 'electron-fetch-failed.json'), 'utf8')) as Record<string, string>;
    expect(marker).toMatchObject({ version: ELECTRON_VERSION, mirror: mirror.url, reason: expect.stringMatching(/checksum/) });
    expect((await fetch(`${served.url}/health`)).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);

    served = keep(await startHeadless(['--port', String(await freePort())], environment(home, mirror.url)));
    const again = served.output().split('\n');
    expect(again[0]).toBe(
      `Pincer: the desktop app cannot start here: Electron's binary is not downloaded and fetching it failed on ${marker.at} (${marker.reason}); run "npx install-electron" to try again. Running the headless gateway instead.`,
    );
    expect(mirror.asked).toHaveLength(1);
  });

  it('a mirror that refuses the connection: the same fallback, the reason named', async () => {
    const home = dir();
    const closed = `http://127.0.0.1:${await freePort()}/`;
    served = keep(await startHeadless(['--port', String(await freePort())], environment(home, closed)));
    const lines = served.output().split('\n');
    expect(lines[0]).toMatch(/^Pincer: fetching Electron \S+'s binary from http:\/\/127\.0\.0\.1:\d+\/, once/);
    expect(lines[1]).toBe(`Pincer: could not fetch Electron's binary: no connection to ${closed} could be made. The next start will not try again ("npx install-electron" does, or delete ${join(home, 'electron-fetch-failed.json')}).`);
    expect(lines[2]).toMatch(/^Pincer: the desktop app cannot start here: Electron's binary is not downloaded and fetching it failed/);
    expect(existsSync(join(home, 'electron-fetch-failed.json'))).toBe(true);
  });

  it('a mirror that never answers: progress lines while it waits, then the time limit ends the attempt and is remembered', async () => {
    const stalled = createServer(() => undefined);
    servers.push(stalled);
    await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', r));
    const mirror = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/`;
    const home = dir();
    const electron = electronPackage()!;
    const env = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dir(), electron_config_cache: dir(), ELECTRON_MIRROR: mirror };
    const said: string[] = [];
    const result = await fetchElectron({
      electron,
      dataDir: home,
      binaryPresent: () => electronBinary(electron.dir, env).present,
      env,
      log: (l) => said.push(l),
      timeoutMs: 3_000,
      progressEveryMs: 1_000,
    });
    expect(result).toEqual({ fetched: false, reason: 'fetching it failed (no complete download within 3 s)' });
    expect(said[0]).toBe(`Pincer: fetching Electron ${ELECTRON_VERSION}'s binary from ${mirror}, once (up to 3 s)…`);
    expect(said.filter((l) => /^Pincer: still fetching Electron… \d+ s$/.test(l)).length).toBeGreaterThan(0);
    expect(said.at(-1)).toMatch(/^Pincer: could not fetch Electron's binary: no complete download within 3 s\. The next start will not try again/);
    expect(JSON.parse(readFileSync(join(home, 'electron-fetch-failed.json'), 'utf8'))).toMatchObject({ mirror, reason: 'no complete download within 3 s' });
  });
});
