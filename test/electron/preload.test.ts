import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { desktopEntry } from '../../electron/main/autostart.js';
import { plainText } from '../../electron/main/plain-text.js';
import * as electron from './fake-electron.js';

const { fake } = electron;

/**
 * Runs the built preload as a sandboxed renderer would: CommonJS in its own context, where `require` gives
 * `electron` and nothing else (a relative or Node import would throw there, so it throws here too).
 */
function runPreload(): void {
  const file = new URL('../../dist/electron/preload/preload.cjs', import.meta.url);
  const module = { exports: {} };
  const require = (name: string) => {
    if (name === 'electron') return electron;
    throw new Error(`a sandboxed preload cannot require "${name}"`);
  };
  runInNewContext(readFileSync(file, 'utf8'), { require, module, exports: module.exports });
}

describe('the popup preload', () => {
  it('runs sandboxed, and exposes exactly three named methods as window.pincer, each on its own channel', async () => {
    fake.reset();
    runPreload();
    const api = fake.exposed.get('pincer') as Record<string, (...args: unknown[]) => unknown>;
    expect([...fake.exposed.keys()]).toEqual(['pincer']);
    expect(Object.keys(api).sort()).toEqual(['approval', 'close', 'decide']);
    await api.approval!();
    await api.decide!({ decision: 'deny', message: 'no' });
    api.close!();
    expect(fake.rendererCalls).toEqual([
      { kind: 'invoke', channel: 'popup:approval', args: [] },
      { kind: 'invoke', channel: 'popup:decide', args: [{ decision: 'deny', message: 'no' }] },
      { kind: 'send', channel: 'popup:close', args: [] },
    ]);
  });
});

describe('notification text', () => {
  it('drops markup and control codes, and cuts long text', () => {
    expect(plainText('<img src=x onerror=alert(1)> & \u001b[31mred\u0007', 100)).toBe('img src=x onerror=alert(1) red');
    expect(plainText('a'.repeat(50), 10)).toBe(`${'a'.repeat(9)}…`);
    // Characters that reorder or hide text: "attacker-account-6660" must not read as something else.
    expect(plainText('to: \u202E0666-tnuocca\u202C \u2066x\u2069 zero\u200Bwidth\uFEFF', 100)).toBe('to: 0666-tnuocca x zerowidth');
  });
});

describe('the XDG autostart entry', () => {
  it('quotes the Exec arguments in both layers the spec asks for', () => {
    const entry = desktopEntry(['/opt/My Apps/pincer', '/home/u/100% "real" $HOME `x` \\dir']);
    expect(entry).toContain('Exec="/opt/My Apps/pincer" "/home/u/100%% \\\\"real\\\\" \\\\$HOME \\\\`x\\\\` \\\\\\\\dir"\n');
    expect(entry.startsWith('[Desktop Entry]\nType=Application\nName=Pincer\n')).toBe(true);
  });
});
