export const VIEWS = [
  { id: 'live', label: 'Live', key: '1' },
  { id: 'approvals', label: 'Approvals', key: '2' },
  { id: 'stats', label: 'Stats', key: '3' },
  { id: 'tools', label: 'Tools', key: '4' },
  { id: 'rules', label: 'Rules', key: '5' },
  { id: 'memory', label: 'Memory', key: '6' },
  { id: 'settings', label: 'Settings', key: '7' },
  { id: 'plugins', label: 'Plugins', key: '8' },
  { id: 'chat', label: 'Chat', key: '9' },
  { id: 'mcp', label: 'MCP servers', key: '0' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

const isView = (id: string): id is ViewId => VIEWS.some((v) => v.id === id);

/**
 * Which view is shown, kept in the URL's hash (`#/approvals`) so reloads, bookmarks and the tray's links land on
 * the right view. Hash routes never collide with the gateway's own paths (`/tools`, `/rules` are API routes).
 */
export class Router {
  current = $state<ViewId>('live');
  #onHashChange = () => this.#read();

  constructor() {
    this.#read();
    window.addEventListener('hashchange', this.#onHashChange);
  }

  /** Stops following the URL (on logout, when the shell and its router go away). */
  dispose(): void {
    window.removeEventListener('hashchange', this.#onHashChange);
  }

  go(view: ViewId): void {
    if (location.hash !== `#/${view}`) location.hash = `#/${view}`;
    this.current = view;
  }

  #read(): void {
    const id = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
    this.current = isView(id) ? id : 'live';
  }
}
