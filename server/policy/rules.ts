import { randomUUID } from 'node:crypto';
import { isAbsolute, resolve, sep } from 'node:path';
import { GatewayError } from '../errors.js';
import { callKey } from '../util/call-key.js';
import type { Announcer } from '../events/bus.js';
import type { Redactor } from '../util/redact.js';
import { RULE_EFFECTS, RULE_SCOPES, type Rule, type RuleEffect, type RuleScope, type Store } from '../store/index.js';
import { allow, ask, deny, type PolicyDecision, type Provenance, type Subject } from '../decision.js';

/**
 * A rule as the owner reads it (GET /rules, the `rules` event; no client reads rules). Security: an exact rule's
 * pattern is the approved call's real arguments, secrets included; matching uses the rule book's own copy.
 */
export function shownRule(rule: Rule, redactor: Redactor): Rule {
  return { ...rule, pattern: rule.pattern === null ? null : redactor.text(rule.pattern), note: rule.note === null ? null : redactor.text(rule.note) };
}

/**
 * A rule as a client reads the ledger: what it decides for which tool, without its pattern or note. Security: an
 * "always allow" of one client's call makes an exact rule holding that call's arguments (secrets show redacted, the
 * rest stays, and the rule still matches the real value); a prefix, folder or host tells what another client ran
 * and where. Those are the owner's to read.
 */
export function ruleForClient(rule: Rule): Rule {
  return { ...rule, pattern: null, note: null };
}

import type { RuleChange, RuleDraft } from '../contract/rules.js';

export type { RuleChange } from '../contract/rules.js';

/** A rule as the owner writes it (POST /rules, an "always allow"): the wire contract's. */
export type NewRule = RuleDraft;

