import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { LiveOutput, MAX_LIVE_OUTPUT } from '../../../renderer/src/state/live-output.svelte';
import { mount } from './dashboard.svelte';

describe('LiveOutput', () => {
  it('shows what was appended only once published, so a chatty command costs one render per batch', () => {
    const seen: (string | undefined)[] = [];
    const { state: output, unmount } = mount(
      () => new LiveOutput(),
      (output) => void seen.push(output.get('c_1')?.text),
    );
    output.append('c_1', 'compiling ');
    output.append('c_1', 'done\n');
    flushSync();
    expect(seen).toEqual([undefined]);
    output.publish();
    flushSync();
    expect(seen).toEqual([undefined, 'compiling done\n']);
    // Nothing changed since: publishing again renders nothing.
    output.publish();
    flushSync();
    expect(seen).toHaveLength(2);
    unmount();
  });

  it('keeps the last MAX_LIVE_OUTPUT characters of a stream and counts the ones dropped before them', () => {
    const { state: output, unmount } = mount(() => new LiveOutput());
    output.append('c_1', 'a'.repeat(MAX_LIVE_OUTPUT - 2));
    output.append('c_1', 'bbbb');
    expect(output.get('c_1')!.dropped).toBe(2);
    expect(output.get('c_1')!.text).toHaveLength(MAX_LIVE_OUTPUT);
    expect(output.get('c_1')!.text.endsWith('aabbbb')).toBe(true);
    output.append('c_1', 'c'.repeat(MAX_LIVE_OUTPUT));
    expect(output.get('c_1')).toEqual({ text: 'c'.repeat(MAX_LIVE_OUTPUT), dropped: MAX_LIVE_OUTPUT + 2 });
    unmount();
  });

  it('forgets a call once it ended, and re-renders for it', () => {
    const seen: (string | undefined)[] = [];
    const { state: output, unmount } = mount(
      () => new LiveOutput(),
      (output) => void seen.push(output.get('c_1')?.text),
    );
    output.append('c_1', 'x');
    output.publish();
    flushSync();
    output.end('c_1');
    output.end('c_unknown');
    output.publish();
    flushSync();
    expect(seen).toEqual([undefined, 'x', undefined]);
    unmount();
  });

  it('keeps at most 20 streams whose end was never heard of, dropping the one written to longest ago', () => {
    const { state: output, unmount } = mount(() => new LiveOutput());
    for (let i = 1; i <= 20; i++) output.append(`c_${i}`, `${i}`);
    output.append('c_1', ' again'); // c_1 is now the most recently written; c_2 the stalest
    output.append('c_21', '21');
    expect(output.get('c_2')).toBeUndefined();
    expect(output.get('c_1')?.text).toBe('1 again');
    expect(output.get('c_3')?.text).toBe('3');
    expect(output.get('c_21')?.text).toBe('21');
    unmount();
  });
});
