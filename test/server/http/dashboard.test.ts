/**
 * GET / and /assets against a real gateway whose dashboardDir starts empty: a build made while it runs is served
 * on the next request, without a restart.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../../server/index.js';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

let tg: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = tempDir('pincer-dashboard-');
  tg = await startGateway({ dashboardDir: dir });
});
afterAll(async () => {
  await tg.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard', () => {
  it('shows the not-built page, then the dashboard once it is built, without a restart', async () => {
    const before = await fetch(`${tg.url}/`);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await before.text()).toContain('the dashboard has not been built');
    expect((await fetch(`${tg.url}/assets/index-abc123.js`)).status).toBe(404);

    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Pincer</title><script type="module" src="/assets/index-abc123.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("dashboard");');

    const after = await fetch(`${tg.url}/`);
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('/assets/index-abc123.js');
    expect(after.headers.get('content-security-policy')).toContain("script-src 'self'");
    const asset = await fetch(`${tg.url}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log("dashboard");');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await fetch(`${tg.url}/assets/missing.js`)).status).toBe(404);
  });

  it('answers GET /session without a token', async () => {
    const res = await fetch(`${tg.url}/session`);
    expect(res.status).toBe(200);
    // The login screen's command: absolute paths, so it works typed in any folder (test/server/cli/login-command.test.ts).
    expect(await res.json()).toEqual({ owner: false, version: VERSION, login_command: `node ${join(PACKAGE_ROOT, 'bin', 'pincer.js')} login-url --data-dir ${tg.dataDir}` });
  });
});