/** Shell text a prefix rule can vouch for: one plain command, no operators, substitutions or redirections. */
const PLAIN_COMMAND = /^[^;&|<>()$`\\\n\r{}*?[\]!#~'"]*$/;

/**
 * The grants ledger in force: rules the owner made, applied on top of what the analyzers say.
 * deny rules beat everything; an analyzer's deny (outside the roots, catastrophic commands) is never widened; ask
 * rules turn an allow into a question; allow rules answer a question in advance.
 */
export class RuleBook {
  #rules: Rule[];

  constructor(
    private readonly store: Store,
    /** Where every rule added or removed is announced, as shown (the dashboard's ledger follows it live). */
    private readonly announce?: { events: Announcer<'rules'>; redactor: Redactor },
  ) {
    this.#rules = store.rules.list();
  }

  list(): Rule[] {
    return this.#rules;
  }

  #announce(change: RuleChange): void {
    if (!this.announce) return;
    this.announce.events.emit('rules', { ...change, rule: shownRule(change.rule, this.announce.redactor) });
  }

  /** Applies the rules to what the analyzers decided. */
  async apply(tool: string, args: Record<string, unknown>, base: PolicyDecision, now = Date.now()): Promise<PolicyDecision> {
    const live = this.#rules.filter((r) => (r.tool === tool || r.tool === '*') && (r.expires_at === null || Date.parse(r.expires_at) > now));
    if (live.length === 0) return base;
    const subject = live.some((r) => r.scope !== 'tool' && r.scope !== 'exact') ? (base.subject ?? {}) : {};
    const matching = live.filter((r) => matches(r, tool, args, subject));
    const denyRule = matching.find((r) => r.effect === 'deny');
    if (denyRule) return deny(`rule:${denyRule.id}`, `Your rule ${describe(denyRule)} refuses this call. Remove the rule to allow such calls again.`);
    if (base.decision === 'deny') return base;
    const askRule = matching.find((r) => r.effect === 'ask');
    if (askRule && base.decision === 'allow') return ask(`rule:${askRule.id}`, `Your rule ${describe(askRule)} asks before such calls.`);
    const allowRules = matching.filter((r) => r.effect === 'allow');
    const allowRule = allowRules.find((r) => !writtenSince(r, base.subject));
    if (allowRule && base.decision === 'ask') {
      return allow(`rule:${allowRule.id}`, `Your rule ${describe(allowRule)} allows this (it would otherwise ask: ${base.reason})`);
    }
    // Security: a grant for `make` vouched for the Makefile as it was; one a client rewrote since is a new question.
    const stale = allowRules[0];
    const rewritten = stale ? writtenSince(stale, base.subject) : undefined;
    if (stale && rewritten && base.decision === 'ask') {
      return ask(
        'provenance:client-written',
        `${base.reason} Your rule ${describe(stale)} would allow it, but client "${rewritten.client}" wrote ${rewritten.path} after you made the rule.`,
      );
    }
    return base;
  }

  noteUse(ruleId: string): void {
    const id = ruleId.startsWith('rule:') ? ruleId.slice(5) : undefined;
    const rule = id ? this.#rules.find((r) => r.id === id) : undefined;
    if (!rule) return;
    const now = Date.now();
    this.store.rules.noteUse(rule.id, now);
    rule.uses += 1;
    rule.last_used_at = new Date(now).toISOString();
  }

  /** Validates and stores a rule; takes effect at once. */
  add(input: NewRule, createdBy: string, now = Date.now()): Rule {
    const rule: Rule = {
      id: `r_${randomUUID().slice(0, 12)}`,
      effect: input.effect,
      tool: input.tool,
      scope: input.scope,
      pattern: normalizePattern(input),
      note: input.note ?? null,
      created_by: createdBy,
      created_at: new Date(now).toISOString(),
      expires_at: input.expires_at ?? null,
      uses: 0,
      last_used_at: null,
    };
    this.store.rules.add(rule);
    this.#rules = [...this.#rules, rule];
    this.#announce({ change: 'added', rule });
    return rule;
  }

  remove(id: string): boolean {
    const rule = this.#rules.find((r) => r.id === id);
    const removed = this.store.rules.remove(id);
    if (removed) {
      this.#rules = this.#rules.filter((r) => r.id !== id);
      if (rule) this.#announce({ change: 'removed', rule });
    }
    return removed;
  }
}

/** Checks a rule as given over HTTP or the CLI; throws INVALID_ARGUMENTS naming what is wrong. */
export function parseNewRule(body: unknown): NewRule {
  const problems: string[] = [];
  const b = (body ?? {}) as Record<string, unknown>;
  if (!body || typeof body !== 'object' || Array.isArray(body)) problems.push('send a JSON object');
  const known = ['effect', 'tool', 'scope', 'pattern', 'note', 'expires_at'];
  for (const key of Object.keys(b)) if (!known.includes(key)) problems.push(`unknown field "${key}"`);
  if (!RULE_EFFECTS.includes(b.effect as RuleEffect)) problems.push(`effect must be one of ${RULE_EFFECTS.join(', ')}`);
  if (typeof b.tool !== 'string' || !/^(\*|[A-Za-z0-9_-]{1,64})$/.test(b.tool)) problems.push('tool must be a tool name or "*"');
  if (!RULE_SCOPES.includes(b.scope as RuleScope)) problems.push(`scope must be one of ${RULE_SCOPES.join(', ')}`);
  if (b.note !== undefined && b.note !== null && typeof b.note !== 'string') problems.push('note must be a string');
  if (b.expires_at !== undefined && b.expires_at !== null && (typeof b.expires_at !== 'string' || Number.isNaN(Date.parse(b.expires_at)))) {
    problems.push('expires_at must be an ISO 8601 date-time');
  }
  if (problems.length === 0) {
    try {
      normalizePattern(b as unknown as NewRule);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) {
    throw new GatewayError('INVALID_ARGUMENTS', `Invalid rule: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  }
  return {
    effect: b.effect as RuleEffect,
    tool: b.tool as string,
    scope: b.scope as RuleScope,
    pattern: b.pattern,
    note: (b.note as string | undefined) ?? null,
    expires_at: b.expires_at === undefined || b.expires_at === null ? null : new Date(b.expires_at as string).toISOString(),
  };
}

