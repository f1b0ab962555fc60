import type { Rule, RuleScope } from '../../lib/types';

/**
 * Whose calls a rule decides. A rule names no client: one made from an approval of cursor's call decides every
 * client's calls of that tool too, and the Rules table, the approval's notice and the popup all say so in these words.
 */
export const RULE_CLIENTS = 'for every client';

/** What a rule's scope covers, in words, with the pattern to show beside it (monospace). */
export function scopeInWords(rule: Pick<Rule, 'scope' | 'pattern' | 'tool'>): { words: string; pattern: string | null } {
  switch (rule.scope) {
    case 'tool':
      return { words: rule.tool === '*' ? 'every call of every tool' : 'every call', pattern: null };
    case 'exact':
      // The gateway keeps an exact rule as "<tool>\0<arguments as sorted JSON>": show the arguments.
      return { words: 'only this exact call, with the arguments', pattern: rule.pattern?.slice(rule.pattern.indexOf('\u0000') + 1) ?? null };
    case 'prefix':
      return { words: 'commands starting with the words', pattern: rule.pattern };
    case 'folder':
      return { words: 'paths in this folder and everything below it', pattern: rule.pattern };
    case 'host':
      return { words: 'requests to the host', pattern: rule.pattern };
  }
}

export const SCOPE_CHOICES: { scope: RuleScope; label: string; placeholder: string; hint: string }[] = [
  { scope: 'tool', label: 'Every call of the tool', placeholder: '', hint: 'No pattern: the rule covers every call.' },
  { scope: 'prefix', label: 'Commands starting with…', placeholder: 'git status', hint: 'run_shell only: plain command words.' },
  { scope: 'folder', label: 'Paths in a folder…', placeholder: '/home/me/projects', hint: 'An absolute folder; covers everything below it.' },
  { scope: 'host', label: 'Requests to a host…', placeholder: 'api.example.com', hint: 'A host name, for the network tools.' },
  { scope: 'exact', label: 'One exact call…', placeholder: '{"command": "make test"}', hint: 'The arguments object, as JSON.' },
];

export const EFFECT_LOOK = {
  allow: { icon: '✓', label: 'allow', hint: 'Runs without asking' },
  ask: { icon: '?', label: 'ask', hint: 'Always asks you first' },
  deny: { icon: '⊘', label: 'deny', hint: 'Always refused' },
} as const;
