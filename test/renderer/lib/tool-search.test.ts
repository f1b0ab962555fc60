import { describe, expect, it } from 'vitest';
import { matchesInWords, matchInWords, scoreText, toolSearchPath } from '../../../renderer/src/lib/tool-search.js';

describe('toolSearchPath', () => {
  it('asks for the trimmed words, encoded, with a limit', () => {
    expect(toolSearchPath('  how high is Denver ')).toBe('/tools/search?q=how+high+is+Denver&limit=10');
    expect(toolSearchPath('a&b=c', 5)).toBe('/tools/search?q=a%26b%3Dc&limit=5');
  });
});

describe('matchInWords', () => {
  it('names the word, what it matched and how', () => {
    expect(matchInWords({ word: 'high', matched: 'elevation', how: 'synonym' })).toBe('high → elevation (synonym)');
    expect(matchInWords({ word: 'deleting', matched: 'delete', how: 'stem' })).toBe('deleting → delete (same stem)');
    expect(matchInWords({ word: 'altitude', matched: 'height', how: 'related' })).toBe('altitude → height (related word)');
    expect(matchInWords({ word: 'elevaton', matched: 'elevation', how: 'fuzzy' })).toBe('elevaton → elevation (typo)');
  });

  it('says a word found as typed once', () => {
    expect(matchInWords({ word: 'denver', matched: 'denver', how: 'word' })).toBe('denver');
    expect(matchInWords({ word: 'Git', matched: 'git', how: 'word' })).toBe('Git');
  });

  it('shows a kind of match it does not know as sent', () => {
    expect(matchInWords({ word: 'x', matched: 'y', how: 'phonetic' as never })).toBe('x → y (phonetic)');
  });
});

describe('matchesInWords', () => {
  it('joins every match once, in order', () => {
    expect(
      matchesInWords([
        { word: 'high', matched: 'elevation', how: 'synonym' },
        { word: 'denver', matched: 'denver', how: 'word' },
        { word: 'high', matched: 'elevation', how: 'synonym' },
      ]),
    ).toBe('high → elevation (synonym) · denver');
    expect(matchesInWords([])).toBe('');
  });
});

describe('scoreText', () => {
  it('shows two decimals at most', () => {
    expect(scoreText(3.14159)).toBe('3.14');
    expect(scoreText(12)).toBe('12');
    expect(scoreText(0.5)).toBe('0.5');
    expect(scoreText(Number.NaN)).toBe('–');
  });
});