function normalizePattern(input: NewRule): string | null {
  const { scope, pattern, tool } = input;
  switch (scope) {
    case 'tool':
      return null;
    case 'exact':
      if (tool === '*') throw new Error('an exact rule names one tool');
      if (!pattern || typeof pattern !== 'object' || Array.isArray(pattern)) throw new Error('an exact rule needs pattern: the arguments object');
      return callKey(tool, pattern);
    case 'prefix': {
      if (tool !== 'run_shell') throw new Error('a prefix rule is for run_shell commands');
      const words = typeof pattern === 'string' ? pattern.trim().split(/\s+/).filter(Boolean) : [];
      if (words.length === 0 || !PLAIN_COMMAND.test(words.join(' '))) throw new Error('pattern must be plain command words such as "git push"');
      return words.join(' ');
    }
    case 'folder':
      if (typeof pattern !== 'string' || !isAbsolute(pattern)) throw new Error('a folder rule needs pattern: an absolute folder path');
      return resolve(pattern);
    case 'host':
      if (typeof pattern !== 'string' || !/^[A-Za-z0-9.-]{1,253}$|^\[?[0-9A-Fa-f:.]+\]?$/.test(pattern)) throw new Error('a host rule needs pattern: a host name');
      return pattern.toLowerCase().replace(/^\[|\]$/g, '');
  }
}

function matches(rule: Rule, tool: string, args: Record<string, unknown>, subject: Subject): boolean {
  switch (rule.scope) {
    case 'tool':
      return true;
    case 'exact':
      return rule.pattern === callKey(tool, args);
    case 'prefix': {
      // Security: a prefix vouches only for one plain command. "git push && curl … | sh" must not ride on "git push".
      const command = subject.command?.trim() ?? '';
      if (!PLAIN_COMMAND.test(command)) return false;
      const words = command.split(/\s+/);
      const prefix = rule.pattern!.split(' ');
      return prefix.every((word, i) => words[i] === word);
    }
    case 'folder': {
      const inFolder = (path: string) => path === rule.pattern || path.startsWith(rule.pattern!.endsWith(sep) ? rule.pattern! : rule.pattern + sep);
      const here = subject.path !== undefined && inFolder(subject.path);
      const outside = subject.outside ?? [];
      // A deny names a folder never to touch: any path in it counts.
      if (rule.effect === 'deny') return here || outside.some((p) => inFolder(p.path));
      if (outside.length === 0) return here;
      // Security: a command that reads outside the roots is covered only when every such path is in the folder, and
      // either it runs in the folder too or it is otherwise read-only — a grant for a folder to read never vouches
      // for a write or a script elsewhere, and a grant for the working folder never opens the rest of the disk.
      return outside.every((p) => p.access === 'read' && inFolder(p.path)) && (here || subject.otherwise === 'allow');
    }
    case 'host':
      return subject.host !== undefined && subject.host === rule.pattern;
  }
}

/** A file the call runs that a client wrote after the rule was made, if any. */
function writtenSince(rule: Rule, subject: Subject | undefined): Provenance | undefined {
  const made = Date.parse(rule.created_at);
  return subject?.provenance?.find((p) => Date.parse(p.at) > made);
}

/** How describe() names a rule inside a reason: `Your rule "<what>" (r_…)`. */
const NAMED_RULE = /Your rule ".*?" \(r_[0-9a-f-]+\)/g;

/**
 * A reason as a client reads it: the owner's rules it names left unnamed. Security: a rule's id and pattern (another
 * client's command, folder or host) are the owner's; a client learns only that one of the owner's rules decided.
 */
export function withoutRuleNames(reason: string): string {
  return reason.replace(NAMED_RULE, "One of the owner's rules").replaceAll('after you made the rule', 'after that rule was made');
}

function describe(rule: Rule): string {
  const what = rule.tool === '*' ? 'any tool' : rule.tool;
  switch (rule.scope) {
    case 'tool':
      return `"${rule.effect} ${what}" (${rule.id})`;
    case 'exact':
      return `"${rule.effect} this exact ${what} call" (${rule.id})`;
    case 'prefix':
      return `"${rule.effect} ${what} commands starting with ${rule.pattern}" (${rule.id})`;
    case 'folder':
      return `"${rule.effect} ${what} in ${rule.pattern}" (${rule.id})`;
    case 'host':
      return `"${rule.effect} ${what} on ${rule.pattern}" (${rule.id})`;
  }
}
