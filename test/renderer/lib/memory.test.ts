import { describe, expect, it } from 'vitest';
import { explainMatch, exportFileName, formatScore, importSummary, matchSummary, memorySearchPath, parseTags, scoreShare } from '../../../renderer/src/lib/memory.js';
import type { MemoryMatch } from '../../../renderer/src/lib/types.js';

const match = (terms: MemoryMatch['terms'], missing: string[] = []): MemoryMatch => ({ method: 'hybrid', terms, missing });

describe('explainMatch', () => {
  it('lists exact matches first, then near ones closest first, then the missing words', () => {
    const terms = explainMatch(
      match(
        [
          { query: 'databse', term: 'database', distance: 1 },
          { query: 'port', term: 'port', distance: 0 },
          { query: 'stagng', term: 'staging', distance: 2 },
        ],
        ['redis'],
      ),
    );
    expect(terms.map((t) => [t.kind, t.text])).toEqual([
      ['exact', 'port'],
      ['near', 'databse → database, 1 edit'],
      ['near', 'stagng → staging, 2 edits'],
      ['missing', 'redis'],
    ]);
  });

  it('keeps only the closest match of a query word matched several ways', () => {
    const terms = explainMatch(
      match([
        { query: 'cat', term: 'cart', distance: 1 },
        { query: 'cat', term: 'cat', distance: 0 },
      ]),
    );
    expect(terms).toEqual([{ kind: 'exact', query: 'cat', term: 'cat', distance: 0, text: 'cat' }]);
  });

  it('puts a word found as part of a longer one between the exact and the near matches', () => {
    const terms = explainMatch(
      match([
        { query: 'databse', term: 'database', distance: 1 },
        { query: 'envir', term: 'environment', distance: 6, part: true },
        { query: 'port', term: 'port', distance: 0 },
      ]),
    );
    expect(terms.map((t) => [t.kind, t.text])).toEqual([
      ['exact', 'port'],
      ['part', 'envir → environment, part of the word'],
      ['near', 'databse → database, 1 edit'],
    ]);
    expect(matchSummary(match([{ query: 'envir', term: 'environment', distance: 6, part: true }]))).toContain('part of a word: envir → environment');
  });

  it('names the stored form when an exact match differs from the query as typed (case, width)', () => {
    expect(explainMatch(match([{ query: 'ｖ2', term: 'v2', distance: 0 }]))[0]?.text).toBe('ｖ2 = v2');
  });

  it('a word both matched and reported missing counts as matched', () => {
    expect(explainMatch(match([{ query: 'x1', term: 'x1', distance: 0 }], ['x1'])).map((t) => t.kind)).toEqual(['exact']);
  });

  it('explains nothing for the newest-first listing (no match)', () => {
    expect(explainMatch(null)).toEqual([]);
    expect(matchSummary(null)).toBe('');
  });
});

describe('matchSummary', () => {
  it('reads as one line for a screen reader', () => {
    const summary = matchSummary(match([{ query: 'lobstr', term: 'lobster', distance: 1 }, { query: 'claw', term: 'claw', distance: 0 }], ['sea']));
    expect(summary).toBe('exact: claw · near: lobstr → lobster, 1 edit · not found: sea');
  });
});

describe('memorySearchPath', () => {
  it('sends the words, method and filters', () => {
    expect(memorySearchPath({ q: ' port 5433 ', method: 'fuzzy', tags: ['work', 'db'], category: 'notes', limit: 50 })).toBe(
      '/memory?q=port+5433&method=fuzzy&tags=work%2Cdb&category=notes&limit=50',
    );
  });

  it('sends the writing client when one is picked', () => {
    expect(memorySearchPath({ q: '', method: 'hybrid', tags: [], category: '', client: ' cursor ', limit: 50 })).toBe('/memory?client=cursor&limit=50');
    expect(memorySearchPath({ q: '', method: 'hybrid', tags: [], category: '', client: '', limit: 50 })).toBe('/memory?limit=50');
  });

  it('lists the newest without a method when there are no words', () => {
    expect(memorySearchPath({ q: '   ', method: 'keyword', tags: [], category: ' ', limit: 10 })).toBe('/memory?limit=10');
  });

  it('encodes Chinese and symbols', () => {
    const path = memorySearchPath({ q: '茅台 & sh600519', method: 'hybrid', tags: [], category: '', limit: 5 });
    expect(new URLSearchParams(path.split('?')[1]).get('q')).toBe('茅台 & sh600519');
  });
});

describe('parseTags', () => {
  it('splits on commas, trims, lower-cases and drops repeats and empties', () => {
    expect(parseTags(' Work, db ,,work,  ')).toEqual(['work', 'db']);
    expect(parseTags('')).toEqual([]);
  });
});

describe('formatScore and scoreShare', () => {
  it('shows three significant figures, whole numbers from 100', () => {
    expect(formatScore(3.14159)).toBe('3.14');
    expect(formatScore(0.012345)).toBe('0.0123');
    expect(formatScore(1234.5)).toBe('1235');
    expect(formatScore(2)).toBe('2');
    expect(formatScore(0)).toBe('0');
    expect(formatScore(null)).toBe('—');
  });

  it('scales each result against the best, never past full and never below empty', () => {
    expect(scoreShare(5, 10)).toBe(0.5);
    expect(scoreShare(10, 10)).toBe(1);
    expect(scoreShare(12, 10)).toBe(1);
    expect(scoreShare(-1, 10)).toBe(0);
    expect(scoreShare(1, 0)).toBe(0);
    expect(scoreShare(null, null)).toBe(0);
  });
});

describe('import and export lines', () => {
  it('says what an import did: imported, skipped, and the first failed line', () => {
    expect(importSummary('notes.jsonl', { imported: 12, skipped: 0, failed: 0, errors: [] })).toBe('Imported 12 memories from notes.jsonl.');
    expect(importSummary('a.jsonl', { imported: 1, skipped: 3, failed: 2, errors: [{ line: 4, message: 'not JSON' }] })).toBe(
      'Imported 1 memory from a.jsonl; 3 were already here and skipped; 2 lines failed (line 4: not JSON).',
    );
  });

  it('names an export after its day', () => {
    expect(exportFileName(new Date('2026-05-01T23:00:00Z'))).toBe('pincer-memories-2026-05-01.jsonl');
  });
});
