import { describe, expect, it } from 'vitest';
import { allowedDistance, editDistance, trigrams } from '../../../server/memory/distance.js';
import { queryTerms, tokenize } from '../../../server/memory/tokenize.js';

describe('memory tokeniser', () => {
  it('splits English into lower-case words, without stemming', () => {
    expect(tokenize('The Quick brown fox, jumping!')).toEqual(['the', 'quick', 'brown', 'fox', 'jumping']);
  });

  it('folds NFKC forms: full-width letters and digits, ligatures, ß', () => {
    expect(tokenize('ＡＢＣ１２３')).toEqual(['abc123', 'abc', '123']);
    expect(tokenize('ﬁle Straße')).toEqual(['file', 'strasse']);
    expect(tokenize('CAFÉ')).toEqual(tokenize('café'));
  });

  it('keeps identifiers, versions and file names whole and split', () => {
    expect(tokenize('sh600519')).toEqual(['sh600519', 'sh', '600519']);
    expect(tokenize('tsconfig.json')).toEqual(['tsconfig.json', 'tsconfig', 'json']);
    expect(tokenize('v2.3.1')).toEqual(expect.arrayContaining(['v2.3.1', 'v2', '3', '1']));
    expect(tokenize('read tsconfig.json.')).toEqual(['read', 'tsconfig.json', 'tsconfig', 'json']);
  });

  it('turns Chinese into character bigrams', () => {
    expect(tokenize('贵州茅台股价')).toEqual(['贵州', '州茅', '茅台', '台股', '股价']);
  });

  it('leaves a Chinese query with one wrong character most of its bigrams', () => {
    const right = new Set(tokenize('贵州茅台的股价'));
    const typo = tokenize('贵州茅抬');
    expect(typo.filter((t) => right.has(t))).toEqual(['贵州', '州茅']);
  });

  it('adds the longer words Intl.Segmenter finds in Japanese and Chinese runs, and keeps a lone character', () => {
    expect(tokenize('東京タワー')).toContain('東京タワー');
    expect(tokenize('茶 tea')).toEqual(['茶', 'tea']);
  });

  it('splits mixed text at script changes', () => {
    expect(tokenize('买入sh600519两手')).toEqual(['买入', 'sh600519', 'sh', '600519', '两手']);
  });

  it('gives distinct query terms', () => {
    expect(queryTerms('to be or not to be')).toEqual(['to', 'be', 'or', 'not']);
  });
});

describe('edit distance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps', () => {
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('recieve', 'receive', 2)).toBe(1);
    expect(editDistance('茅台', '茅抬', 1)).toBe(1);
  });

  it('stops past the bound', () => {
    expect(editDistance('abcdefgh', 'zyxwvuts', 2)).toBe(3);
  });

  it('bounds the distance by term length: none for short words and numbers', () => {
    expect(allowedDistance('cat', false)).toBe(0);
    expect(allowedDistance('600519', false)).toBe(0);
    expect(allowedDistance('python', false)).toBe(1);
    expect(allowedDistance('kubernetes', false)).toBe(2);
    expect(allowedDistance('茅台', true)).toBe(1);
  });

  it('pads trigrams so short terms and first letters have their own', () => {
    expect(trigrams('ab')).toEqual(['^^a', '^ab', 'ab$']);
  });
});
