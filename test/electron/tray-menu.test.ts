import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { trayIcon, trayMenu, trayTooltip, type TrayActions, type TrayState } from '../../electron/main/tray-menu.js';

const STATE: TrayState = {
  address: '127.0.0.1:7800',
  callsToday: 1234,
  paused: false,
  pending: 2,
  tools: [
    { name: 'run_shell', category: 'system', enabled: true, source: 'builtin' },
    { name: 'file_read', category: 'files', enabled: true, source: 'builtin' },
    { name: 'file_delete', category: 'files', enabled: false, source: 'builtin' },
    { name: 'quote', category: 'finance', enabled: true, source: 'plugin:investment' },
  ],
  clients: [
    { name: 'default', tools: null },
    { name: 'cursor', tools: ['file_read'] },
  ],
  startAtLogin: false,
};

function recorder() {
  const done: string[] = [];
  const actions: TrayActions = {
    openDashboard: () => done.push('dashboard'),
    showApprovals: () => done.push('approvals'),
    setToolEnabled: (name, enabled) => done.push(`tool ${name} ${enabled}`),
    setPaused: (paused) => done.push(`paused ${paused}`),
    setClientTools: (client, tools) => done.push(`client ${client} ${JSON.stringify(tools)}`),
    copyToken: () => done.push('token'),
    setStartAtLogin: (enabled) => done.push(`login ${enabled}`),
    quit: () => done.push('quit'),
  };
  return { done, actions };
}

const find = (items: MenuItemConstructorOptions[], label: string | RegExp) => {
  const item = items.find((i) => (typeof label === 'string' ? i.label === label : label.test(i.label ?? '')));
  if (!item) throw new Error(`no menu item ${label} in ${items.map((i) => i.label).join(', ')}`);
  return item;
};
const submenu = (item: MenuItemConstructorOptions) => item.submenu as MenuItemConstructorOptions[];
const click = (item: MenuItemConstructorOptions) => (item.click as () => void)();

describe('the tray menu, built from the gateway state', () => {
  it('opens with the status line: the address and the calls today', () => {
    const menu = trayMenu(STATE, recorder().actions);
    expect(menu[0]).toMatchObject({ label: 'Running on 127.0.0.1:7800', enabled: false });
    expect(menu[1]).toMatchObject({ label: '1,234 calls today', enabled: false });
  });

  it('says when it is paused, and ticks Pause all tools', () => {
    const menu = trayMenu({ ...STATE, paused: true }, recorder().actions);
    expect(menu[0]!.label).toBe('Paused — no tool runs (127.0.0.1:7800)');
    expect(find(menu, 'Pause all tools')).toMatchObject({ type: 'checkbox', checked: true });
  });

  it('counts the pending approvals, and opens them', () => {
    const { done, actions } = recorder();
    const item = find(trayMenu(STATE, actions), /^Approvals/);
    expect(item).toMatchObject({ label: 'Approvals (2 pending)', enabled: true });
    click(item);
    expect(done).toEqual(['approvals']);
    expect(find(trayMenu({ ...STATE, pending: 0 }, actions), /^Approvals/)).toMatchObject({ label: 'Approvals (none pending)', enabled: false });
  });

  it('groups the tools by category, alphabetically, with a checkbox each', () => {
    const tools = submenu(find(trayMenu(STATE, recorder().actions), 'Tools'));
    expect(tools.map((c) => c.label)).toEqual(['Files', 'Finance', 'System']);
    expect(submenu(tools[0]!).map((t) => [t.label, t.type, t.checked])).toEqual([
      ['file_delete', 'checkbox', false],
      ['file_read', 'checkbox', true],
    ]);
    expect(submenu(tools[1]!)[0]!.label).toBe('quote (plugin:investment)');
  });

  it('toggles a tool to the opposite of what it shows', () => {
    const { done, actions } = recorder();
    const files = submenu(find(submenu(find(trayMenu(STATE, actions), 'Tools')), 'Files'));
    click(files[0]!);
    click(files[1]!);
    expect(done).toEqual(['tool file_delete true', 'tool file_read false']);
  });

  it('shows each client profile: every tool, or a list narrowed tool by tool', () => {
    const { done, actions } = recorder();
    const clients = submenu(find(trayMenu(STATE, actions), 'Clients'));
    expect(clients.map((c) => c.label)).toEqual(['default', 'cursor']);
    const everyDefault = submenu(clients[0]!)[0]!;
    expect(everyDefault).toMatchObject({ label: 'Every enabled tool', checked: true });
    // Narrowing the default client by one tool keeps every other tool.
    const defaultSystem = submenu(find(submenu(clients[0]!), 'System'));
    click(defaultSystem[0]!);
    const cursorFiles = submenu(find(submenu(clients[1]!), 'Files'));
    expect(cursorFiles.map((t) => [t.label, t.checked])).toEqual([
      ['file_delete', false],
      ['file_read', true],
    ]);
    click(cursorFiles[0]!);
    click(submenu(clients[1]!)[0]!);
    expect(done).toEqual([
      'client default ["file_read","file_delete","quote"]',
      'client cursor ["file_read","file_delete"]',
      'client cursor null',
    ]);
  });

  it('offers start at login only where the system has it', () => {
    const { done, actions } = recorder();
    click(find(trayMenu(STATE, actions), 'Start at login'));
    expect(done).toEqual(['login true']);
    expect(trayMenu({ ...STATE, startAtLogin: null }, actions).some((i) => i.label === 'Start at login')).toBe(false);
  });

  it('copies the token, opens the dashboard and quits', () => {
    const { done, actions } = recorder();
    const menu = trayMenu(STATE, actions);
    click(find(menu, 'Copy client token'));
    click(find(menu, 'Open dashboard'));
    click(find(menu, 'Quit Pincer'));
    expect(done).toEqual(['token', 'dashboard', 'quit']);
  });

  it('picks the icon and tooltip from the state: pending outranks paused', () => {
    expect(trayIcon(STATE)).toBe('pending');
    expect(trayIcon({ ...STATE, pending: 0, paused: true })).toBe('paused');
    expect(trayIcon({ ...STATE, pending: 0 })).toBe('running');
    expect(trayTooltip(STATE)).toBe('Pincer on 127.0.0.1:7800 · 1,234 calls today · 2 waiting for you');
    expect(trayTooltip({ ...STATE, pending: 0, paused: true, callsToday: 1 })).toBe('Pincer on 127.0.0.1:7800 · paused');
  });
});
