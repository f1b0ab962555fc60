import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { electronBinary } from '../../scripts/desktop/electron.mjs';
import { desktopFacts, desktopPlan, hasDisplay, type DesktopFacts } from '../../scripts/desktop/plan.mjs';
import { tempDir } from '../helpers/gateway.js';
import { builtNative, fakeCheckout, type FakeCheckout } from './checkout.js';

const READY: DesktopFacts = {
  platform: 'linux',
  electronInstalled: true,
  electron: '/app/node_modules/electron/dist/electron',
  display: true,
  nativeProblem: undefined,
  mainBuilt: true,
};

describe('desktopPlan: whether npm start can run the desktop app', () => {
  it('launches Electron when everything is there', () => {
    expect(desktopPlan(READY)).toEqual({ launch: true, electron: READY.electron });
  });

  it('falls back when Electron is not installed at all', () => {
    expect(desktopPlan({ ...READY, electronInstalled: false, electron: undefined })).toEqual({
      launch: false,
      reason: 'Electron is not installed (dev dependencies were left out)',
    });
  });

  it('falls back when the binary was never downloaded, and says how to fetch it', () => {
    const plan = desktopPlan({ ...READY, electron: undefined });
    expect(plan).toEqual({ launch: false, reason: expect.stringContaining('npx install-electron') });
  });

  it('falls back without a display', () => {
    expect(desktopPlan({ ...READY, display: false })).toEqual({ launch: false, reason: expect.stringMatching(/no display/) });
  });

  it('falls back when the Electron build of better-sqlite3 is missing or wrong, naming the problem', () => {
    const plan = desktopPlan({ ...READY, nativeProblem: 'native/electron/better_sqlite3.node is not built' });
    expect(plan).toEqual({ launch: false, reason: expect.stringMatching(/^native\/electron\/better_sqlite3\.node is not built \("npm start" builds it/) });
  });

  it('falls back when the main process is not compiled', () => {
    expect(desktopPlan({ ...READY, mainBuilt: false })).toEqual({ launch: false, reason: expect.stringMatching(/dist\/electron\/main\/index\.js is not built/) });
  });

  it('gives the first missing piece: no binary is the reason even without a display', () => {
    const plan = desktopPlan({ ...READY, electron: undefined, display: false, mainBuilt: false });
    expect(plan.launch === false && plan.reason).toMatch(/binary/);
  });
});

describe('hasDisplay', () => {
  it('needs DISPLAY or WAYLAND_DISPLAY on Linux and the BSDs', () => {
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: '' })).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('freebsd', {})).toBe(false);
  });

  it('is always there on macOS and Windows', () => {
    expect(hasDisplay('darwin', {})).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
  });
});

describe('electronBinary: where Electron is, without downloading it', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH, as electron itself does', () => {
    const checkout = fakeCheckout();
    made.push(checkout.root);
    const empty = tempDir();
    made.push(empty);
    expect(electronBinary(join(checkout.root, 'node_modules/electron'), { ELECTRON_OVERRIDE_DIST_PATH: empty }, 'linux')).toEqual({
      path: join(empty, 'electron'),
      present: false,
    });
    checkout.write('dist-here/electron', '#!/bin/sh\n');
    expect(electronBinary(join(checkout.root, 'node_modules/electron'), { ELECTRON_OVERRIDE_DIST_PATH: join(checkout.root, 'dist-here') }, 'linux').present).toBe(true);
  });

  it('uses path.txt, which electron writes once it has downloaded the binary, and the platform name before that', () => {
    const checkout = fakeCheckout();
    made.push(checkout.root);
    const dir = join(checkout.root, 'node_modules/electron');
    expect(electronBinary(dir, {}, 'linux')).toEqual({ path: join(dir, 'dist', 'electron'), present: false });
    expect(electronBinary(dir, {}, 'win32').path).toBe(join(dir, 'dist', 'electron.exe'));
    expect(electronBinary(dir, {}, 'darwin').path).toBe(join(dir, 'dist', 'Electron.app/Contents/MacOS/Electron'));
    checkout.write('node_modules/electron/path.txt', 'electron');
    checkout.write('node_modules/electron/dist/electron', 'binary');
    expect(electronBinary(dir, {}, 'linux')).toEqual({ path: join(dir, 'dist', 'electron'), present: true });
  });
});

describe('desktopFacts: what this checkout holds', () => {
  let checkout: FakeCheckout | undefined;
  const dist = () => join(checkout!.root, 'electron-dist');
  afterEach(() => {
    if (checkout) rmSync(checkout.root, { recursive: true, force: true });
    checkout = undefined;
  });

  it('sees a checkout ready for the desktop app', () => {
    checkout = fakeCheckout();
    builtNative(checkout);
    checkout.write('electron-dist/electron', 'binary');
    checkout.write('dist/electron/main/index.js', '');
    const facts = desktopFacts({ root: checkout.root, env: { ELECTRON_OVERRIDE_DIST_PATH: dist(), DISPLAY: ':0' }, platform: 'linux' });
    expect(facts).toEqual({ platform: 'linux', electronInstalled: true, electron: join(dist(), 'electron'), display: true, nativeProblem: undefined, mainBuilt: true });
    expect(desktopPlan(facts).launch).toBe(true);
  });

  it('sees a fresh clone: no binary, no Electron build of better-sqlite3, nothing compiled', () => {
    checkout = fakeCheckout();
    const facts = desktopFacts({ root: checkout.root, env: { ELECTRON_OVERRIDE_DIST_PATH: dist() }, platform: 'linux' });
    expect(facts).toMatchObject({ electronInstalled: true, electron: undefined, display: false, mainBuilt: false });
    expect(facts.nativeProblem).toMatch(/better_sqlite3\.node is not built/);
  });

  it('sees an install without dev dependencies', () => {
    checkout = fakeCheckout({ electron: false });
    expect(desktopFacts({ root: checkout.root, env: {}, platform: 'linux' })).toMatchObject({ electronInstalled: false, electron: undefined });
  });

  it('sees an Electron build made for another Electron as a problem', () => {
    checkout = fakeCheckout({ abi: '151' });
    builtNative(checkout);
    const facts = desktopFacts({ root: checkout.root, env: {}, platform: 'linux' });
    expect(facts.nativeProblem).toMatch(/not built for Electron's ABI 151 \(it registers v150\)/);
  });
});
