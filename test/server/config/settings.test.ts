import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type PincerConfig } from '../../../server/config/config.js';
import { GatewaySettings, type SettingsChange } from '../../../server/config/settings.js';
import { GatewayError } from '../../../server/errors.js';
import { EventBus } from '../../../server/events/bus.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * The settings on their own, with a real data folder and config.json: one typed change reaches every part that
 * applies settings, after config.json is saved, and a refused PATCH reaches none of them.
 */

let root: string;
let config: PincerConfig;
let settings: GatewaySettings;
let changes: SettingsChange[];
let paused: boolean;

beforeEach(() => {
  root = tempDir('pincer-settings-');
  const dataDir = join(root, 'data');
  mkdirSync(join(root, 'shared'));
  config = loadConfig({ flags: { dataDir }, env: {}, cwd: root, home: root });
  mkdirSync(dataDir, { recursive: true });
  settings = new GatewaySettings(config, { address: () => 'http://127.0.0.1:1', sandbox: () => ({ kind: 'none', detail: '' }), clientNames: () => ['ollama-app'] });
  changes = [];
  paused = false;
  settings.own('paused', { read: () => paused });
  settings.onChange((change) => {
    // What a listener reads of the config is already the new value, and config.json already holds it.
    if (change.patch.approval_timeout_s !== undefined) {
      expect(config.approvalTimeoutS).toBe(change.patch.approval_timeout_s);
      expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).approval_timeout_s).toBe(change.patch.approval_timeout_s);
    }
    if (change.patch.paused !== undefined) paused = change.patch.paused;
    changes.push(change);
  });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('GatewaySettings', () => {
  it('announces one change naming every key the PATCH changed, with the parsed values', () => {
    const { view, changed } = settings.update({ approval_timeout_s: 90, paused: true, llm: { model: 'llama3.1' } });
    expect(changed.sort()).toEqual(['approval_timeout_s', 'llm', 'paused']);
    expect(changes).toHaveLength(1);
    expect([...changes[0]!.changed].sort()).toEqual(['approval_timeout_s', 'llm', 'paused']);
    expect(changes[0]!.patch).toMatchObject({ approval_timeout_s: 90, paused: true, llm: { model: 'llama3.1' } });
    // The view is taken after the owners applied the change: the pause switch they hold reads as set.
    expect(view).toMatchObject({ paused: true, approval_timeout_s: 90, llm: { model: 'llama3.1' } });
  });

  it('a refused PATCH reaches no listener and leaves config.json as it was', () => {
    writeFileSync(join(config.dataDir, 'config.json'), '{"approval_timeout_s": 60}\n');
    expect(() => settings.update({ approval_timeout_s: 90, roots: 'not-a-list' })).toThrow(GatewayError);
    expect(changes).toEqual([]);
    expect(readFileSync(join(config.dataDir, 'config.json'), 'utf8')).toBe('{"approval_timeout_s": 60}\n');
    expect(config.approvalTimeoutS).not.toBe(90);
  });

  it("asks the roots' owner to check new roots, and hands the listeners what it answered", () => {
    const shared = join(root, 'shared');
    settings.own('roots', { check: (list) => ({ checkedBy: 'owner', list }) });
    settings.update({ roots: [shared] });
    expect(changes[0]!.patch.roots).toEqual({ list: [shared], checked: { checkedBy: 'owner', list: [shared] } });
  });

  it("a roots owner's refusal is the PATCH's 400, naming the key", () => {
    settings.own('roots', {
      check: () => {
        throw new Error('is not a folder.');
      },
    });
    let refusal: unknown;
    try {
      settings.update({ roots: [join(root, 'shared')] });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).status).toBe(400);
    expect((refusal as GatewayError).message).toBe('Invalid settings: roots: is not a folder. Nothing was changed.');
    expect(changes).toEqual([]);
  });

  it('announces each change on the bus once, whoever made it: the pause switch as paused/resumed, the rest as settings', () => {
    const events = new EventBus();
    const heard: { reason: string; names: string[] }[] = [];
    events.on('tools', (change) => heard.push(change));
    const announcing = new GatewaySettings(config, { address: () => '', sandbox: () => ({ kind: 'none', detail: '' }), clientNames: () => [] }, events);
    announcing.update({ paused: true });
    announcing.update({ approval_timeout_s: 45 });
    announcing.update({ paused: false, mcp_sampling: true });
    expect(heard.map((e) => e.reason)).toEqual(['paused', 'settings', 'resumed', 'settings']);
    expect(() => announcing.update({ approval_timeout_s: -1 })).toThrow(GatewayError);
    expect(heard).toHaveLength(4);
  });

  it('a listener removed with the function onChange answered hears nothing more', () => {
    const heard: SettingsChange[] = [];
    const stop = settings.onChange((change) => heard.push(change));
    settings.update({ mcp_sampling: true });
    stop();
    settings.update({ mcp_sampling: false });
    expect(heard.map((c) => c.patch.mcp_sampling)).toEqual([true]);
    expect(changes.map((c) => c.patch.mcp_sampling)).toEqual([true, false]);
  });
});
