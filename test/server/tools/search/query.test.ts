import { describe, expect, it } from 'vitest';
import { FuzzyDictionary } from '../../../../server/tools/search/fuzzy.js';
import { impliedWords } from '../../../../server/tools/search/implied.js';
import { softwareMates } from '../../../../server/tools/search/software-words.js';
import { stemOf } from '../../../../server/tools/search/text.js';
import { phraseKey, Vocabulary } from '../../../../server/tools/search/vocabulary.js';
import { WordNet } from '../../../../server/tools/search/wordnet.js';

describe('what a request implies', () => {
  const implied = (text: string) => impliedWords(text).map(({ word, token }) => `${word}:${token}`);

  it('reads file names, paths and known file names as files, web addresses as URLs', () => {
    expect(implied('open notes.txt')).toEqual(['file:notes.txt']);
    expect(implied('show ~/projects/app/src/main.ts please')).toEqual(['file:~/projects/app/src/main.ts']);
    expect(implied('list /var/log')).toEqual(['file:/var/log']);
    expect(implied('get the README from the repo')).toEqual(['file:README']);
    expect(implied('download https://example.com/data.json')).toEqual(['url:https://example.com/data.json']);
    expect(implied('go to example.org')).toEqual(['url:example.org']);
  });

  it('reads #channel, #12 and @user, and arithmetic', () => {
    expect(implied("post 'deploy done' to #general")).toEqual(['channel:#general']);
    expect(implied('close #12')).toEqual(['issue:#12']);
    expect(implied('ask @jane.doe')).toEqual(['user:@jane.doe']);
    expect(implied('what is 17% of 2340')).toEqual(['calculate:7%']);
    expect(implied('evaluate 3 * (4 + 5)')).toEqual(['calculate:3 * (']);
    expect(implied('sqrt(2) please')).toEqual(['calculate:sqrt(']);
  });

  it('implies nothing from plain words, dates, versions, phone numbers or abbreviations', () => {
    for (const text of ['list my files', 'meeting on 2024-01-05', 'upgrade to v2.3.1', 'call 555-1234', 'e.g. this one', 'feature-x']) {
      expect(implied(text), text).toEqual([]);
    }
  });
});

describe('software words', () => {
  it('join what WordNet does not: remove and delete, repo and repository, PR and pull request', () => {
    expect(softwareMates(stemOf('remove'))).toContain('delete');
    expect(softwareMates(stemOf('deleting'))).toEqual(expect.arrayContaining(['remove', 'erase', 'rm']));
    expect(softwareMates('repo')).toContain('repository');
    expect(softwareMates('pr')).toContain('pull_request');
    expect(softwareMates('zebra')).toEqual([]);
    expect(phraseKey('pull_request')).toBe('pull_request');
    expect(phraseKey('take away')).toBe('take_awai');
  });
});

describe('typo dictionary', () => {
  it('finds words within the allowed edits through trigrams, nearest first', () => {
    const dictionary = new FuzzyDictionary();
    for (const word of ['delete', 'deleted', 'screenshot', 'branch', 'elevation', 'list', 'lost']) dictionary.add(word);
    expect(dictionary.near('delte')).toEqual([{ word: 'delete', distance: 1 }]);
    expect(dictionary.near('bracnh')).toEqual([{ word: 'branch', distance: 1 }]);
    expect(dictionary.near('scrennshot').map((n) => n.word)).toEqual(['screenshot']);
    expect(dictionary.near('elevaton')).toEqual([{ word: 'elevation', distance: 1 }]);
    // Short words are not corrected (three letters one edit apart are usually other words), nor a word itself.
    expect(dictionary.near('lst')).toEqual([]);
    expect(dictionary.near('list')).toEqual([{ word: 'lost', distance: 1 }]);
    expect(dictionary.near('zzzzzz')).toEqual([]);
  });

  it('counts words in and out', () => {
    const dictionary = new FuzzyDictionary();
    dictionary.add('delete');
    dictionary.add('delete');
    dictionary.delete('delete');
    expect(dictionary.near('delte')).toHaveLength(1);
    dictionary.delete('delete');
    expect(dictionary.near('delte')).toEqual([]);
    expect(dictionary.size).toBe(0);
  });
});

describe('vocabulary', () => {
  it('links the words of WordNet and of the software table to the indexed words, and unlinks them with the last tool', () => {
    const vocabulary = new Vocabulary(WordNet.open());
    vocabulary.add(['elevation', 'delete', 'delete']);
    expect(vocabulary.size).toBe(2);
    expect(vocabulary.linked(stemOf('altitude')).synonyms).toEqual(['elevation']);
    expect(vocabulary.linked(stemOf('remove')).software).toEqual(['delete']);
    expect(vocabulary.linked(stemOf('erase')).software).toEqual(['delete']);
    expect(vocabulary.linked(stemOf('sea')).related).toEqual(['elevation']);
    expect(vocabulary.near('remvoe').map((n) => n.word)).toContain('remove');
    vocabulary.delete(['delete']);
    expect(vocabulary.linked(stemOf('remove')).software).toEqual(['delete']);
    vocabulary.delete(['delete', 'elevation']);
    expect(vocabulary.size).toBe(0);
    expect(vocabulary.isKey(stemOf('remove'))).toBe(false);
    expect(vocabulary.isKey(stemOf('altitude'))).toBe(false);
    expect(vocabulary.near('remvoe')).toEqual([]);
  });

  it('without WordNet, links the software table only', () => {
    const vocabulary = new Vocabulary(null);
    vocabulary.add(['elevation', 'delete']);
    expect(vocabulary.linked(stemOf('remove')).software).toEqual(['delete']);
    expect(vocabulary.linked(stemOf('altitude'))).toEqual({ software: [], synonyms: [], related: [] });
    expect(vocabulary.isKey(stemOf('altitude'))).toBe(false);
  });
});
