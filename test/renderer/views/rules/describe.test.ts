import { describe, expect, it } from 'vitest';
import type { Rule, RuleEffect, RuleScope } from '../../../../renderer/src/lib/types.js';
import { EFFECT_LOOK, SCOPE_CHOICES, scopeInWords } from '../../../../renderer/src/views/rules/describe.js';

const ALL_SCOPES: RuleScope[] = ['exact', 'tool', 'prefix', 'folder', 'host'];

describe('scopeInWords', () => {
  it('a tool rule covers every call of that tool, with no pattern', () => {
    expect(scopeInWords({ scope: 'tool', tool: 'run_shell', pattern: null })).toEqual({ words: 'every call', pattern: null });
  });

  it('a tool rule for * covers every call of every tool', () => {
    expect(scopeInWords({ scope: 'tool', tool: '*', pattern: null })).toEqual({ words: 'every call of every tool', pattern: null });
  });

  it('a tool rule ignores a stray pattern', () => {
    expect(scopeInWords({ scope: 'tool', tool: 'read_file', pattern: 'ignored' }).pattern).toBeNull();
  });

  it('an exact rule shows only the arguments, after the tool name and the NUL', () => {
    expect(scopeInWords({ scope: 'exact', tool: 'run_shell', pattern: 'run_shell\u0000{"command":"make test"}' })).toEqual({
      words: 'only this exact call, with the arguments',
      pattern: '{"command":"make test"}',
    });
  });

  it('an exact pattern is split at the first NUL only', () => {
    expect(scopeInWords({ scope: 'exact', tool: 't', pattern: 't\u0000a\u0000b' }).pattern).toBe('a\u0000b');
  });

  it('an exact pattern without a NUL is shown whole', () => {
    expect(scopeInWords({ scope: 'exact', tool: 't', pattern: '{"a":1}' }).pattern).toBe('{"a":1}');
  });

  it('an exact rule with no pattern has none to show', () => {
    expect(scopeInWords({ scope: 'exact', tool: 't', pattern: null }).pattern).toBeNull();
  });

  it.each([
    ['prefix', 'git status', 'commands starting with the words'],
    ['folder', '/home/me/projects', 'paths in this folder and everything below it'],
    ['host', 'api.example.com', 'requests to the host'],
  ] as const)('a %s rule shows its pattern as it is', (scope, pattern, words) => {
    expect(scopeInWords({ scope, tool: 'x', pattern })).toEqual({ words, pattern });
  });

  it('every scope has words', () => {
    for (const scope of ALL_SCOPES) expect(scopeInWords({ scope, tool: 't', pattern: 'p' }).words, scope).not.toBe('');
  });
});

describe('SCOPE_CHOICES', () => {
  it('offers each scope exactly once', () => {
    expect(SCOPE_CHOICES.map((choice) => choice.scope).sort()).toEqual([...ALL_SCOPES].sort());
  });

  it('every choice has a label and a hint', () => {
    for (const choice of SCOPE_CHOICES) {
      expect(choice.label, choice.scope).not.toBe('');
      expect(choice.hint, choice.scope).not.toBe('');
    }
  });

  it('only the tool scope, which takes no pattern, has no placeholder', () => {
    for (const choice of SCOPE_CHOICES) expect(choice.placeholder === '', choice.scope).toBe(choice.scope === 'tool');
  });

  it('the exact scope placeholder is an arguments object in JSON', () => {
    const exact = SCOPE_CHOICES.find((choice) => choice.scope === 'exact')!;
    expect(JSON.parse(exact.placeholder)).toEqual({ command: 'make test' });
  });

  it('the folder scope placeholder is an absolute folder', () => {
    expect(SCOPE_CHOICES.find((choice) => choice.scope === 'folder')!.placeholder.startsWith('/')).toBe(true);
  });
});

describe('EFFECT_LOOK', () => {
  it('has a look for each effect, labelled with the effect itself', () => {
    const effects: RuleEffect[] = ['allow', 'ask', 'deny'];
    expect(Object.keys(EFFECT_LOOK).sort()).toEqual([...effects].sort());
    for (const effect of effects) {
      expect(EFFECT_LOOK[effect].label).toBe(effect);
      expect(EFFECT_LOOK[effect].icon).not.toBe('');
      expect(EFFECT_LOOK[effect].hint).not.toBe('');
    }
  });

  it('the three icons differ', () => {
    expect(new Set(Object.values(EFFECT_LOOK).map((look) => look.icon)).size).toBe(3);
  });
});
