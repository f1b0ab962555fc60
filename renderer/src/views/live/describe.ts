import type { LiveCall } from '../../lib/types';

export type DecisionTone = 'allow' | 'ask' | 'deny' | 'none';

export interface DecisionLook {
  /** Short, for the row: "allow · risk:safe", "ask → owner", "deny · rule r_…". */
  text: string;
  tone: DecisionTone;
  /** Long, for the tooltip and the details: decision, rule and the policy's reason. */
  title: string;
}

/** "rule:r_12" reads as "rule r_12"; other rule ids (risk:safe, shell:read-only, approval:a_…) as they are. */
function ruleLabel(rule: string | null): string {
  if (!rule) return '';
  return rule.startsWith('rule:') ? `rule ${rule.slice(5)}` : rule;
}

/** What the decision label reads of a call: a live row and a whole record both have it. */
export type DecisionFacts = Pick<LiveCall, 'status' | 'error' | 'decision' | 'rule' | 'reason'>;

/** How the policy (and the owner, for asked calls) decided a call. */
export function describeDecision(call: DecisionFacts): DecisionLook {
  const rule = call.rule ?? '';
  const title = [call.decision, call.rule, call.reason].filter(Boolean).join(' · ');
  switch (call.decision) {
    case 'allow':
      return { text: `allow · ${ruleLabel(rule)}`, tone: 'allow', title };
    case 'deny':
      return { text: `deny · ${ruleLabel(rule)}`, tone: 'deny', title };
    case 'ask': {
      if (call.status === 'pending') return { text: 'ask → owner', tone: 'ask', title: `Waiting for the owner. ${title}` };
      const error = call.error?.name;
      if (error === 'APPROVAL_DENIED') return { text: 'ask → owner denied', tone: 'deny', title };
      if (error === 'APPROVAL_TIMEOUT') return { text: 'ask → no answer', tone: 'deny', title };
      if (error === 'APPROVAL_REQUIRED') return { text: 'ask → no one to ask', tone: 'deny', title };
      if (call.status === 'cancelled') return { text: 'ask → withdrawn', tone: 'none', title };
      if (rule.startsWith('approval:')) return { text: 'ask → allowed once', tone: 'allow', title };
      if (rule.startsWith('rule:')) return { text: `ask → always · ${ruleLabel(rule)}`, tone: 'allow', title };
      return { text: `ask · ${ruleLabel(rule)}`, tone: 'ask', title };
    }
    default:
      return {
        text: '—',
        tone: 'none',
        title: call.error ? `Refused before the policy ran (${call.error.name}).` : 'No policy decision recorded.',
      };
  }
}

/** Result fields that hold what a terminal printed; shown as a terminal, colours included. */
export const TERMINAL_FIELDS = ['output', 'stdout', 'stderr'] as const;

/** Splits a result into terminal text fields and the rest, or returns null when it has none. */
export function splitTerminalResult(result: unknown): { streams: { name: string; text: string }[]; rest: Record<string, unknown> } | null {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  const record = result as Record<string, unknown>;
  const streams = TERMINAL_FIELDS.filter((name) => typeof record[name] === 'string').map((name) => ({ name, text: record[name] as string }));
  if (streams.length === 0) return null;
  const rest: Record<string, unknown> = {};
  const shown = new Set<string>(streams.map((stream) => stream.name));
  for (const [key, value] of Object.entries(record)) {
    // A field not shown as a terminal (`stderr: null`, an object) stays in the rest. output_plain repeats output
    // without colours: showing it twice helps no one.
    if (!shown.has(key) && !(key === 'output_plain' && shown.has('output'))) rest[key] = value;
  }
  return { streams, rest };
}
