/**
 * Polls `probe` until it answers something truthy and returns that: a generous ceiling against a hang, never a
 * timing assertion. `what` names what was awaited in the failure.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  what = 'the condition',
  limitMs = 10_000,
  everyMs = 10,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
