import { createSubscriber } from 'svelte/reactivity';

/** The CSS variables (styles.css) the charts draw with; a canvas cannot read `var(--…)` itself. */
export interface Palette {
  text: string;
  muted: string;
  border: string;
  surface: string;
  accent: string;
  ok: string;
  fail: string;
  deny: string;
  font: string;
}

function read(): Palette {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: v('--text'),
    muted: v('--muted'),
    border: v('--border'),
    surface: v('--surface'),
    accent: v('--accent'),
    ok: v('--ok'),
    fail: v('--fail'),
    deny: v('--deny'),
    font: `12px ${style.fontFamily}`,
  };
}

/** `#rrggbb` with an alpha from 0 to 1; other colour syntaxes are returned as they are. */
export function withAlpha(colour: string, alpha: number): string {
  if (!/^#[0-9a-f]{6}$/i.test(colour)) return colour;
  return colour + Math.round(alpha * 255).toString(16).padStart(2, '0');
}

/**
 * The palette of the colour scheme in use. Reading `current` inside an effect re-runs it when the system
 * switches between light and dark, so charts redraw in the new colours.
 */
class ChartPalette {
  #subscribe = createSubscriber((update) => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  });

  get current(): Palette {
    this.#subscribe();
    return read();
  }
}

export const palette = new ChartPalette();
