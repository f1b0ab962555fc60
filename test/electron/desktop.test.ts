import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDesktop, type DesktopApp } from '../../electron/main/app.js';
import { PRELOAD_FILE } from '../../electron/main/paths.js';
import { POPUP_PARTITION, POPUP_SIZE } from '../../electron/main/popups.js';
import { tempDir } from '../helpers/gateway.js';
import { until } from '../helpers/wait.js';
import { app, fake, fakeEvent, FakeBrowserWindow, FakeNotification, FakeTray, type FakeWebContents } from './fake-electron.js';

/**
 * The desktop shell against a fake electron module and a real gateway: real HTTP calls, real approvals, the real
 * database. What a window, tray click or page would do is played through the fake; what comes out is read over HTTP.
 */

let desktop: DesktopApp;
let dataDir: string;
let workspace: string;
let logged: string[];

function envFor(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PINCER_HOME: dataDir, PINCER_HOST: '127.0.0.1', PINCER_PORT: '0', PINCER_ROOTS: workspace, ...extra };
}

beforeEach(async () => {
  fake.reset();
  dataDir = tempDir();
  workspace = tempDir('pincer-root-');
  logged = [];
  desktop = (await startDesktop({ env: envFor(), log: (line) => logged.push(line), platform: 'linux' }))!;
});

