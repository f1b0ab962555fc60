import { describe, expect, it } from 'vitest';
import type { DesktopBridge } from '../../../../server/desktop.js';
import { EventBus } from '../../../../server/events/bus.js';
import { createClipboardTool, systemClipboard } from '../../../../server/tools/builtin/clipboard.js';
import { createNotifyTool, NOTIFICATIONS_PER_MINUTE } from '../../../../server/tools/builtin/notify.js';

const ctx = { signal: new AbortController().signal, callId: 'c_test', client: 'tester' };

function fakeDesktop(overrides: Partial<DesktopBridge> = {}): DesktopBridge & { shown: unknown[]; clipboard: string } {
  const desktop: DesktopBridge & { shown: unknown[]; clipboard: string } = {
    shown: [],
    clipboard: 'copied earlier',
    async notify(n) {
      desktop.shown.push(n);
      return true;
    },
    async readClipboard() {
      return desktop.clipboard;
    },
    async writeClipboard(text) {
      desktop.clipboard = text;
    },
    ...overrides,
  };
  return desktop;
}

describe('notify', () => {
  it('headless: emits the notification event and answers delivered:false with the reason', async () => {
    const events = new EventBus();
    const seen: unknown[] = [];
    events.on('notify', (n) => seen.push(n));
    const tool = createNotifyTool({ events, desktop: undefined });
    const result = await tool.handler({ title: 'Build done', message: 'All green', urgency: 'normal' }, ctx);
    expect(result).toEqual({ delivered: false, reason: expect.stringMatching(/headless/) });
    expect(seen).toEqual([{ call_id: 'c_test', client: 'tester', title: 'Build done', message: 'All green', urgency: 'normal' }]);
  });

  it('with a desktop: shows it natively, titled with the client that sent it, and answers delivered:true', async () => {
    const desktop = fakeDesktop();
    const tool = createNotifyTool({ events: new EventBus(), desktop });
    expect(await tool.handler({ title: 't', message: 'm', urgency: 'critical' }, ctx)).toEqual({ delivered: true });
    expect(desktop.shown).toEqual([{ title: 'tester: t', message: 'm', urgency: 'critical' }]);
    // A title dressed as Pincer's own approval notification still says who sent it.
    await tool.handler({ title: 'Pincer: cursor asks to run run_shell', message: 'm', urgency: 'normal' }, ctx);
    expect(desktop.shown.at(-1)).toMatchObject({ title: 'tester: Pincer: cursor asks to run run_shell' });
  });

  it('shows a client at most NOTIFICATIONS_PER_MINUTE a minute, says when it may send the next, and counts each client apart', async () => {
    let now = Date.UTC(2026, 11, 3, 10, 0, 0);
    const desktop = fakeDesktop();
    const events = new EventBus();
    const logged: unknown[] = [];
    events.on('notify', (n) => logged.push(n));
    const tool = createNotifyTool({ events, desktop, now: () => now });
    const send = (client: string) => tool.handler({ title: 't', message: 'm', urgency: 'normal' }, { ...ctx, client });
    for (let i = 0; i < NOTIFICATIONS_PER_MINUTE; i++) {
      expect(await send('spammer')).toEqual({ delivered: true });
      now += 5_000;
    }
    // 30 s after the first: the next is refused, shown nowhere (not even in the log), and told when it may go.
    await expect(send('spammer')).rejects.toMatchObject({
      errorName: 'NOTIFY_RATE_LIMITED',
      message: expect.stringContaining('send the next in 30 s'),
      details: { limit_per_minute: NOTIFICATIONS_PER_MINUTE, retry_after_s: 30 },
    });
    expect(desktop.shown).toHaveLength(NOTIFICATIONS_PER_MINUTE);
    expect(logged).toHaveLength(NOTIFICATIONS_PER_MINUTE);
    // Another client is not held back by it.
    expect(await send('builder')).toEqual({ delivered: true });
    // A minute after the first, one more may go; then the limit holds again.
    now = Date.UTC(2026, 11, 3, 10, 1, 0) + 1;
    expect(await send('spammer')).toEqual({ delivered: true });
    await expect(send('spammer')).rejects.toMatchObject({ errorName: 'NOTIFY_RATE_LIMITED' });
  });

  it('says so when the desktop refuses', async () => {
    const tool = createNotifyTool({ events: new EventBus(), desktop: fakeDesktop({ notify: async () => false }) });
    expect(await tool.handler({ title: 't', message: 'm', urgency: 'low' }, ctx)).toMatchObject({ delivered: false });
  });
});

describe('clipboard', () => {
  it('reads and writes through the desktop when there is one', async () => {
    const desktop = fakeDesktop();
    const tool = createClipboardTool({ desktop });
    expect(await tool.handler({ action: 'read' }, ctx)).toEqual({ text: 'copied earlier' });
    expect(await tool.handler({ action: 'write', text: 'git push' }, ctx)).toEqual({ written: 8 });
    expect(desktop.clipboard).toBe('git push');
  });

  it('without a desktop or a display answers CLIPBOARD_UNAVAILABLE with a clear message', async () => {
    const tool = createClipboardTool({ desktop: undefined, env: {} });
    await expect(tool.handler({ action: 'write', text: 'x' }, ctx)).rejects.toMatchObject({
      errorName: 'CLIPBOARD_UNAVAILABLE',
      message: expect.stringMatching(/no display/),
    });
  });

  it('a write without text is a clear error', async () => {
    const tool = createClipboardTool({ desktop: fakeDesktop() });
    await expect(tool.handler({ action: 'write' }, ctx)).rejects.toMatchObject({ errorName: 'INVALID_ARGUMENTS' });
  });

  it('picks the system clipboard program for the session: macOS, Wayland, X11, none', () => {
    expect(systemClipboard({}, 'darwin')?.write[0]).toBe('pbcopy');
    expect(systemClipboard({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')?.write[0]).toBe('wl-copy');
    expect(systemClipboard({ DISPLAY: ':0' }, 'linux')?.read).toEqual(['xclip', ['-selection', 'clipboard', '-o']]);
    expect(systemClipboard({}, 'linux')).toBeUndefined();
  });

  it('a missing clipboard program is CLIPBOARD_UNAVAILABLE naming it', async () => {
    const tool = createClipboardTool({ desktop: undefined, env: { WAYLAND_DISPLAY: 'wayland-test', PATH: '/nonexistent' } });
    await expect(tool.handler({ action: 'write', text: 'x' }, ctx)).rejects.toMatchObject({
      errorName: 'CLIPBOARD_UNAVAILABLE',
      message: expect.stringMatching(/wl-copy/),
    });
  });
});
