import { describe, expect, it } from 'vitest';
import { wordMatcher } from '../../../renderer/src/lib/search.js';

describe('wordMatcher', () => {
  it('has nothing to match for a query without words', () => {
    expect(wordMatcher('')).toBeNull();
    expect(wordMatcher('  \t\n ')).toBeNull();
  });

  it('matches a text that contains every word, in any order, ignoring the query case', () => {
    const matches = wordMatcher('  Shell  GIT ')!;
    expect(matches('run_shell: git status')).toBe(true);
    expect(matches('git log in the shell')).toBe(true);
    expect(matches('run_shell: ls')).toBe(false);
  });

  it('words match inside longer words', () => {
    expect(wordMatcher('stat')!('git status')).toBe(true);
  });
});
