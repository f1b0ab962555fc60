import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallClock } from '../../../server/executor/call-clock.js';

describe("a call's clock", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires after its limit', () => {
    const expire = vi.fn();
    new CallClock(1_000, expire);
    vi.advanceTimersByTime(999);
    expect(expire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expire).toHaveBeenCalledTimes(1);
  });

  it('stands still while paused and keeps the time left', () => {
    const expire = vi.fn();
    const clock = new CallClock(1_000, expire);
    vi.advanceTimersByTime(600);
    const resume = clock.pause();
    vi.advanceTimersByTime(10_000);
    expect(expire).not.toHaveBeenCalled();
    resume();
    vi.advanceTimersByTime(399);
    expect(expire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expire).toHaveBeenCalledTimes(1);
  });

  it('runs again only when every overlapping pause has ended, and a resume counts once', () => {
    const expire = vi.fn();
    const clock = new CallClock(1_000, expire);
    const first = clock.pause();
    const second = clock.pause();
    first();
    first();
    vi.advanceTimersByTime(5_000);
    expect(expire).not.toHaveBeenCalled();
    second();
    vi.advanceTimersByTime(1_000);
    expect(expire).toHaveBeenCalledTimes(1);
  });

  it('never fires once stopped, even when a pause ends after the stop', () => {
    const expire = vi.fn();
    const clock = new CallClock(1_000, expire);
    const resume = clock.pause();
    clock.stop();
    resume();
    clock.pause()();
    vi.advanceTimersByTime(5_000);
    expect(expire).not.toHaveBeenCalled();
  });
});
