/** Deterministic pseudo-random numbers (mulberry32) for generated test cases, so a failure replays. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of a list, chosen with `next`. */
export const pick = <T>(next: () => number, list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
