export const VIEWS = [
  { id: 'live', label: 'Live', key: '1' },
  { id: 'approvals', label: 'Approvals', key: '2' },
  { id: 'stats', label: 'Stats', key: '3' },
  { id: 'tools', label: 'Tools', key: '4' },
  { id: 'rules', label: 'Rules', key: '5' },
  { id: 'memory', label: 'Memory', key: '6' },
  { id: 'settings', label: 'Settings', key: '7' },
  { id: 'sources', label: 'Sources', key: '8' },
  { id: 'chat', label: 'Chat', key: '9' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

const isView = (id: string): id is ViewId => VIEWS.some((v) => v.id === id);

/** Addresses of views that were merged into another, still in bookmarks and links: each lands where it went. */
const MOVED: Record<string, string> = { plugins: 'sources/plugins', mcp: 'sources/mcp' };

/**
 * Which view is shown, kept in the URL's hash (`#/approvals`) so reloads, bookmarks and the tray's links land on
 * the right view. Hash routes never collide with the gateway's own paths (`/tools`, `/rules` are API routes).
 */
export class Router {
  current = $state<ViewId>('live');
  /** What follows the view in the address (`plugins` in `#/sources/plugins`): a view's own choice, such as a filter. */
  detail = $state('');
  #onHashChange = () => this.#read();

  constructor() {
    this.#read();
    window.addEventListener('hashchange', this.#onHashChange);
  }

  /** Stops following the URL (on logout, when the shell and its router go away). */
  dispose(): void {
    window.removeEventListener('hashchange', this.#onHashChange);
  }

  go(view: ViewId, detail = ''): void {
    const hash = detail ? `#/${view}/${detail}` : `#/${view}`;
    if (location.hash !== hash) location.hash = hash;
    this.current = view;
    this.detail = detail;
  }

  #read(): void {
    let path = location.hash.replace(/^#\/?/, '');
    const [first = ''] = path.split(/[/?]/);
    const moved = MOVED[first];
    if (moved) {
      // Replaced, not pushed: Back leaves the view rather than landing on the old address again.
      path = moved + path.slice(first.length);
      history.replaceState(history.state, '', `#/${path}`);
    }
    const [id = '', detail = ''] = path.split(/[/?]/);
    this.current = isView(id) ? id : 'live';
    this.detail = isView(id) ? detail : '';
  }
}
