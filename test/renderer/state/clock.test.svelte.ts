import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Clock } from '../../../renderer/src/state/clock.svelte';
import { mount } from './dashboard.svelte';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-12-01T10:00:00.000Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Clock', () => {
  it('updates a reader every interval, and runs onTick with each tick', () => {
    let ticks = 0;
    const seen: number[] = [];
    const { unmount } = mount(
      () => new Clock(1000, () => ticks++),
      (clock) => void seen.push(clock.now),
    );
    expect(seen).toEqual([Date.parse('2026-12-01T10:00:00.000Z')]);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(1000);
      flushSync();
    }
    expect(ticks).toBe(3);
    expect(seen.map((t) => t - seen[0]!)).toEqual([0, 1000, 2000, 3000]);
    unmount();
  });

  it('runs no timer while nothing reads it, and stops when its last reader goes', () => {
    let ticks = 0;
    const { state: clock, unmount } = mount(() => new Clock(1000, () => ticks++));
    // Read outside any effect (an event handler): the time, but no timer.
    expect(clock.now).toBe(Date.now());
    vi.advanceTimersByTime(5000);
    expect(ticks).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    unmount();

    const shown = mount(
      () => new Clock(1000, () => ticks++),
      (clock) => void clock.now,
    );
    vi.advanceTimersByTime(2000);
    expect(ticks).toBe(2);
    shown.unmount();
    flushSync();
    vi.advanceTimersByTime(5000);
    expect(ticks).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });
});
