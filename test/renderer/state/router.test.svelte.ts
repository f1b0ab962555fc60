import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Router, VIEWS } from '../../../renderer/src/state/router.svelte';
import { mount } from './dashboard.svelte';

/**
 * The page's address as a browser keeps it: setting `location.hash` to a new value fires `hashchange` on the window
 * later (a task), as Back and Forward do; `history.replaceState` changes the address without any event.
 */
class AddressBar {
  readonly window = new EventTarget();
  #hash = '';
  readonly entries: string[] = [];
  readonly location = {
    get hash(): string {
      return bar.#hash;
    },
    set hash(value: string) {
      bar.navigate(value.startsWith('#') ? value : `#${value}`);
    },
  };
  readonly history = {
    state: null,
    replaceState: (_state: unknown, _unused: string, url: string) => {
      this.#hash = url.slice(url.indexOf('#'));
      this.entries[this.entries.length - 1] = this.#hash;
    },
  };

  constructor(hash: string) {
    this.#hash = hash;
    this.entries.push(hash);
  }

  /** A new address (a link, the tray, typing it): a new entry, then `hashchange`. */
  navigate(hash: string): void {
    if (hash === this.#hash) return;
    this.#hash = hash;
    this.entries.push(hash);
    setTimeout(() => this.window.dispatchEvent(new Event('hashchange')));
  }
}

let bar: AddressBar;

function open(hash: string) {
  bar = new AddressBar(hash);
  vi.stubGlobal('window', bar.window);
  vi.stubGlobal('location', bar.location);
  vi.stubGlobal('history', bar.history);
  return mount(() => new Router());
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1)).then(() => flushSync());

beforeEach(() => {
  bar = new AddressBar('');
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Router', () => {
  it('lands on the view the address names, and on Live for no view or an unknown one', () => {
    for (const { id } of VIEWS) {
      const { state: router, unmount } = open(`#/${id}`);
      expect(router.current).toBe(id);
      unmount();
      router.dispose();
    }
    for (const hash of ['', '#', '#/', '#/nowhere', '#/Approvals']) {
      const { state: router, unmount } = open(hash);
      expect(router.current).toBe('live');
      expect(router.detail).toBe('');
      router.dispose();
      unmount();
    }
  });

  it("reads the view's detail after it, and takes an address without the slash or with a query", () => {
    const cases: [string, string, string][] = [
      ['#/sources/plugins', 'sources', 'plugins'],
      ['#sources/mcp', 'sources', 'mcp'],
      ['#/nowhere/plugins', 'live', ''],
    ];
    for (const [hash, view, detail] of cases) {
      const { state: router, unmount } = open(hash);
      expect([router.current, router.detail]).toEqual([view, detail]);
      router.dispose();
      unmount();
    }
    const query = open('#/tools?q=file');
    expect(query.state.current).toBe('tools');
    query.state.dispose();
    query.unmount();
  });

  it('sends the old addresses of merged views to where they went, in place of the old entry', () => {
    const { state: router, unmount } = open('#/plugins');
    expect([router.current, router.detail]).toEqual(['sources', 'plugins']);
    expect(bar.location.hash).toBe('#/sources/plugins');
    expect(bar.entries).toEqual(['#/sources/plugins']);
    router.dispose();
    unmount();
    const mcp = open('#/mcp');
    expect([mcp.state.current, mcp.state.detail]).toEqual(['sources', 'mcp']);
    mcp.state.dispose();
    mcp.unmount();
  });

  it('go() shows the view at once and puts it in the address, once', async () => {
    const { state: router, unmount } = open('#/live');
    router.go('approvals');
    expect(router.current).toBe('approvals');
    expect(bar.location.hash).toBe('#/approvals');
    router.go('sources', 'mcp');
    expect([router.current, router.detail]).toEqual(['sources', 'mcp']);
    expect(bar.location.hash).toBe('#/sources/mcp');
    router.go('sources', 'mcp');
    await tick();
    expect(bar.entries).toEqual(['#/live', '#/approvals', '#/sources/mcp']);
    expect([router.current, router.detail]).toEqual(['sources', 'mcp']);
    router.dispose();
    unmount();
  });

  it('follows the address when it changes elsewhere (Back, a tray link), until disposed', async () => {
    const seen: string[] = [];
    bar = new AddressBar('#/live');
    vi.stubGlobal('window', bar.window);
    vi.stubGlobal('location', bar.location);
    vi.stubGlobal('history', bar.history);
    const { state: router, unmount } = mount(
      () => new Router(),
      (router) => void seen.push(router.current),
    );
    bar.navigate('#/rules');
    await tick();
    expect(router.current).toBe('rules');
    expect(seen).toEqual(['live', 'rules']);
    router.dispose();
    bar.navigate('#/memory');
    await tick();
    expect(router.current).toBe('rules');
    unmount();
  });
});
