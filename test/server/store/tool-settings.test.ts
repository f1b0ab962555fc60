import { describe, expect, it } from 'vitest';
import { openStore } from '../../../server/store/index.js';
import { file, newStore, T0, useTempStore } from './temp-store.js';

useTempStore();

describe('tool settings', () => {
  it('remembers disabled tools, and re-enabling removes them', () => {
    const store = newStore();
    store.toolSettings.setEnabled('a', false, T0);
    store.toolSettings.setEnabled('b', false, T0);
    store.toolSettings.setEnabled('b', true, T0 + 1);
    store.toolSettings.setEnabled('c', true, T0);
    expect(store.toolSettings.disabledTools()).toEqual(['a']);
  });

  it('persists across a restart', () => {
    const first = openStore(file);
    first.toolSettings.setEnabled('run_shell', false, T0);
    first.close();
    expect(newStore().toolSettings.disabledTools()).toEqual(['run_shell']);
  });
});
