import { describe, expect, it } from 'vitest';
import { budgetInWords, budgetNote, parseBudget } from '../../../../renderer/src/views/tools/budget.js';

describe('parseBudget', () => {
  it('reads empty as no limit, and a whole number from 1 to 1000', () => {
    expect(parseBudget('')).toEqual({ ok: true, value: null });
    expect(parseBudget('   ')).toEqual({ ok: true, value: null });
    expect(parseBudget(' 12 ')).toEqual({ ok: true, value: 12 });
    expect(parseBudget('1')).toEqual({ ok: true, value: 1 });
    expect(parseBudget('1000')).toEqual({ ok: true, value: 1000 });
  });

  it('refuses anything else with a message', () => {
    for (const text of ['0', '-3', '1.5', '1001', 'ten', '1e9']) {
      const parsed = parseBudget(text);
      expect(parsed.ok, text).toBe(false);
      expect(!parsed.ok && parsed.message).toBe('The budget is a whole number from 1 to 1000, or empty for no limit.');
    }
  });
});

describe('budgetInWords', () => {
  it('says no limit, the number, and how many are pinned', () => {
    expect(budgetInWords({ max_tools: null, pinned: [] })).toBe('no limit');
    expect(budgetInWords({ max_tools: null, pinned: ['read_file'] })).toBe('no limit');
    expect(budgetInWords({ max_tools: 1, pinned: [] })).toBe('1 tool');
    expect(budgetInWords({ max_tools: 12, pinned: ['read_file', 'run_shell'] })).toBe('12 tools · 2 pinned');
  });

  it('reads a row from a gateway that does not send pinned yet', () => {
    expect(budgetInWords({ max_tools: 8 } as never)).toBe('8 tools');
  });
});

describe('budgetNote', () => {
  it('lists every tool with no limit or within it', () => {
    expect(budgetNote(30, null, 0)).toEqual({ over: false, text: 'No limit: its lists carry all 30 tools of its set.' });
    expect(budgetNote(8, 8, 2)).toEqual({ over: false, text: 'Its 8 tools fit the budget: its lists carry them all.' });
  });

  it('says what an over-budget client is listed: search_tools first, then the pinned tools that fit', () => {
    const over = budgetNote(40, 5, 2);
    expect(over.over).toBe(true);
    expect(over.text).toBe(
      '40 tools in its set, over the budget: its lists carry search_tools and 2 pinned, plus the tools search_tools finds for it; it can still call any tool of its set by name.',
    );
    expect(budgetNote(40, 5, 0).text).toContain('its lists carry search_tools, plus');
  });

  it('says how many pinned tools do not fit', () => {
    expect(budgetNote(40, 3, 4).text).toMatch(/carry search_tools and 2 pinned, .* 2 pinned tools do not fit\.$/);
    expect(budgetNote(40, 1, 1).text).toMatch(/carry search_tools, .* 1 pinned tool does not fit\.$/);
  });
});
