import type { MenuItemConstructorOptions } from 'electron';

/** What the tray shows, read from the gateway each time the menu is rebuilt. */
export interface TrayState {
  address: string;
  callsToday: number;
  paused: boolean;
  pending: number;
  tools: { name: string; category: string; enabled: boolean; source: string }[];
  /** Clients and the tools each may use (null: every enabled tool). */
  clients: { name: string; tools: string[] | null }[];
  /** null where this system has no login items the app can set. */
  startAtLogin: boolean | null;
}

/** What the menu's items do; each takes effect in the gateway at once (lists, MCP, the dashboard follow). */
export interface TrayActions {
  openDashboard(): void;
  showApprovals(): void;
  setToolEnabled(name: string, enabled: boolean): void;
  setPaused(paused: boolean): void;
  setClientTools(client: string, tools: string[] | null): void;
  copyToken(): void;
  setStartAtLogin(enabled: boolean): void;
  quit(): void;
}

export type TrayIcon = 'running' | 'paused' | 'pending';

/** Pending approvals outrank the pause: they need the owner even while paused (calls asked before the pause). */
export function trayIcon(state: TrayState): TrayIcon {
  if (state.pending > 0) return 'pending';
  return state.paused ? 'paused' : 'running';
}

export function trayTooltip(state: TrayState): string {
  const parts = [`Pincer on ${state.address}`, state.paused ? 'paused' : `${plural(state.callsToday, 'call')} today`];
  if (state.pending > 0) parts.push(`${state.pending} waiting for you`);
  return parts.join(' · ');
}

export function trayMenu(state: TrayState, actions: TrayActions): MenuItemConstructorOptions[] {
  const allNames = state.tools.map((t) => t.name);
  return [
    { label: state.paused ? `Paused — no tool runs (${state.address})` : `Running on ${state.address}`, enabled: false },
    { label: `${plural(state.callsToday, 'call')} today`, enabled: false },
    { type: 'separator' },
    { label: 'Open dashboard', click: () => actions.openDashboard() },
    {
      label: state.pending > 0 ? `Approvals (${state.pending} pending)` : 'Approvals (none pending)',
      enabled: state.pending > 0,
      click: () => actions.showApprovals(),
    },
    { type: 'separator' },
    {
      label: 'Tools',
      submenu: byCategory(state.tools, (tool) => ({
        label: toolLabel(tool),
        type: 'checkbox',
        checked: tool.enabled,
        click: () => actions.setToolEnabled(tool.name, !tool.enabled),
      })),
    },
    {
      label: 'Clients',
      submenu: state.clients.map((client) => ({
        label: client.name,
        submenu: [
          {
            label: 'Every enabled tool',
            type: 'checkbox',
            checked: client.tools === null,
            // Unticked, the client keeps the same tools, now as a list the owner can narrow tool by tool.
            click: () => actions.setClientTools(client.name, client.tools === null ? allNames : null),
          },
          { type: 'separator' },
          ...byCategory(state.tools, (tool) => {
            const allowed = client.tools === null || client.tools.includes(tool.name);
            const base = client.tools ?? allNames;
            return {
              label: toolLabel(tool),
              type: 'checkbox',
              checked: allowed,
              click: () => actions.setClientTools(client.name, allowed ? base.filter((n) => n !== tool.name) : [...base, tool.name]),
            };
          }),
        ],
      })),
    },
    { label: 'Pause all tools', type: 'checkbox', checked: state.paused, click: () => actions.setPaused(!state.paused) },
    { type: 'separator' },
    { label: 'Copy client token', click: () => actions.copyToken() },
    ...(state.startAtLogin === null
      ? []
      : [{ label: 'Start at login', type: 'checkbox', checked: state.startAtLogin, click: () => actions.setStartAtLogin(!state.startAtLogin) } as const]),
    { type: 'separator' },
    { label: 'Quit Pincer', click: () => actions.quit() },
  ];
}

/** One submenu per category (alphabetical), tools by name within it. */
function byCategory<T extends { name: string; category: string }>(tools: T[], item: (tool: T) => MenuItemConstructorOptions): MenuItemConstructorOptions[] {
  const groups = new Map<string, T[]>();
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    groups.set(tool.category, [...(groups.get(tool.category) ?? []), tool]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, members]) => ({ label: category.charAt(0).toUpperCase() + category.slice(1), submenu: members.map(item) }));
}

function toolLabel(tool: { name: string; source: string }): string {
  return tool.source === 'builtin' ? tool.name : `${tool.name} (${tool.source})`;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}
