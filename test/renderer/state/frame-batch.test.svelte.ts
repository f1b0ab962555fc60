import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FrameBatch } from '../../../renderer/src/state/frame-batch';

// Frames and timers as the browser runs them: an animation frame every 16 ms while the page is shown, none at all
// in a background tab. Fake time, so "at most one render per gap" is counted, not raced.
let framesRun = true;
let frames: Map<number, FrameRequestCallback>;
let nextFrame = 0;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
  frames = new Map();
  framesRun = true;
  vi.stubGlobal('requestAnimationFrame', (run: FrameRequestCallback) => {
    frames.set(++nextFrame, run);
    return nextFrame;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id));
  const tick = () => {
    if (framesRun) {
      const due = [...frames.values()];
      frames.clear();
      for (const run of due) run(performance.now());
    }
    setTimeout(tick, 16);
  };
  setTimeout(tick, 16);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('FrameBatch', () => {
  it('flushes once on the next frame for any number of schedules', async () => {
    let flushes = 0;
    const batch = new FrameBatch(() => flushes++, 120);
    for (let i = 0; i < 50; i++) batch.schedule();
    expect(flushes).toBe(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(flushes).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(flushes).toBe(1);
  });

  it('leaves at least minGapMs between two flushes however often it is asked', async () => {
    const at: number[] = [];
    const batch = new FrameBatch(() => at.push(performance.now()), 120);
    for (let t = 0; t < 1_000; t += 5) {
      batch.schedule();
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(at.length).toBeGreaterThan(4);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(120);
  });

  it('flushes on a timer in a background tab, which gets no animation frames', async () => {
    framesRun = false;
    let flushes = 0;
    const batch = new FrameBatch(() => flushes++, 120);
    batch.schedule();
    await vi.advanceTimersByTimeAsync(200);
    expect(flushes).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(flushes).toBe(1);
    // The frame that finally comes finds nothing left to do.
    framesRun = true;
    await vi.advanceTimersByTimeAsync(50);
    expect(flushes).toBe(1);
  });

  it('drops a scheduled flush when cancelled, and schedules again afterwards', async () => {
    let flushes = 0;
    const batch = new FrameBatch(() => flushes++, 120);
    batch.schedule();
    batch.cancel();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(flushes).toBe(0);
    batch.schedule();
    await vi.advanceTimersByTimeAsync(20);
    expect(flushes).toBe(1);
  });
});
