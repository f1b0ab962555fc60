import { UsageError, type Out, type Parsed } from './common.js';

/** What the owner's commands share: the rule scopes, and checks of the options given. */

export const SCOPES = ['exact', 'tool', 'prefix', 'folder', 'host'] as const;

/** Refuses options that the chosen action does not take (they are parsed together so they may come anywhere). */
export function only(parsed: Parsed, allowed: string[], usage: string): void {
  const common = ['data-dir', 'host', 'port'];
  const extra = Object.keys(parsed.values).filter((k) => parsed.values[k] !== undefined && !common.includes(k) && !allowed.includes(k));
  if (extra.length > 0) throw new UsageError(`--${extra[0]} does not go here; usage: ${usage}`);
}

/** A string option's value; a flag or a repeated option is not one. */
export function str(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `--json`: the gateway's answer as it came, for scripts. */
export function printJson(json: unknown, out: Out): number {
  out.log(JSON.stringify(json, null, 2));
  return 0;
}