afterEach(async () => {
  await desktop?.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

function api(path: string, init: { json?: unknown; token?: string } = {}) {
  return fetch(`${desktop.url}${path}`, {
    method: init.json === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${init.token ?? desktop.gateway.credentials.defaultToken}`,
      ...(init.json !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
}

async function listedTools(token?: string): Promise<string[]> {
  const body = (await (await api('/tools/openai', { token })).json()) as { function: { name: string } }[] | { tools: { function: { name: string } }[] };
  const list = Array.isArray(body) ? body : body.tools;
  return list.map((t) => t.function.name);
}

/** The tray's menu as it is now, followed by labels (`/` matches by prefix). */
function menuItem(...labels: string[]): MenuItemConstructorOptions {
  desktop.tray.rebuild();
  let items = (FakeTray.all.at(-1)!.menu!.items ?? []) as MenuItemConstructorOptions[];
  let item: MenuItemConstructorOptions | undefined;
  for (const label of labels) {
    item = items.find((i) => i.label === label || (label.endsWith('…') && i.label?.startsWith(label.slice(0, -1))));
    if (!item) throw new Error(`no "${label}" in ${items.map((i) => i.label).join(' | ')}`);
    items = (item.submenu ?? []) as MenuItemConstructorOptions[];
  }
  return item!;
}
const click = (item: MenuItemConstructorOptions) => (item.click as () => void)();

const popups = () => FakeBrowserWindow.all.filter((w) => w.webContents.url.includes('/popup/') && !w.isDestroyed());

/** A call the policy asks about, left waiting; resolves with its HTTP answer once the owner decides. */
async function askingCall(): Promise<{ answer: Promise<{ status: number; body: any }>; popup: FakeBrowserWindow }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  mkdirSync(join(workspace, 'build'), { recursive: true });
  const before = popups().length;
  const answer = api('/tools/run_shell/execute', { json: { command: 'rm -rf ./build && echo cleaned' } }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const popup = await until(() => popups().length > before && popups().at(-1), 'a popup window');
  await until(() => popup.shown !== 'no', 'the popup to show');
  return { answer, popup };
}

describe('the main process', () => {
  it('runs the gateway in-process on the same data directory as the pincer command', async () => {
    expect(desktop.gateway.config.dataDir).toBe(dataDir);
    expect(existsSync(join(dataDir, 'pincer.db'))).toBe(true);
    expect((await fetch(`${desktop.url}/health`)).status).toBe(200);
    expect(FakeTray.all).toHaveLength(1);
    expect(FakeTray.all[0]!.tooltip).toMatch(/^Pincer on 127\.0\.0\.1:\d+ · 0 calls today$/);
  });

  it('a second launch quits at once and opens the running one’s dashboard instead', async () => {
    fake.singleInstance = false;
    expect(await startDesktop({ env: envFor(), log: () => {} })).toBeUndefined();
    expect(FakeTray.all).toHaveLength(1);
    fake.singleInstance = true;
    fake.emitApp('second-instance', fakeEvent(), [], process.cwd());
    const window = FakeBrowserWindow.all.at(-1)!;
    expect(window.webContents.url).toMatch(new RegExp(`^${desktop.url}/auth\\?code=`));
  });

  it('opens the dashboard with a fresh one-time login each time it is opened anew', async () => {
    click(menuItem('Open dashboard'));
    const first = FakeBrowserWindow.all.at(-1)!;
    await until(() => first.shown === 'active', 'the dashboard to show');
    const login = await fetch(first.webContents.url, { redirect: 'manual' });
    expect(login.status).toBe(303);
    click(menuItem('Open dashboard'));
    expect(FakeBrowserWindow.all).toHaveLength(1);
    first.close();
    click(menuItem('Open dashboard'));
    expect(FakeBrowserWindow.all.at(-1)!.webContents.url).not.toBe(first.webContents.url);
  });

  it('a crashed page never stops the gateway; the dashboard comes back', async () => {
    click(menuItem('Open dashboard'));
    const window = FakeBrowserWindow.all.at(-1)!;
    const before = window.webContents.url;
    fake.emitApp('render-process-gone', fakeEvent(), window.webContents, { reason: 'crashed', exitCode: 139 });
    expect((await fetch(`${desktop.url}/health`)).status).toBe(200);
    expect(window.webContents.url).not.toBe(before);
    expect(logged.some((line) => line.includes('crashed'))).toBe(true);
  });

  it('a taken port is explained in a dialog and the app ends', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const second = await startDesktop({ env: envFor({ PINCER_HOME: tempDir(), PINCER_PORT: String(port) }), log: () => {} });
      expect(second).toBeUndefined();
      expect(fake.errorBoxes[0]!.content).toContain(`Port ${port} on 127.0.0.1 is in use`);
      expect(fake.exitCode).toBe(1);
    } finally {
      blocker.close();
    }
  });

  it('a data folder another gateway serves is named in a dialog, and that gateway’s waiting approval is left as it is', async () => {
    const { answer } = await askingCall();
    const waiting = desktop.gateway.approvals.pending().map((a) => a.id);
    // Another app instance (say with its own user-data folder) on the same data folder: the single-instance lock
    // does not see it, the data folder's lock does.
    expect(await startDesktop({ env: envFor(), log: () => {} })).toBeUndefined();
    expect(fake.errorBoxes[0]!.content).toBe(
      `The data folder ${dataDir} is in use by the gateway pid ${process.pid} on ${desktop.url}. Stop it first, or set PINCER_HOME to another folder, and start the app again.`,
    );
    expect(fake.exitCode).toBe(1);
    expect(desktop.gateway.approvals.pending().map((a) => a.id)).toEqual(waiting);
    expect((await fetch(`${desktop.url}/health`)).status).toBe(200);
    desktop.gateway.approvals.decide(waiting[0]!, { decision: 'deny' }, 'owner');
    expect((await answer).status).toBe(403);
  });

  it('a bad configuration value is named in a dialog', async () => {
    expect(await startDesktop({ env: envFor({ PINCER_HOME: tempDir(), PINCER_PORT: 'seventy' }), log: () => {} })).toBeUndefined();
    expect(fake.errorBoxes[0]!.content).toContain('PINCER_PORT');
    expect(fake.exitCode).toBe(1);
  });

  it('quitting refuses the waiting approvals and records them before the app ends', async () => {
    const { answer } = await askingCall();
    const callId = desktop.gateway.approvals.pending()[0]!.call_id;
    app.quit();
    expect(fake.quitted).toBe(false); // the first quit waits for the gateway
    const { status, body } = await answer;
    expect(status).toBe(503);
    expect(body.error.name).toBe('CALL_CANCELLED');
    await until(() => fake.quitted, 'the app to quit after the gateway stopped');
    expect(popups()).toHaveLength(0);
    // Recorded at quit (the next start would have written "The gateway stopped before this call finished.").
    const next = (await startDesktop({ env: envFor(), log: () => {} }))!;
    try {
      expect(next.gateway.store.calls.get(callId)).toMatchObject({ status: 'cancelled', error: { message: expect.stringContaining('withdrawn before the owner answered') } });
    } finally {
      await next.shutdown();
    }
  });
});

describe('the tray', () => {
  it('a Tools checkbox takes effect at once in /tools/openai, and is kept', async () => {
    expect(await listedTools()).toContain('calculate');
    const item = menuItem('Tools', 'Math', 'calculate');
    expect(item.checked).toBe(true);
    click(item);
    expect(await listedTools()).not.toContain('calculate');
    expect(menuItem('Tools', 'Math', 'calculate').checked).toBe(false);
    expect(desktop.gateway.store.toolSettings.disabledTools()).toContain('calculate');
    click(menuItem('Tools', 'Math', 'calculate'));
    expect(await listedTools()).toContain('calculate');
  });

  it('Pause all tools stops every call until it is unticked, and the icon says so', async () => {
    click(menuItem('Pause all tools'));
    const paused = await api('/tools/calculate/execute', { json: { expression: '1 + 1' } });
    expect(paused.status).toBe(409);
    expect(((await paused.json()) as { error: { name: string } }).error.name).toBe('TOOLS_PAUSED');
    expect(menuItem('Pause all tools').checked).toBe(true);
    expect(FakeTray.all[0]!.image).toMatchObject({ path: expect.stringMatching(/paused\.png$/) });
    click(menuItem('Pause all tools'));
    expect((await api('/tools/calculate/execute', { json: { expression: '1 + 1' } })).status).toBe(200);
  });

  it('a client profile narrowed from the tray changes that client’s list', async () => {
    const token = desktop.gateway.credentials.createClient('cursor');
    click(menuItem('Clients', 'cursor', 'Every enabled tool'));
    expect(desktop.gateway.access.profile('cursor').tools).not.toBeNull();
    click(menuItem('Clients', 'cursor', 'Math', 'calculate'));
    expect(await listedTools(token)).not.toContain('calculate');
    expect(await listedTools()).toContain('calculate');
  });

  it('counts the calls of today and the approvals waiting', async () => {
    await api('/tools/calculate/execute', { json: { expression: '6 * 7' } });
    expect(menuItem('1 call today').enabled).toBe(false);
    await askingCall();
    expect(menuItem('Approvals…').label).toBe('Approvals (1 pending)');
    await until(() => (FakeTray.all[0]!.image as { path: string }).path.endsWith('pending.png'), 'the pending icon');
  });

  it('copies the client token', async () => {
    click(menuItem('Copy client token'));
    await until(() => fake.clipboardText, 'the clipboard');
    expect(fake.clipboardText).toBe(desktop.gateway.credentials.defaultToken);
  });

  it('start at login writes and removes an XDG autostart entry on Linux', async () => {
    const config = tempDir('pincer-xdg-');
    await desktop.shutdown();
    fake.reset();
    desktop = (await startDesktop({ env: envFor({ XDG_CONFIG_HOME: config }), log: () => {}, platform: 'linux' }))!;
    const entry = join(config, 'autostart', 'pincer.desktop');
    click(menuItem('Start at login'));
    expect(readFileSync(entry, 'utf8')).toMatch(/^Exec=".+"/m);
    expect(menuItem('Start at login').checked).toBe(true);
    click(menuItem('Start at login'));
    expect(existsSync(entry)).toBe(false);
  });

  it('start at login uses the system login items on macOS and Windows', async () => {
    await desktop.shutdown();
    fake.reset();
    desktop = (await startDesktop({ env: envFor(), log: () => {}, platform: 'darwin' }))!;
    click(menuItem('Start at login'));
    expect(fake.loginItem.openAtLogin).toBe(true);
  });
});

describe('approval popups', () => {
  it('an approval opens a small always-on-top popup, without taking focus, plus a notification', async () => {
    const { popup } = await askingCall();
    const approval = desktop.gateway.approvals.pending()[0]!;
    expect(popup.webContents.url).toBe(`${desktop.url}/popup/${approval.id}`);
    expect(popup.options).toMatchObject({ ...POPUP_SIZE, alwaysOnTop: true });
    expect(popup.options.webPreferences).toMatchObject({ preload: PRELOAD_FILE, partition: POPUP_PARTITION });
    expect(popup.shown).toBe('inactive');
    const notification = FakeNotification.all.find((n) => n.shown)!;
    expect(notification.options.title).toBe('Pincer: default asks to run run_shell');
    notification.emit('click');
    expect(popup.focused).toBe(true);
  });

  it('the notification starts with the client-written file a command runs (a Makefile before make)', async () => {
    mkdirSync(join(workspace, 'web'));
    const wrote = (await (await api('/tools/file_write/execute', { json: { path: 'web/Makefile', content: 'all:\n\tid\n' } })).json()) as { success: boolean };
    expect(wrote.success).toBe(true);
    void api('/tools/run_shell/execute', { json: { command: 'make', cwd: 'web' } }).catch(() => undefined);
    const notification = await until(() => FakeNotification.all.find((n) => n.shown), 'the notification');
    expect(notification.options.body).toMatch(/^Runs Makefile, written by client default\. /);
    const view = (await until(() => desktop.gateway.approvals.pending()[0], 'the approval')).provenance;
    expect(view).toMatchObject([{ path: join(realpathSync(workspace), 'web', 'Makefile'), client: 'default', tool: 'file_write' }]);
  });

  it('Allow from the popup (over IPC) lets the waiting HTTP call finish, and the popup closes', async () => {
    const { answer, popup } = await askingCall();
    const view = (await fake.invoke('popup:approval', popup.webContents)) as { tool: string; client: string; reason: string };
    expect(view).toMatchObject({ tool: 'run_shell', client: 'default' });
    expect(view.reason).not.toBe('');
    expect(await fake.invoke('popup:decide', popup.webContents, { decision: 'allow_once' })).toEqual({ ok: true, status: 'allowed' });
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(JSON.stringify(body.result)).toContain('cleaned');
    expect(popup.isDestroyed()).toBe(true);
    expect(FakeNotification.all.every((n) => n.closed || n.options.title === 'Pincer')).toBe(true);
  });

  it('Deny from the popup makes the waiting call come back denied', async () => {
    const { answer, popup } = await askingCall();
    expect(await fake.invoke('popup:decide', popup.webContents, { decision: 'deny', message: 'not now' })).toEqual({ ok: true, status: 'denied' });
    const { status, body } = await answer;
    expect(status).toBe(403);
    expect(JSON.stringify(body)).toContain('not now');
  });

  it('an answer from the dashboard closes the popup', async () => {
    const { popup } = await askingCall();
    desktop.gateway.approvals.decide(desktop.gateway.approvals.pending()[0]!.id, { decision: 'deny' }, 'owner');
    expect(popup.isDestroyed()).toBe(true);
  });

  it('a popup closed unanswered leaves the approval waiting; the tray’s Approvals brings it back', async () => {
    const { popup } = await askingCall();
    popup.close();
    expect(desktop.gateway.approvals.pending()).toHaveLength(1);
    expect(popups()).toHaveLength(0);
    click(menuItem('Approvals…'));
    expect(popups()).toHaveLength(1);
  });

  it('Escape in the popup (popup:close) closes only that window', async () => {
    const { popup } = await askingCall();
    fake.send('popup:close', popup.webContents);
    expect(popup.isDestroyed()).toBe(true);
    expect(desktop.gateway.approvals.pending()).toHaveLength(1);
  });
});

describe('IPC: every sender checked, every payload validated', () => {
  async function pendingPopup(): Promise<{ popup: FakeBrowserWindow; id: string }> {
    const { popup } = await askingCall();
    return { popup, id: desktop.gateway.approvals.pending().at(-1)!.id };
  }
  const stillPending = (id: string) => desktop.gateway.approvals.get(id)?.status === 'pending';

  it('ignores the dashboard window and any contents that is not a popup', async () => {
    const { id } = await pendingPopup();
    click(menuItem('Open dashboard'));
    const dashboard = FakeBrowserWindow.all.find((w) => w.webContents.url.includes('/auth?code='))!;
    expect(await fake.invoke('popup:decide', dashboard.webContents, { decision: 'allow_once' })).toMatchObject({ ok: false });
    expect(await fake.invoke('popup:approval', dashboard.webContents)).toBeNull();
    const stranger = new FakeBrowserWindow({}).webContents;
    expect(await fake.invoke('popup:decide', stranger, { decision: 'allow_once' })).toMatchObject({ ok: false });
    expect(stillPending(id)).toBe(true);
    expect(logged.some((line) => line.includes('ignored an IPC message'))).toBe(true);
  });

  it('ignores a subframe, and a popup that navigated away from its page', async () => {
    const { popup, id } = await pendingPopup();
    const frame = { url: popup.webContents.url, parent: popup.webContents.mainFrame };
    expect(await fake.invokeFromFrame('popup:decide', popup.webContents, frame, { decision: 'allow_once' })).toMatchObject({ ok: false });
    for (const url of ['https://evil.example/popup/' + id, `${desktop.url}/popup/someone-else`, `${desktop.url}/`]) {
      expect(await fake.invokeFromFrame('popup:decide', popup.webContents, { url, parent: null }, { decision: 'allow_once' })).toMatchObject({ ok: false });
    }
    expect(await fake.invokeFromFrame('popup:decide', popup.webContents, null, { decision: 'allow_once' })).toMatchObject({ ok: false });
    expect(stillPending(id)).toBe(true);
  });

  it('refuses malformed answers and changes nothing', async () => {
    const { popup, id } = await pendingPopup();
    const malformed: unknown[][] = [
      [],
      [null],
      ['allow_once'],
      [[{ decision: 'allow_once' }]],
      [{ decision: 'allow_everything' }],
      [{ decision: 'allow_always', scope: 'galaxy' }],
      [{ decision: 'allow_once', scope: 'tool' }],
      [{ decision: 'allow_once', id: 'another' }],
      [{ decision: 'deny', message: 'x'.repeat(2001) }],
      [{ decision: 'allow_once' }, { decision: 'allow_once' }],
    ];
    for (const args of malformed) {
      const result = (await fake.invoke('popup:decide', popup.webContents, ...args)) as { ok: boolean; error: string };
      expect(result.ok, JSON.stringify(args)).toBe(false);
      expect(result.error.length).toBeGreaterThan(0);
      expect(stillPending(id)).toBe(true);
    }
    expect(await fake.invoke('popup:decide', popup.webContents, { decision: 'allow_once' })).toEqual({ ok: true, status: 'allowed' });
  });

  it('a popup can answer only its own approval', async () => {
    const first = await pendingPopup();
    const second = await pendingPopup();
    expect(first.id).not.toBe(second.id);
    expect(await fake.invoke('popup:decide', first.popup.webContents, { decision: 'deny' })).toEqual({ ok: true, status: 'denied' });
    expect(stillPending(second.id)).toBe(true);
    expect(((await fake.invoke('popup:approval', second.popup.webContents)) as { id: string }).id).toBe(second.id);
  });

  it('answering twice is refused with a reason', async () => {
    const { popup } = await pendingPopup();
    await fake.invoke('popup:decide', popup.webContents, { decision: 'deny' });
    // The window is gone after the answer; a late message from its contents is no popup's any more.
    expect(await fake.invoke('popup:decide', popup.webContents, { decision: 'allow_once' })).toMatchObject({ ok: false });
  });
});

describe('hardened windows', () => {
  async function everyWindow(): Promise<FakeBrowserWindow[]> {
    click(menuItem('Open dashboard'));
    await askingCall();
    return FakeBrowserWindow.all;
  }

  it('every window: context isolation, sandbox, no Node, web security, no webview', async () => {
    const windows = await everyWindow();
    expect(windows.length).toBe(2);
    for (const window of windows) {
      expect(window.options.webPreferences).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
      });
    }
    // Only popups get the preload (their IPC methods); the dashboard talks HTTP and needs none.
    expect(windows.filter((w) => w.options.webPreferences?.preload)).toHaveLength(1);
  });

  it('no page leaves the gateway’s origin or opens a window; https links go to the browser', async () => {
    for (const window of await everyWindow()) {
      const contents: FakeWebContents = window.webContents;
      expect(contents.tryNavigate(`${desktop.url}/`)).toBe(true);
      expect(contents.tryNavigate('https://evil.example/')).toBe(false);
      expect(contents.tryNavigate('file:///etc/passwd')).toBe(false);
      expect(contents.tryNavigate('http://127.0.0.1:1/')).toBe(false);
      const attach = fakeEvent();
      contents.emit('will-attach-webview', attach);
      expect(attach.defaultPrevented).toBe(true);
      expect(contents.openHandler!({ url: 'https://example.org/docs' })).toEqual({ action: 'deny' });
      expect(contents.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
      expect(contents.openHandler!({ url: `${desktop.url}/` })).toEqual({ action: 'deny' });
    }
    expect(fake.openedExternally.every((url) => url === 'https://example.org/docs')).toBe(true);
  });

  it('pages get no permissions but the clipboard write, and that only on the gateway’s origin', async () => {
    const origin = new URL(desktop.url).origin;
    for (const name of ['', POPUP_PARTITION]) {
      const session = fake.sessions.get(name)!;
      const ask = (permission: string, url: string) =>
        new Promise<boolean>((resolve) => session.requestHandler!({} as never, permission as never, resolve, { requestingUrl: url } as never));
      expect(await ask('media', `${origin}/`)).toBe(false);
      expect(await ask('notifications', `${origin}/`)).toBe(false);
      expect(await ask('clipboard-sanitized-write', `${origin}/`)).toBe(true);
      expect(await ask('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
      expect(session.checkHandler!(null, 'geolocation', origin, {} as never)).toBe(false);
    }
  });
});

describe('notifications and the clipboard for the tools', () => {
  it('the notify tool shows a native notification, as plain text', async () => {
    const response = await api('/tools/notify/execute', { json: { title: 'Build <b>done</b>', message: 'All <a href="https://x">green</a>\u001b[31m' } });
    expect(response.status).toBe(200);
    const shown = FakeNotification.all.find((n) => n.options.title?.includes('Build'))!;
    expect(shown.shown).toBe(true);
    // Titled with the client that sent it (here the default token's).
    expect(shown.options.title).toBe('default: Build b done /b');
    expect(shown.options.body).not.toMatch(/[<>\u001b]/);
  });

  it('the clipboard tool writes and reads the system clipboard (once the owner allows it)', async () => {
    const write = api('/tools/clipboard/execute', { json: { action: 'write', text: 'hello from a tool' } });
    await until(() => desktop.gateway.approvals.pending().length > 0 || fake.clipboardText, 'an ask or the write');
    for (const approval of desktop.gateway.approvals.pending()) desktop.gateway.approvals.decide(approval.id, { decision: 'allow_once' }, 'owner');
    expect((await write).status).toBe(200);
    expect(fake.clipboardText).toBe('hello from a tool');
  });
});
